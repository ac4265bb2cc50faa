#include "course/parse.hpp"

#include <charconv>
#include <climits>
#include <cmath>

namespace course {
namespace {

// The largest E of a count written 2^E: 2^30 is the largest power of two an int holds.
constexpr int kLargestExponent = 30;

// Whether the whole of `text` reads as a base-10 number; the number goes into `value`.
template <typename Number>
bool read_number(const std::string& text, Number& value) {
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(text.data(), last, value);
  return !text.empty() && error == std::errc() && end == last;
}

}  // namespace

void refuse_value(const std::string& flag, const std::string& value, const std::string& why) {
  throw UsageError(flag + ": " + why + ", got \"" + value + "\"");
}

long long parse_whole_number(const std::string& flag, const std::string& text, long long low,
                             long long high) {
  long long value = 0;
  if (!read_number(text, value) || value < low || value > high) {
    refuse_value(
        flag, text,
        "expected a whole number from " + std::to_string(low) + " to " + std::to_string(high));
  }
  return value;
}

double parse_positive_number(const std::string& flag, const std::string& text) {
  double value = 0;
  if (!read_number(text, value) || !std::isfinite(value) || value <= 0)
    refuse_value(flag, text, "expected a positive number");
  return value;
}

int parse_count(const std::string& flag, const std::string& text) {
  const std::string expected = "expected a whole number from 1 to " + std::to_string(INT_MAX) +
                               ", or 2^E with E from 0 to " + std::to_string(kLargestExponent);
  long long value = 0;
  if (text.rfind("2^", 0) == 0) {
    int exponent = 0;
    if (!read_number(text.substr(2), exponent) || exponent < 0 || exponent > kLargestExponent)
      refuse_value(flag, text, expected);
    return 1 << exponent;
  }
  if (!read_number(text, value) || value < 1 || value > INT_MAX)
    refuse_value(flag, text, expected);
  return static_cast<int>(value);
}

MaskSides parse_mask_sides(const std::string& flag, const std::string& text) {
  const std::vector<std::string> sides = split(text, 'x');
  int values[2] = {0, 0};
  bool valid = sides.size() == 1 || sides.size() == 2;
  for (std::size_t i = 0; valid && i < sides.size(); ++i)
    valid = read_number(sides[i], values[i]) && values[i] >= 1 && values[i] <= kMaxMaskSide &&
            values[i] % 2 == 1;
  if (!valid) {
    refuse_value(
        flag, text,
        "expected an odd size K or KxL with sides from 1 to " + std::to_string(kMaxMaskSide));
  }
  return {values[0], sides.size() == 2 ? values[1] : values[0]};
}

std::vector<Problem> parse_problems(const std::string& flag, const std::string& text) {
  std::vector<Problem> problems;
  if (text == "all")
    return problems;
  for (const std::string& name : split(text, ',')) {
    Problem problem = Problem::matmul;
    if (!parse_problem(name, problem)) {
      refuse_value(flag, text,
                   "expected all or a comma-separated list of matmul, minplus, conv2d, conv1d");
    }
    problems.push_back(problem);
  }
  return problems;
}

std::uint64_t parse_seed(const std::string& flag, const std::string& text) {
  std::uint64_t seed = 0;
  if (!read_number(text, seed))
    refuse_value(flag, text, "expected a whole number from 0 to " + std::to_string(UINT64_MAX));
  return seed;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == separator) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

}  // namespace course
