/// @file
/// @brief Chapter 1, host side: the launchers of the naive kernels, the exercise table and the
/// chapter's description (describe()), which its executable and the ladder run.
///
/// One file for both editions: include a chapter-1 kernels.cuh (yours or the solution's) first,
/// then this file. Each launcher checks its arguments, covers the output with a grid computed by
/// ceiling division, launches, and checks the launch.
#pragma once

#include <cuda_runtime.h>

#include <iterator>
#include <string>
#include <vector>

#include "bug_hunt.cuh"
#include "course/driver.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"

namespace ch01 {

/// The exercises of this chapter's kernels, for the hint printed when a check fails. Exercises
/// 1.1 to 1.4 are in first_program.cu, which checks its own result.
inline constexpr course::Exercise kExercises[] = {
    {"1.5", "matmul", "which element of C a thread owns"},
    {"1.5", "minplus", "which element of C a thread owns"},
    {"1.6", "matmul", "the sum over k"},
    {"1.7", "minplus", "the minimum over k"},
    {"1.8", "conv2d", "the sum over the mask"},
    {"1.9", "conv1d", "the range of taps and their sum"},
};
/// Threads per block along x: one warp, so a warp spans 32 consecutive fast indices.
constexpr int kBlockX = 32;
/// Threads per block along y.
constexpr int kBlockY = 8;
/// Threads per block of the 1D kernel.
constexpr int kBlock1d = 256;

/// The signature of matmul_kernel and minplus_kernel.
using ProductKernel = void (*)(const float* A, const float* B, float* C, int m, int n, int k,
                               ThreadMapping mapping);

/// Launches @p kernel (matmul_kernel or minplus_kernel) with one thread per element of C. The
/// grid's x extent covers the index that consecutive threads walk: the n columns with
/// ThreadMapping::coalesced, the m rows with ThreadMapping::transposed.
inline void launch_product(ProductKernel kernel, const float* A, const float* B, float* C, int m,
                           int n, int k, cudaStream_t stream, ThreadMapping mapping) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid = mapping == ThreadMapping::coalesced ? course::grid_2d(n, m, block)
                                                        : course::grid_2d(m, n, block);
  kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k, mapping);
  COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
}

/// C = A * B (A is m x k, B is k x n, row-major device pointers), one thread per element of C.
/// @p mapping: consecutive threads walk the columns (coalesced, the default) or the rows.
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream, ThreadMapping mapping = ThreadMapping::coalesced) {
  launch_product(matmul_kernel, A, B, C, m, n, k, stream, mapping);
}

/// C[i][j] = min over p of A[i][p] + B[p][j], one thread per element of C.
/// @p mapping: consecutive threads walk the columns (coalesced, the default) or the rows.
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, ThreadMapping mapping = ThreadMapping::coalesced) {
  launch_product(minplus_kernel, A, B, C, m, n, k, stream, mapping);
}

/// Convolves the h x w image @p img with the odd mk x ml @p mask (zero padding) into @p out.
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream) {
  course::require_positive(h, "h");
  course::require_positive(w, "w");
  course::require(mk >= 1 && ml >= 1 && mk % 2 == 1 && ml % 2 == 1, "the mask sides must be odd");
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid = course::grid_2d(w, h, block);
  conv2d_kernel<<<grid, block, 0, stream>>>(img, h, w, mask, mk, ml, out);
  COURSE_CHECK_LAUNCH(conv2d_kernel, grid, block, 0, stream);
}

/// Full convolution of the n-sample signal @p a with the m-tap mask @p b into the n + m - 1
/// samples of @p y.
inline void conv1d(const float* a, int n, const float* b, int m, float* y, cudaStream_t stream) {
  course::require_positive(n, "n");
  course::require_positive(m, "m");
  const dim3 block(kBlock1d);
  const dim3 grid = course::grid_1d(static_cast<long long>(n) + m - 1, kBlock1d);
  conv1d_kernel<<<grid, block, 0, stream>>>(a, n, b, m, y);
  COURSE_CHECK_LAUNCH(conv1d_kernel, grid, block, 0, stream);
}

/// Chapter 1 as its executable and the ladder run it: every problem, the products with the thread
/// mapping that `--mapping` chooses, and the planted bug of bug_hunt.cuh.
inline course::Chapter describe() {
  course::Chapter chapter = course::make_chapter(1, "global memory");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    const ThreadMapping mapping = chosen.text("--mapping") == "transposed"
                                      ? ThreadMapping::transposed
                                      : ThreadMapping::coalesced;
    return course::ProblemSet{course::with_choice(matmul, mapping),
                              course::with_choice(minplus, mapping), conv2d, conv1d};
  };
  chapter.flags.options = {{"--mapping",
                            "thread mapping",
                            {"coalesced", "transposed"},
                            {course::Problem::matmul, course::Problem::minplus},
                            "consecutive threads take consecutive columns of C (coalesced) or "
                            "consecutive rows (transposed)"}};
  chapter.exercises.assign(std::begin(kExercises), std::end(kExercises));
  // The bug hunt: a defective product kernel behind the chapter's own launcher.
  const course::ProductLauncher edge = [](const float* A, const float* B, float* C, int m, int n,
                                          int k, cudaStream_t stream) {
    launch_product(matmul_edge_kernel, A, B, C, m, n, k, stream, ThreadMapping::coalesced);
  };
  // The chapter's instruments on the student's kernels: bounds, and the rate.
  const std::vector<std::string> all = {"matmul", "minplus", "conv2d", "conv1d"};
  const std::string every = "--problem matmul,minplus,conv2d,conv1d";
  const std::string awkward = " -m 33 -n 65 -k 17 --height 37 --width 29 --mask 5x3 --taps 37";
  chapter.checks = {
      course::sanitizer_check("memcheck", all, every + awkward,
                              "a read or write outside an array: the bounds test of exercises "
                              "1.5 to 1.9 (scripts/hint.sh 1.5)"),
      course::sanitizer_check("memcheck", {"matmul", "minplus"},
                              "--problem matmul,minplus --mapping transposed" + awkward,
                              "the transposed mapping reads outside C: exercise 1.5, which "
                              "element a thread owns (scripts/hint.sh 1.5)",
                              "memcheck-transposed"),
      course::rate_check(all, every,
                         "slower than the solution: the coalescing section of the lesson, and "
                         "which index consecutive threads walk in exercise 1.5"),
  };
  const std::string ncu_size = "--problem matmul -m 1024 -n 1024 -k 1024 --warmup 0 --reps 1";
  chapter.predictions = {
      {"1.1",
       {course::words(ncu_size), course::words(ncu_size + " --mapping transposed")},
       {"ncu"},
       {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "dram__bytes_read.sum",
        "gpu__time_duration.sum"},
       "matmul_kernel"},
  };
  chapter.bugs = {{"edge",
                   "memcheck",
                   "a matmul kernel with one defect, which the check does not always see",
                   {edge, {}, {}, {}}}};
  return chapter;
}

}  // namespace ch01
