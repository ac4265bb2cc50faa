/// @file chapters.hpp
/// @brief What the ladder runs of each chapter it was built with: the launchers of the chapter's
/// own description (chNN::describe(), course::Chapter), with its solution kernels.
#pragma once

#include "course/driver.hpp"

#include <functional>
#include <string>
#include <vector>

namespace ladder {

/// One chapter's solution launchers as the ladder runs them: at the chapter's defaults, or at its
/// best variant.
struct ChapterSolutions {
  int number = 0;               ///< chapter number
  course::ProblemSet problems;  ///< the launchers; empty where the chapter has no such problem
  /// Empty at the chapter's defaults; its course::Chapter::best_variant ("dispatch") otherwise.
  std::string variant;
  /// The chapter's course::Chapter::gpu_refusal (may be unset).
  std::function<std::string()> gpu_refusal;
};

/// Adds @p chapter, a chapter's description built with its solution kernels, to
/// available_chapters(). Each compiled copy of chapter.cu calls it once when the program starts;
/// returns true.
bool add_chapter(const course::Chapter& chapter);

/// Every chapter added, in chapter order, as its solution executable runs it: at its defaults
/// (no launch flags), then at its best variant (`--variant NAME`) when it names one.
std::vector<ChapterSolutions> available_chapters();

}  // namespace ladder
