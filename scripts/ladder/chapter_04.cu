// Chapter 4's solution kernels as the ladder runs them: each with its default launch options.
#include "solutions/04_register_blocking/kernels.cuh"

#include "chapters.hpp"

namespace ladder {
namespace {

void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t stream,
            const course::LaunchOptions&) {
  ch04::matmul(A, B, C, m, n, k, stream);
}

void minplus(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t stream,
             const course::LaunchOptions&) {
  ch04::minplus(A, B, C, m, n, k, stream);
}

void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
            cudaStream_t stream, const course::LaunchOptions&) {
  ch04::conv2d(img, h, w, mask, mk, ml, out, stream);
}

}  // namespace

ChapterSolutions chapter_04_solutions() {
  ChapterSolutions chapter;
  chapter.number = 4;
  chapter.title = "register blocking";
  chapter.problems.matmul = matmul;
  chapter.problems.minplus = minplus;
  chapter.problems.conv2d = conv2d;
  return chapter;
}

}  // namespace ladder
