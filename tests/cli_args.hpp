// The shared command line as the CPU tests call it: a list of arguments and a chapter's flags.
#pragma once

#include "course/cli.hpp"

#include <string>
#include <utility>
#include <vector>

namespace course::testing {

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
  try {
    parse_args(std::move(args), flags);
  } catch (const UsageError& error) {
    return error.what();
  }
  return {};
}

}  // namespace course::testing
