// One journal line written by hand: the tracer encodes a record for every
// kernel, copy and launch, and building an nlohmann::json object for each
// costs more than the rest of the tracer's work on it. Rare records (process,
// launcher, notes) still use nlohmann::json.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace kaudit::tracer::inject {

// Appends `s` as a JSON string: quotes, backslashes and control characters
// escaped; bytes that are not valid UTF-8 become U+FFFD, so that a hostile
// name never makes the line unreadable.
void append_json_string(std::string& out, std::string_view s);

class JsonLine {
 public:
  JsonLine(std::string& out, std::string_view type) : out_(out) {
    out_ += "{\"type\":";
    append_json_string(out_, type);
  }
  JsonLine(const JsonLine&) = delete;
  JsonLine& operator=(const JsonLine&) = delete;
  ~JsonLine() { out_ += "}\n"; }

  template <typename Int>
  JsonLine& num(std::string_view key, Int value) {
    open(key);
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, r.ptr);
    return *this;
  }
  JsonLine& str(std::string_view key, std::string_view value) {
    open(key);
    append_json_string(out_, value);
    return *this;
  }
  // `json` must already be valid JSON (an escaped string from a cache).
  JsonLine& raw(std::string_view key, std::string_view json) {
    open(key);
    out_ += json;
    return *this;
  }
  JsonLine& boolean(std::string_view key, bool value) {
    open(key);
    out_ += value ? "true" : "false";
    return *this;
  }
  template <typename Int>
  JsonLine& triple(std::string_view key, Int a, Int b, Int c) {
    open(key);
    out_ += '[';
    num_only(a);
    out_ += ',';
    num_only(b);
    out_ += ',';
    num_only(c);
    out_ += ']';
    return *this;
  }

 private:
  void open(std::string_view key) {
    out_ += ",\"";
    out_ += key;  // keys are this file's literals
    out_ += "\":";
  }
  template <typename Int>
  void num_only(Int value) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, r.ptr);
  }
  std::string& out_;
};

}  // namespace kaudit::tracer::inject
