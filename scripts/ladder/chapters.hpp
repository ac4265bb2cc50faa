/// @file chapters.hpp
/// @brief The chapters' solution kernels that this ladder was built with.
#pragma once

#include "course/problems.hpp"

#include <vector>

namespace ladder {

/// One chapter's solution launchers.
struct ChapterSolutions {
  int number = 0;               ///< chapter number
  course::ProblemSet problems;  ///< the launchers at their default choices; empty where the
                                ///< chapter does not carry a problem
};

/// Adds @p chapter to available_chapters(). Each compiled copy of chapter_adapter.cu calls it
/// once, when the program starts; returns true.
bool add_chapter(const ChapterSolutions& chapter);

/// The chapters whose `solutions/NN_slug/kernels.cuh` existed when the ladder was configured, in
/// chapter order.
std::vector<ChapterSolutions> available_chapters();

}  // namespace ladder
