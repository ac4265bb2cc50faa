// The message a size check refuses with, for tests that assert what the message names.
#pragma once

#include <stdexcept>
#include <string>

namespace course::testing {

/// The message of the std::invalid_argument that @p call throws; empty if it throws none.
template <typename Call>
std::string rejection(Call call) {
  try {
    call();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return {};
}

}  // namespace course::testing
