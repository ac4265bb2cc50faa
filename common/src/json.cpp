#include "course/json.hpp"

#include <cmath>
#include <cstdio>

namespace course {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::separate() {
  if (need_comma_)
    out_ += ",";
  need_comma_ = true;
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  need_comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  out_ += bracket;
  need_comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  return open('{');
}

JsonWriter& JsonWriter::end_object() {
  return close('}');
}

JsonWriter& JsonWriter::begin_array() {
  return open('[');
}

JsonWriter& JsonWriter::end_array() {
  return close(']');
}

JsonWriter& JsonWriter::key(const std::string& name) {
  separate();
  out_ += json_string(name) + ":";
  need_comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& text) {
  separate();
  out_ += json_string(text);
  return *this;
}

JsonWriter& JsonWriter::value(const char* text) {
  return value(std::string(text));
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number))
    return null();
  separate();
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.6g", number);
  out_ += digits;
  return *this;
}

JsonWriter& JsonWriter::value(int number) {
  separate();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(long long number) {
  separate();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool truth) {
  separate();
  out_ += truth ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::strings(const std::vector<std::string>& texts) {
  begin_array();
  for (const std::string& text : texts)
    value(text);
  return end_array();
}

JsonWriter& JsonWriter::numbers(const std::vector<int>& values) {
  begin_array();
  for (int v : values)
    value(v);
  return end_array();
}

}  // namespace course
