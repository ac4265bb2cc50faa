#include "course/problems.hpp"

#include <iterator>

namespace course {

namespace {

// What the course says of each problem: its name on the command line and in reports, the unit of
// its rate and that unit's scale, and the word a kernel's readable name holds when it computes the
// problem (a product's semiring, a convolution's own name).
struct ProblemWords {
  Problem problem;
  const char* name;
  const char* rate_unit;
  double rate_scale;
  const char* kernel_word;
};
constexpr ProblemWords kProblemWords[] = {{Problem::matmul, "matmul", "TFLOP/s", 1e12, "PlusTimes"},
                                          {Problem::minplus, "minplus", "Tstep/s", 1e12, "MinPlus"},
                                          {Problem::conv2d, "conv2d", "Gpixel/s", 1e9, "conv2d"},
                                          {Problem::conv1d, "conv1d", "Gsample/s", 1e9, "conv1d"}};

// @p problem's row, or null for a value outside the enum.
const ProblemWords* words(Problem problem) {
  for (const ProblemWords& row : kProblemWords) {
    if (row.problem == problem)
      return &row;
  }
  return nullptr;
}

}  // namespace

const char* problem_name(Problem problem) {
  const ProblemWords* row = words(problem);
  return row != nullptr ? row->name : "unknown";
}

bool parse_problem(const std::string& name, Problem& problem) {
  for (Problem candidate : kAllProblems) {
    if (name == problem_name(candidate)) {
      problem = candidate;
      return true;
    }
  }
  return false;
}

std::vector<Problem> problems_of_kernel(const std::string& name) {
  std::vector<Problem> found;
  for (const ProblemWords& row : kProblemWords) {
    if (name.find(row.kernel_word) != std::string::npos)
      found.push_back(row.problem);
  }
  if (found.empty())
    found.assign(std::begin(kAllProblems), std::end(kAllProblems));
  return found;
}

bool Workload::operator==(const Workload& other) const {
  if (problem != other.problem)
    return false;
  switch (problem) {
    case Problem::matmul:
    case Problem::minplus:
      return m == other.m && n == other.n && k == other.k;
    case Problem::conv2d:
      return height == other.height && width == other.width && mask_rows == other.mask_rows &&
             mask_cols == other.mask_cols;
    case Problem::conv1d:
      return signal_length == other.signal_length && taps == other.taps;
  }
  return false;
}

Workload product_workload(Problem problem, int m, int n, int k) {
  Workload workload;
  workload.problem = problem;
  workload.m = m;
  workload.n = n;
  workload.k = k;
  return workload;
}

Workload conv2d_workload(int height, int width, int mask_rows, int mask_cols) {
  Workload workload;
  workload.problem = Problem::conv2d;
  workload.height = height;
  workload.width = width;
  workload.mask_rows = mask_rows;
  workload.mask_cols = mask_cols;
  return workload;
}

Workload conv1d_workload(int signal_length, int taps) {
  Workload workload;
  workload.problem = Problem::conv1d;
  workload.signal_length = signal_length;
  workload.taps = taps;
  return workload;
}

const char* rate_unit(Problem problem) {
  const ProblemWords* row = words(problem);
  return row != nullptr ? row->rate_unit : "";
}

double rate_scale(Problem problem) {
  const ProblemWords* row = words(problem);
  return row != nullptr ? row->rate_scale : 1e9;
}

double work_per_run(const Workload& w) {
  switch (w.problem) {
    case Problem::matmul:
      return 2.0 * w.m * w.n * w.k;
    case Problem::minplus:
      return 1.0 * w.m * w.n * w.k;
    case Problem::conv2d:
      return 1.0 * w.height * w.width;
    case Problem::conv1d:
      return 1.0 * w.signal_length + w.taps - 1;
  }
  return 0;
}

double flops_per_run(const Workload& w) {
  switch (w.problem) {
    case Problem::matmul:
    case Problem::minplus:
      return 2.0 * w.m * w.n * w.k;
    case Problem::conv2d:
      return 2.0 * w.height * w.width * w.mask_rows * w.mask_cols;
    case Problem::conv1d:
      return 2.0 * w.signal_length * w.taps;
  }
  return 0;
}

bool ProblemSet::offers(Problem problem) const {
  switch (problem) {
    case Problem::matmul:
      return static_cast<bool>(matmul);
    case Problem::minplus:
      return static_cast<bool>(minplus);
    case Problem::conv2d:
      return static_cast<bool>(conv2d);
    case Problem::conv1d:
      return static_cast<bool>(conv1d);
  }
  return false;
}

bool ProblemSet::empty() const {
  for (Problem problem : kAllProblems) {
    if (offers(problem))
      return false;
  }
  return true;
}

}  // namespace course
