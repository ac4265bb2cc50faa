// Reading back the CSV lines that the course writes (course::csv_line(), the ladder's CSV), for
// the tests that check them field by field.
#pragma once

#include <string>
#include <vector>

namespace course::testing {

/// Splits one CSV line into fields, undoing the quoting of course::csv_field().
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && line.compare(i + 1, 1, "\"") == 0) {
      fields.back() += c;  // a doubled quote inside quotes is one quote
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

/// The field of @p line under column @p name of @p header ("<missing>" when the line is short,
/// "<no column NAME>" when the header lacks it).
inline std::string field(const std::string& header, const std::string& line,
                         const std::string& name) {
  const std::vector<std::string> names = split_csv(header);
  const std::vector<std::string> values = split_csv(line);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name)
      return i < values.size() ? values[i] : std::string("<missing>");
  }
  return "<no column " + name + ">";
}

}  // namespace course::testing
