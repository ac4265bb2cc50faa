/// @file json.hpp
/// @brief A small JSON writer for what the executables print as data: a chapter's description
/// (`--describe`) and one object per run (`--json`). docs/pages/tools.md documents both.
#pragma once

#include <string>
#include <vector>

namespace course {

/// Writes one JSON value on one line, object by object: `begin_object()`, then `key()` and a
/// value for each member, then `end_object()`. Commas are placed by the writer; strings are
/// escaped. A number that is not finite is written as null (JSON has no NaN or infinity).
class JsonWriter {
 public:
  JsonWriter& begin_object();                  ///< `{`
  JsonWriter& end_object();                    ///< `}`
  JsonWriter& begin_array();                   ///< `[`
  JsonWriter& end_array();                     ///< `]`
  JsonWriter& key(const std::string& name);    ///< the name of the next member of an object
  JsonWriter& value(const std::string& text);  ///< a string
  JsonWriter& value(const char* text);         ///< a string
  JsonWriter& value(double number);            ///< a number (null when not finite)
  JsonWriter& value(int number);               ///< a whole number
  JsonWriter& value(long long number);         ///< a whole number
  JsonWriter& value(bool truth);               ///< true or false
  JsonWriter& null();                          ///< null
  /// An array of strings.
  JsonWriter& strings(const std::vector<std::string>& texts);
  /// An array of whole numbers.
  JsonWriter& numbers(const std::vector<int>& values);
  /// `"name": value` in one call.
  template <typename Value>
  JsonWriter& member(const std::string& name, const Value& v) {
    key(name);
    return value(v);
  }
  /// What has been written.
  const std::string& text() const { return out_; }

 private:
  void separate();
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  std::string out_;
  bool need_comma_ = false;
};

/// @p text as a JSON string literal, quotes included.
std::string json_string(const std::string& text);

}  // namespace course
