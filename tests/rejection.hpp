// The messages that refusals carry, for tests that assert what they name: a size check's
// std::invalid_argument and the command line's UsageError.
#pragma once

#include "course/cli.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace course::testing {

/// The message of the @p Error (by default std::invalid_argument) that @p call throws; empty if it
/// throws none.
template <typename Error = std::invalid_argument, typename Call>
std::string rejection(Call call) {
  try {
    call();
  } catch (const Error& error) {
    return error.what();
  }
  return {};
}

/// parse_options() of a program given @p args.
inline Options parse_args(std::vector<std::string> args, const ChapterFlags& flags) {
  args.insert(args.begin(), "program");
  std::vector<const char*> argv;
  for (const auto& arg : args)
    argv.push_back(arg.c_str());
  return parse_options(static_cast<int>(argv.size()), argv.data(), flags);
}

/// The message of the UsageError that parsing @p args throws; empty when they parse.
inline std::string usage_refusal(std::vector<std::string> args, const ChapterFlags& flags) {
  return rejection<UsageError>([&] { parse_args(std::move(args), flags); });
}

}  // namespace course::testing
