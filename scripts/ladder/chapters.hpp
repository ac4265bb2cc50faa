/// @file chapters.hpp
/// @brief The chapters' solution kernels that this ladder was built with.
#pragma once

#include "course/problems.hpp"

#include <string>
#include <vector>

namespace ladder {

/// One chapter's solution launchers, or those of one of its variants.
struct ChapterSolutions {
  int number = 0;               ///< chapter number
  course::ProblemSet problems;  ///< the launchers at their default choices; empty where the
                                ///< chapter does not carry a problem
  /// Empty for the chapter's main kernels; the variant's name ("dispatch") for the launchers of
  /// namespace chNN::<variant>, the chapter at its best.
  std::string variant;
};

/// Adds @p chapter to available_chapters(). Each compiled copy of chapter_adapter.cu calls it
/// once for the chapter and once for each variant it has, when the program starts; returns true.
bool add_chapter(const ChapterSolutions& chapter);

/// The chapters of the course (each with its solutions/NN_slug/kernels.cuh), in chapter order,
/// each chapter's main kernels before its variants.
std::vector<ChapterSolutions> available_chapters();

}  // namespace ladder
