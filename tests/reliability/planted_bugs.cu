// A chapter made up for the bug hunt (`reliability.py bughunt`), kept out of the course: one tiled
// matmul through the shared driver, and planted bugs of each kind a chapter registers. The bugs
// named "uncaught-..." are the correct kernel under a tool: the bug hunt must fail on them
// ("did not catch"), which shows that it can.
#include <cuda_runtime.h>

#include "course/driver.hpp"
#include "course/launch.cuh"

namespace {

constexpr int kTile = 32;

/// What a kernel instance gets wrong.
enum Defect {
  kNone,          ///< the correct kernel
  kLastTile,      ///< skips the last tile of k: a wrong result (check)
  kPastTheEnd,    ///< writes row m, one past the end of C when m is not a multiple (memcheck)
  kNoBarrier,     ///< no barrier before the next tile overwrites this one (racecheck)
  kColumnMajorB,  ///< B's tile stored transposed: 32 lanes in one bank (ncu bank conflicts)
};

template <Defect kDefect>
__global__ void tiled_matmul(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int tiles = (k + kTile - 1) / kTile - (kDefect == kLastTile ? 1 : 0);
  float sum = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    const int ak = t * kTile + threadIdx.x;
    const int bk = t * kTile + threadIdx.y;
    a_tile[threadIdx.y][threadIdx.x] = row < m && ak < k ? A[(long long)row * k + ak] : 0.0f;
    const float b = bk < k && col < n ? B[(long long)bk * n + col] : 0.0f;
    if (kDefect == kColumnMajorB)
      b_tile[threadIdx.x][threadIdx.y] = b;
    else
      b_tile[threadIdx.y][threadIdx.x] = b;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) {
      const float b_value =
          kDefect == kColumnMajorB ? b_tile[threadIdx.x][i] : b_tile[i][threadIdx.x];
      sum += a_tile[threadIdx.y][i] * b_value;
    }
    if (kDefect != kNoBarrier)
      __syncthreads();
  }
  if ((row < m || (kDefect == kPastTheEnd && row == m)) && col < n)
    C[(long long)row * n + col] = sum;
}

template <Defect kDefect>
void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid = course::grid_2d(n, m, block);
  tiled_matmul<kDefect><<<grid, block, 0, stream>>>(A, B, C, m, n, k);
  COURSE_CHECK_LAUNCH(tiled_matmul<kDefect>, grid, block, 0, stream);
}

course::PlantedBug bug(const char* name, const char* tool, const char* summary,
                       course::ProductLauncher launcher) {
  course::PlantedBug planted{name, tool, summary, {}};
  planted.launchers.matmul = launcher;
  return planted;
}

}  // namespace

int main(int argc, char** argv) {
  course::Chapter chapter;
  chapter.number = 1;
  chapter.title = "planted bugs for the bug-hunt harness";
  chapter.solution = true;
  course::ProblemSet set;
  set.matmul = matmul<kNone>;
  chapter.launchers = course::fixed_launchers(set);
  const char* conflicts = "ncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
  chapter.bugs = {
      bug("last-tile", "check", "the sum stops one tile short", matmul<kLastTile>),
      bug("past-the-end", "memcheck", "one row too many is written", matmul<kPastTheEnd>),
      bug("no-barrier", "racecheck", "a tile is refilled while it is read", matmul<kNoBarrier>),
      bug("column-major", conflicts, "B's tile is stored the other way round",
          matmul<kColumnMajorB>),
      bug("uncaught-check", "check", "the correct kernel", matmul<kNone>),
      bug("uncaught-memcheck", "memcheck", "the correct kernel", matmul<kNone>),
      bug("uncaught-racecheck", "racecheck", "the correct kernel", matmul<kNone>),
      bug("uncaught-ncu", conflicts, "the correct kernel", matmul<kNone>),
  };
  return course::run_chapter(chapter, argc, argv);
}
