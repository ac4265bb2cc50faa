// Chapter 1's solution kernels as the ladder runs them: each with its default launch options.
#include "solutions/01_global_memory/kernels.cuh"

#include "chapters.hpp"

namespace ladder {

ChapterSolutions chapter_01_solutions() {
  ChapterSolutions chapter;
  chapter.number = 1;
  chapter.title = "global memory";
  chapter.problems.matmul = ch01::matmul;
  chapter.problems.minplus = ch01::minplus;
  chapter.problems.conv2d = ch01::conv2d;
  chapter.problems.conv1d = ch01::conv1d;
  return chapter;
}

}  // namespace ladder
