#include "workloads.hpp"

#include "course/parse.hpp"

#include <sstream>

namespace ladder {
namespace {

using course::Problem;

// Benchmark sizes: chosen so the whole ladder takes well under two minutes on an H100 or H200.
constexpr int kProductSizes[] = {1024, 2048, 4096, 8192};
constexpr int kMinplusSizes[] = {1024, 4096, 6300};
constexpr int kConv2dSides[] = {4096, 8192};
constexpr int kDefaultMaskSide = 13;
constexpr int kConv1dLength = 1 << 24;
constexpr int kDefaultTaps = 127;

// Quick sizes: not multiples of 8, 16, 32 or 64, so every kernel's edge handling runs.
constexpr int kQuickProductSizes[] = {67, 257};
constexpr int kQuickMinplusSize = 129;
constexpr int kQuickConv2dHeight = 131;
constexpr int kQuickConv2dWidth = 97;
constexpr int kQuickConv1dLength = 10007;

// Powers of two from this one up are labelled 2^E (2^16 = 65536): "2^24" reads better than
// "16777216".
constexpr int kSmallestPowerLabel = 1 << 16;

std::string count_label(long long value) {
  if (value >= kSmallestPowerLabel && (value & (value - 1)) == 0) {
    int exponent = 0;
    while ((1LL << exponent) < value)
      ++exponent;
    return "2^" + std::to_string(exponent);
  }
  return std::to_string(value);
}

}  // namespace

std::string size_label(const course::Workload& w) {
  std::ostringstream out;
  switch (w.problem) {
    case Problem::matmul:
    case Problem::minplus:
      if (w.m == w.n && w.n == w.k) {
        out << w.m;
      } else {
        out << w.m << "x" << w.n << "x" << w.k;
      }
      break;
    case Problem::conv2d:
      out << w.height << "x" << w.width << ", " << w.mask_rows << "x" << w.mask_cols << " mask";
      break;
    case Problem::conv1d:
      out << count_label(w.signal_length) << ", " << w.taps << " taps";
      break;
  }
  return out.str();
}

std::vector<course::Workload> default_workloads() {
  std::vector<course::Workload> workloads;
  for (int size : kProductSizes)
    workloads.push_back(course::product_workload(Problem::matmul, size, size, size));
  for (int size : kMinplusSizes)
    workloads.push_back(course::product_workload(Problem::minplus, size, size, size));
  for (int side : kConv2dSides)
    workloads.push_back(course::conv2d_workload(side, side, kDefaultMaskSide, kDefaultMaskSide));
  workloads.push_back(course::conv1d_workload(kConv1dLength, kDefaultTaps));
  return workloads;
}

std::vector<course::Workload> quick_workloads() {
  std::vector<course::Workload> workloads;
  for (int size : kQuickProductSizes)
    workloads.push_back(course::product_workload(Problem::matmul, size, size, size));
  workloads.push_back(course::product_workload(Problem::matmul, 65, 33, 127));  // m != n != k
  workloads.push_back(course::product_workload(Problem::minplus, kQuickMinplusSize,
                                               kQuickMinplusSize, kQuickMinplusSize));
  workloads.push_back(course::conv2d_workload(kQuickConv2dHeight, kQuickConv2dWidth,
                                              kDefaultMaskSide, kDefaultMaskSide));
  workloads.push_back(course::conv1d_workload(kQuickConv1dLength, kDefaultTaps));
  return workloads;
}

std::vector<course::Workload> parse_sizes(const std::string& spec, int mask_rows, int mask_cols,
                                          int taps) {
  const std::string flag = "--sizes";
  const std::size_t equals = spec.find('=');
  if (equals == std::string::npos)
    course::refuse_value(flag, spec, "expected PROBLEM=SIZE[,SIZE...], e.g. matmul=1024,4096");
  Problem problem = Problem::matmul;
  const std::string name = spec.substr(0, equals);
  if (!course::parse_problem(name, problem))
    course::refuse_value(flag, spec,
                         "unknown problem \"" + name + "\" (matmul, minplus, conv2d or conv1d)");
  const std::string list = spec.substr(equals + 1);
  if (list.empty())
    course::refuse_value(flag, spec, "expected at least one size after '='");

  std::vector<course::Workload> workloads;
  for (const std::string& size : course::split(list, ',')) {
    const std::vector<std::string> sides = course::split(size, 'x');
    std::vector<int> values;
    for (const std::string& side : sides)
      values.push_back(course::parse_count(flag, side));
    switch (problem) {
      case Problem::matmul:
      case Problem::minplus:
        if (values.size() == 1) {
          workloads.push_back(course::product_workload(problem, values[0], values[0], values[0]));
        } else if (values.size() == 3) {
          workloads.push_back(course::product_workload(problem, values[0], values[1], values[2]));
        } else {
          course::refuse_value(flag, spec, "a product size is N or MxNxK");
        }
        break;
      case Problem::conv2d:
        if (values.size() == 1) {
          workloads.push_back(course::conv2d_workload(values[0], values[0], mask_rows, mask_cols));
        } else if (values.size() == 2) {
          workloads.push_back(course::conv2d_workload(values[0], values[1], mask_rows, mask_cols));
        } else {
          course::refuse_value(flag, spec, "an image size is N or HxW");
        }
        break;
      case Problem::conv1d:
        if (values.size() != 1)
          course::refuse_value(flag, spec, "a signal size is one number");
        workloads.push_back(course::conv1d_workload(values[0], taps));
        break;
    }
  }
  return workloads;
}

}  // namespace ladder
