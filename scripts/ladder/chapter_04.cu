// Chapter 4's solution kernels as the ladder runs them: each with its default launch options.
#include "solutions/04_register_blocking/kernels.cuh"

#include "chapters.hpp"

namespace ladder {

ChapterSolutions chapter_04_solutions() {
  ChapterSolutions chapter;
  chapter.number = 4;
  chapter.title = "register blocking";
  chapter.problems.matmul = ch04::matmul;
  chapter.problems.minplus = ch04::minplus;
  chapter.problems.conv2d = ch04::conv2d;
  return chapter;
}

}  // namespace ladder
