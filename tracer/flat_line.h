// A journal line of flat fields, read without building a JSON document.
// Launch and kernel lines are nearly all of a journal (over a million for a
// submission that launches PyTorch ops), and a document per line, with its
// map of keys, cost most of the loading time. FlatLine reads a line into a
// list of top-level fields whose values are scalars or arrays of numbers; a
// line with anything else (a nested object, an array of strings) is left to
// the document reader.
//
// Lines as the tracer writes them (no spaces, printable ASCII strings without
// escapes, whole numbers, arrays of whole numbers) are read by a plain scan
// that keeps views into the line and allocates nothing; any other line (an
// escape, a fraction, a space, a byte that is not ASCII, anything invalid) is
// read through nlohmann's SAX parser, which stays the judge of what JSON is.
// The scan accepts only lines the SAX parser reads alike (TraceModel tests).
//
// The getters follow tracer/trace.cpp's get() on documents: a missing or
// null field gives the fallback, and so does a field of the wrong type (a
// boolean is not a number); a number converts to any arithmetic type. When a key appears twice, the last
// value counts, as in a document.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <deque>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace kaudit::tracer {

// Whether `d` converts to the arithmetic type T without undefined behaviour:
// not NaN, and within T's range once truncated (a journal line may hold 1e300
// where a 32-bit count belongs). Both journal readers fall back where not.
template <typename T>
bool fits_in(double d) {
  if constexpr (std::is_floating_point_v<T>) {
    return true;
  } else {
    return d > static_cast<double>(std::numeric_limits<T>::min()) - 1.0 &&
           d < static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
  }
}

class FlatLine {
 public:
  // False when the line is not valid JSON, or not an object of flat fields
  // (then parse it as a document; an invalid line fails there too). The
  // fields view `line`, which must outlive them.
  bool parse(std::string_view line) {
    reset();
    if (const auto plain = scan_plain(line)) return *plain && !fields_.empty();
    return parse_with_sax(line);
  }

  // parse() without the plain scan (the fallback, and the tests' yardstick).
  bool parse_with_sax(std::string_view line) {
    reset();
    const bool ok = nlohmann::json::sax_parse(line.begin(), line.end(), this);
    return ok && flat_ && !fields_.empty();
  }

  template <typename T>
  T get(std::string_view key, T fallback = T{}) const {
    const Field* f = find(key);
    if (f == nullptr) return fallback;
    if constexpr (std::is_same_v<T, std::string>) {
      return f->kind == Kind::string ? std::string(f->text) : fallback;
    } else if constexpr (std::is_same_v<T, bool>) {
      return f->kind == Kind::boolean ? f->number.u != 0 : fallback;
    } else {
      static_assert(std::is_arithmetic_v<T>);
      return f->kind == Kind::number && f->number.fits<T>() ? f->number.as<T>() : fallback;
    }
  }

  // An array of three numbers, as ints; {1, 1, 1} when the field is missing
  // or not an array of three.
  std::array<int, 3> dim3(std::string_view key) const {
    std::array<int, 3> d{1, 1, 1};
    const Field* f = find(key);
    if (f == nullptr || f->kind != Kind::numbers || f->count != 3) return d;
    for (size_t i = 0; i < 3; ++i)
      if (!numbers_[f->first + i].fits<int>()) return d;
    for (size_t i = 0; i < 3; ++i) d[i] = numbers_[f->first + i].as<int>();
    return d;
  }

  // nlohmann's SAX interface (called by sax_parse).
  using number_integer_t = nlohmann::json::number_integer_t;
  using number_unsigned_t = nlohmann::json::number_unsigned_t;
  using number_float_t = nlohmann::json::number_float_t;
  using string_t = nlohmann::json::string_t;
  using binary_t = nlohmann::json::binary_t;
  bool null() { return scalar(Kind::null, {}); }
  bool boolean(bool v) { return scalar(Kind::boolean, Number::of_unsigned(v ? 1 : 0)); }
  bool number_integer(number_integer_t v) { return scalar(Kind::number, Number::of_signed(v)); }
  bool number_unsigned(number_unsigned_t v) { return scalar(Kind::number, Number::of_unsigned(v)); }
  bool number_float(number_float_t v, const string_t&) { return scalar(Kind::number, Number::of_float(v)); }
  bool string(string_t& v) {
    if (depth_ != 1 || in_array_) return nested();
    fields_.push_back({key_, Kind::string, {}, owned_.emplace_back(std::move(v)), 0, 0});
    return true;
  }
  bool binary(binary_t&) { return nested(); }
  bool start_object(std::size_t) { return depth_++ == 0 || nested(); }
  bool end_object() {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) {
    if (depth_ != 1 || in_array_) return nested();
    in_array_ = true;
    fields_.push_back({key_, Kind::numbers, {}, {}, numbers_.size(), 0});
    return true;
  }
  bool end_array() {
    in_array_ = false;
    return true;
  }
  bool key(string_t& k) {
    key_ = owned_.emplace_back(std::move(k));
    return true;
  }
  template <typename Exception>
  bool parse_error(std::size_t, const std::string&, const Exception&) {
    return false;
  }

