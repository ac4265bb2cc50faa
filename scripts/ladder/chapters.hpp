/// @file chapters.hpp
/// @brief The chapters' solution kernels that this ladder was built with, and the cuBLAS baseline.
#pragma once

#include "course/problems.hpp"

#include <vector>

namespace ladder {

/// One chapter's solution launchers.
struct ChapterSolutions {
  int number = 0;               ///< chapter number, 1 to 4
  const char* title = "";       ///< e.g. "global memory"
  course::ProblemSet problems;  ///< the launchers; null for a problem the chapter does not carry
};

/// The chapters whose `solutions/NN_slug/kernels.cuh` existed when the ladder was configured, in
/// chapter order (the build compiles one source file per chapter, chapter_NN.cu).
std::vector<ChapterSolutions> available_chapters();

/// Chapter 1's solutions (chapter_01.cu).
ChapterSolutions chapter_01_solutions();
/// Chapter 2's solutions (chapter_02.cu).
ChapterSolutions chapter_02_solutions();
/// Chapter 3's solutions (chapter_03.cu).
ChapterSolutions chapter_03_solutions();
/// Chapter 4's solutions (chapter_04.cu).
ChapterSolutions chapter_04_solutions();

}  // namespace ladder
