// Chapter 3's solution kernels as the ladder runs them: each with its default launch options.
#include "solutions/03_dynamic_shared_buffer/kernels.cuh"

#include "chapters.hpp"

namespace ladder {

ChapterSolutions chapter_03_solutions() {
  ChapterSolutions chapter;
  chapter.number = 3;
  chapter.title = "dynamic shared buffer";
  chapter.problems.matmul = ch03::matmul;
  chapter.problems.minplus = ch03::minplus;
  chapter.problems.conv2d = ch03::conv2d;
  chapter.problems.conv1d = ch03::conv1d;
  return chapter;
}

}  // namespace ladder
