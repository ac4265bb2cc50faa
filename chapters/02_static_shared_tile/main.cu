// Chapter 2 driver. The build compiles this file twice: once against your
// chapters/02_static_shared_tile/kernels.cuh and once against
// solutions/02_static_shared_tile/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path); launch.cuh, the host side, serves both. Chapter 1's
// solution runs on the same inputs, so the report shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"
#include "bug_hunt.cuh"

#include "solutions/01_global_memory/kernels.cuh"
#include "chapters/01_global_memory/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(2, "the static shared tile");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    return course::ProblemSet{course::with_choice(ch02::matmul, chosen.tile),
                              course::with_choice(ch02::minplus, chosen.tile), ch02::conv2d,
                              ch02::conv1d};
  };
  // Chapter 1's solution with its default launch choices.
  chapter.previous = {course::with_choice(ch01::matmul, course::ThreadMapping::coalesced),
                      course::with_choice(ch01::minplus, course::ThreadMapping::coalesced),
                      ch01::conv2d, ch01::conv1d};
  chapter.flags.tiles.assign(std::begin(ch02::kTiles), std::end(ch02::kTiles));
  chapter.flags.mask_sides.assign(std::begin(ch02::kMaskSides), std::end(ch02::kMaskSides));
  chapter.flags.tap_counts.assign(std::begin(ch02::kTapCounts), std::end(ch02::kTapCounts));
  // The bug hunt (bug_hunt.cuh): a tiled product with a defect, at the default tile width.
  const auto bug_product = [](auto kernel) {
    return [kernel](const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream) {
      ch02::launch_tiles(kernel, ch02::kTiles[0], A, B, C, m, n, k, stream);
    };
  };
  chapter.bugs = {{"barrier",
                   "racecheck",
                   "the tiled product's result can depend on how the warps are scheduled",
                   {bug_product(ch02::bug::product_kernel<course::PlusTimes, ch02::kTiles[0]>),
                    bug_product(ch02::bug::product_kernel<course::MinPlus, ch02::kTiles[0]>),
                    {},
                    {}}}};
  chapter.exercises.assign(std::begin(ch02::kExercises), std::end(ch02::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
