/// @file usage_error.hpp
/// @brief The error of a bad command line, thrown by the value parsers (course/parse.hpp) and by
/// the command line of every executable (course/cli.hpp).
#pragma once

#include <stdexcept>

namespace course {

/// A command-line error: the message names the flag and the offending value.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace course
