#include "course/problems.hpp"

namespace course {

const char* problem_name(Problem problem) {
  switch (problem) {
    case Problem::matmul:
      return "matmul";
    case Problem::minplus:
      return "minplus";
    case Problem::conv2d:
      return "conv2d";
    case Problem::conv1d:
      return "conv1d";
  }
  return "unknown";
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

bool ProblemSet::offers(Problem problem) const {
  switch (problem) {
    case Problem::matmul:
      return matmul != nullptr;
    case Problem::minplus:
      return minplus != nullptr;
    case Problem::conv2d:
      return conv2d != nullptr;
    case Problem::conv1d:
      return conv1d != nullptr;
  }
  return false;
}

}  // namespace course
