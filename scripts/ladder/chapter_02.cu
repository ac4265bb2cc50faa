// Chapter 2's solution kernels as the ladder runs them: each with its default launch options.
#include "solutions/02_static_shared_tile/kernels.cuh"

#include "chapters.hpp"

namespace ladder {

ChapterSolutions chapter_02_solutions() {
  ChapterSolutions chapter;
  chapter.number = 2;
  chapter.title = "static shared tile";
  chapter.problems.matmul = ch02::matmul;
  chapter.problems.minplus = ch02::minplus;
  chapter.problems.conv2d = ch02::conv2d;
  return chapter;
}

}  // namespace ladder
