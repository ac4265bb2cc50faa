/// @file workloads.hpp
/// @brief What the performance ladder runs: each problem at its benchmark sizes, a short label for
/// each size, the work and memory traffic of one run, and the hardware ceiling it is measured
/// against.
#pragma once

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

/// The performance ladder: every chapter's solution and the vendor baseline, side by side.
namespace ladder {

/// One problem at one size.
struct Workload {
  course::Problem problem = course::Problem::matmul;  ///< which problem
  int m = 1;                                          ///< products: rows of A and C
  int n = 1;                                          ///< products: columns of B and C
  int k = 1;                                          ///< products: columns of A, rows of B
  int height = 1;                                     ///< conv2d: image rows
  int width = 1;                                      ///< conv2d: image columns
  int mask_rows = 1;                                  ///< conv2d: mask rows (odd)
  int mask_cols = 1;                                  ///< conv2d: mask columns (odd)
  int signal_length = 1;                              ///< conv1d: signal samples
  int taps = 1;                                       ///< conv1d: mask length
};

/// A matmul or minplus workload: A is @p m x @p k, B is @p k x @p n.
Workload product_workload(course::Problem problem, int m, int n, int k);
/// A conv2d workload: an @p height x @p width image and a @p mask_rows x @p mask_cols mask.
Workload conv2d_workload(int height, int width, int mask_rows, int mask_cols);
/// A conv1d workload: @p signal_length samples and a mask of @p taps taps.
Workload conv1d_workload(int signal_length, int taps);

/// The sizes of @p workload written into a copy of @p base (which supplies seed, warm-up, reps).
course::Options with_sizes(const Workload& workload, const course::Options& base);

/// A short label of the size, the same for every implementation of one workload, e.g. "4096"
/// (square product), "300x200x100" (m x n x k), "8192x8192, 13x13 mask", "2^24, 127 taps".
std::string size_label(const Workload& workload);

/// Whether two workloads are the same problem at the same sizes.
bool same_workload(const Workload& a, const Workload& b);

/// The unit of the rate reported for @p problem: "TFLOP/s", "Tstep/s", "Gpixel/s", "Gsample/s"
/// (the units of course::fill_rate()).
const char* rate_unit(course::Problem problem);

/// Work of one run counted in the rate's unit (before its 1e12 or 1e9 scale): FLOPs for matmul
/// (2mnk), steps for minplus (mnk), output pixels for conv2d, output samples for conv1d.
double work_per_run(const Workload& workload);

/// The rate's scale: 1e12 for the products (T...), 1e9 for the convolutions (G...).
double rate_scale(course::Problem problem);

/// FP32 operations of one run, as course::fill_rate() counts them (a multiply-add or a min-plus
/// step counts two).
double flops_per_run(const Workload& workload);

/// Bytes that one run must move at the least: every input read once and the output written once.
double bytes_per_run(const Workload& workload);

/// The fastest rate the hardware allows for a workload, in the workload's rate unit.
struct Ceiling {
  double rate = 0;          ///< the tighter of the two bounds below; 0 if neither is known
  std::string name;         ///< "FP32 peak", "min-plus peak" or "memory bound"
  double compute_rate = 0;  ///< arithmetic bound: the FP32 (or min-plus) peak; 0 if unknown
  double memory_rate = 0;   ///< bandwidth bound: bytes_per_run() at the memory bandwidth
};

/// The ceiling of @p workload on @p device: the arithmetic peak (FP32 FMA, or the min-plus step
/// peak for minplus) or, where it is the tighter one, the memory-bandwidth bound.
Ceiling ceiling(const Workload& workload, const course::DeviceInfo& device);

/// Benchmark sizes (documented in usage()): matmul 1024, 2048, 4096, 8192; minplus 1024, 4096;
/// conv2d 4096^2 and 8192^2 with a 13 x 13 mask; conv1d 2^24 samples with 127 taps.
std::vector<Workload> default_workloads();

/// Tiny sizes that are not multiples of any tile, for the quick test: a few milliseconds each.
std::vector<Workload> quick_workloads();

/// Parses one `--sizes` value, `PROBLEM=SIZE[,SIZE...]`: products take N (square) or MxNxK,
/// conv2d takes N (square) or HxW (with the mask @p mask_rows x @p mask_cols), conv1d takes the
/// signal length (with @p taps taps). Any number may be written 2^E. Throws course::UsageError.
std::vector<Workload> parse_sizes(const std::string& spec, int mask_rows, int mask_cols, int taps);

/// Parses a positive size written as digits or as 2^E; @p flag names the flag in errors.
/// Throws course::UsageError.
int parse_count(const std::string& flag, const std::string& text);

}  // namespace ladder