 private:
  enum class Kind : uint8_t { null, boolean, number, string, numbers };
  struct Number {
    enum class Repr : uint8_t { signed_, unsigned_, floating } repr = Repr::unsigned_;
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    static Number of_signed(int64_t v) { return {Repr::signed_, v, 0, 0}; }
    static Number of_unsigned(uint64_t v) { return {Repr::unsigned_, 0, v, 0}; }
    static Number of_float(double v) { return {Repr::floating, 0, 0, v}; }
    template <typename T>
    bool fits() const {
      return repr != Repr::floating || fits_in<T>(d);
    }
    template <typename T>
    T as() const {
      switch (repr) {
        case Repr::signed_: return static_cast<T>(i);
        case Repr::unsigned_: return static_cast<T>(u);
        case Repr::floating: return static_cast<T>(d);
      }
      return T{};
    }
  };
  struct Field {
    std::string_view key;
    Kind kind;
    Number number;
    std::string_view text;
    std::size_t first, count;  // Kind::numbers: numbers_[first, first + count)
  };

  const Field* find(std::string_view key) const {
    for (auto it = fields_.rbegin(); it != fields_.rend(); ++it)
      if (it->key == key) return it->kind == Kind::null ? nullptr : &*it;
    return nullptr;
  }
  bool scalar(Kind kind, Number n) {
    if (depth_ != 1) return nested();
    if (in_array_) {
      if (kind != Kind::number) return nested();
      numbers_.push_back(n);
      ++fields_.back().count;
      return true;
    }
    fields_.push_back({key_, kind, n, {}, 0, 0});
    return true;
  }
  bool nested() {
    flat_ = false;
    return false;  // stops the parse: the document reader takes the line
  }

  void reset() {
    fields_.clear();
    numbers_.clear();
    owned_.clear();
    depth_ = 0;
    in_array_ = false;
    flat_ = true;
  }

  // The plain scan: true or false as parse() answers, nullopt where the line
  // is not plain (the SAX parser reads it). One object of members, no space
  // anywhere, nothing after the closing brace.
  std::optional<bool> scan_plain(std::string_view line) {
    std::size_t at = 0;
    auto next_is = [&](char c) { return at < line.size() && line[at] == c; };
    if (!next_is('{')) return std::nullopt;
    ++at;
    if (next_is('}')) return at + 1 == line.size() ? std::optional<bool>(true) : std::nullopt;
    while (true) {
      std::string_view key;
      if (!plain_string(line, at, key) || !next_is(':')) return std::nullopt;
      ++at;
      if (!plain_value(line, at, key)) return std::nullopt;
      if (next_is(',')) {
        ++at;
        continue;
      }
      if (next_is('}') && at + 1 == line.size()) return true;
      return std::nullopt;
    }
  }

  // A string of printable ASCII without escapes, from the opening quote at
  // `at`; `at` ends past the closing quote.
  static bool plain_string(std::string_view line, std::size_t& at, std::string_view& out) {
    if (at >= line.size() || line[at] != '"') return false;
    const std::size_t begin = ++at;
    for (; at < line.size(); ++at) {
      const char c = line[at];
      if (c == '"') {
        out = line.substr(begin, at - begin);
        ++at;
        return true;
      }
      if (c == '\\' || c < 0x20 || c > 0x7e) return false;
    }
    return false;
  }

  // A whole number as JSON writes it (no leading zeros, no fraction or
  // exponent), within the 64-bit range nlohmann keeps as an integer.
  static bool plain_number(std::string_view line, std::size_t& at, Number& out) {
    const bool negative = at < line.size() && line[at] == '-';
    if (negative) ++at;
    const std::size_t begin = at;
    uint64_t v = 0;
    for (; at < line.size() && line[at] >= '0' && line[at] <= '9'; ++at)
      if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, static_cast<unsigned>(line[at] - '0'), &v))
        return false;
    if (at == begin || (line[begin] == '0' && at - begin > 1)) return false;
    if (at < line.size() && (line[at] == '.' || line[at] == 'e' || line[at] == 'E')) return false;
    if (!negative) {
      out = Number::of_unsigned(v);
    } else {
      if (v > uint64_t{1} << 63) return false;
      out = Number::of_signed(v == uint64_t{1} << 63 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v));
    }
    return true;
  }

  bool plain_value(std::string_view line, std::size_t& at, std::string_view key) {
    if (at >= line.size()) return false;
    const char c = line[at];
    if (c == '"') {
      std::string_view text;
      if (!plain_string(line, at, text)) return false;
      fields_.push_back({key, Kind::string, {}, text, 0, 0});
      return true;
    }
    if (c == '[') {
      fields_.push_back({key, Kind::numbers, {}, {}, numbers_.size(), 0});
      ++at;
      if (at < line.size() && line[at] == ']') {
        ++at;
        return true;
      }
      while (true) {
        Number n;
        if (!plain_number(line, at, n)) return false;
        numbers_.push_back(n);
        ++fields_.back().count;
        if (at < line.size() && line[at] == ',') {
          ++at;
          continue;
        }
        if (at >= line.size() || line[at] != ']') return false;
        ++at;
        return true;
      }
    }
    for (const auto& [word, kind, value] : {std::tuple{std::string_view("true"), Kind::boolean, 1},
                                            std::tuple{std::string_view("false"), Kind::boolean, 0},
                                            std::tuple{std::string_view("null"), Kind::null, 0}})
      if (line.substr(at, word.size()) == word) {
        at += word.size();
        fields_.push_back({key, kind, Number::of_unsigned(static_cast<uint64_t>(value)), {}, 0, 0});
        return true;
      }
    Number n;
    if (!plain_number(line, at, n)) return false;
    fields_.push_back({key, Kind::number, n, {}, 0, 0});
    return true;
  }

  std::vector<Field> fields_;
  std::vector<Number> numbers_;
  std::deque<std::string> owned_;  // the SAX parser's keys and strings, which the fields view
  std::string_view key_;
  int depth_ = 0;
  bool in_array_ = false;
  bool flat_ = true;
};

}  // namespace kaudit::tracer
