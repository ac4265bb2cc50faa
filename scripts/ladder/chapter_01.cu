// Chapter 1's solution kernels as the ladder runs them: each with its default launch options.
#include "solutions/01_global_memory/kernels.cuh"

#include "chapters.hpp"

namespace ladder {
namespace {

void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t stream,
            const course::LaunchOptions&) {
  ch01::matmul(A, B, C, m, n, k, stream);
}

void minplus(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t stream,
             const course::LaunchOptions&) {
  ch01::minplus(A, B, C, m, n, k, stream);
}

void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
            cudaStream_t stream, const course::LaunchOptions&) {
  ch01::conv2d(img, h, w, mask, mk, ml, out, stream);
}

void conv1d(const float* a, int n, const float* b, int m, float* y, cudaStream_t stream,
            const course::LaunchOptions&) {
  ch01::conv1d(a, n, b, m, y, stream);
}

}  // namespace

ChapterSolutions chapter_01_solutions() {
  ChapterSolutions chapter;
  chapter.number = 1;
  chapter.title = "global memory";
  chapter.problems.matmul = matmul;
  chapter.problems.minplus = minplus;
  chapter.problems.conv2d = conv2d;
  chapter.problems.conv1d = conv1d;
  return chapter;
}

}  // namespace ladder
