// Chapter 3 driver. The build compiles this file twice: once against your
// chapters/03_dynamic_shared_buffer/kernels.cuh and once against
// solutions/03_dynamic_shared_buffer/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path); launch.cuh, the host side, serves both. Chapter 2's
// solution runs on the same inputs, so the report shows the speedup over it, for the sizes that
// chapter 2 compiled (its tiles, its square masks, its tap counts).
#include <kernels.cuh>
#include "launch.cuh"
#include "bug_hunt.cuh"

#include "solutions/02_static_shared_tile/kernels.cuh"
#include "chapters/02_static_shared_tile/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(3, "the dynamic shared buffer");
  // --variant plain runs the kernels of the lesson's main part; --variant dispatch sends the
  // sizes it has compiled kernels for to those (the appendix's "going further"). conv1d has one
  // kernel for both.
  chapter.flags.variants = {"plain", "dispatch"};
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    if (chosen.variant == "dispatch") {
      return course::ProblemSet{course::with_choice(ch03::dispatch::matmul, chosen.tile),
                                course::with_choice(ch03::dispatch::minplus, chosen.tile),
                                course::with_choice(ch03::dispatch::conv2d, chosen.block),
                                ch03::conv1d};
    }
    return course::ProblemSet{course::with_choice(ch03::matmul, chosen.tile),
                              course::with_choice(ch03::minplus, chosen.tile),
                              course::with_choice(ch03::conv2d, chosen.block), ch03::conv1d};
  };
  // Chapter 2's solution with its default launch choices (the first tile offered).
  chapter.previous = {course::with_choice(ch02::matmul, ch02::kTiles[0]),
                      course::with_choice(ch02::minplus, ch02::kTiles[0]), ch02::conv2d,
                      ch02::conv1d};
  chapter.flags.tiles.assign(std::begin(ch03::kTiles), std::end(ch03::kTiles));
  chapter.flags.blocks.assign(std::begin(ch03::kBlocks), std::end(ch03::kBlocks));
  chapter.flags.max_taps = ch03::kMaxTaps;
  chapter.flags.signal_demo = true;
  chapter.exercises.assign(std::begin(ch03::kExercises), std::end(ch03::kExercises));
  // The bug hunt (bug_hunt.cuh): a conv1d kernel with a defect, through the chapter's launcher.
  const course::Conv1dLauncher defective_conv1d = [](const float* a, int n, const float* b, int m,
                                                     float* y, cudaStream_t stream) {
    ch03::launch_conv1d(ch03::bug::conv1d_kernel, a, n, b, m, y, stream);
  };
  chapter.bugs = {{"conv1d-buffer",
                   "racecheck",
                   "conv1d computes wrong outputs",
                   {{}, {}, {}, defective_conv1d}}};
  return course::run_chapter(chapter, argc, argv);
}
