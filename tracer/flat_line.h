// A journal line of flat fields, read without building a JSON document.
// Launch and kernel lines are nearly all of a journal (over a million for a
// submission that launches PyTorch ops), and a document per line, with its
// map of keys, cost most of the loading time. FlatLine reads a line through
// nlohmann's SAX parser into a list of top-level fields whose values are
// scalars or arrays of numbers; a line with anything else (a nested object,
// an array of strings) is left to the document reader.
//
// The getters follow tracer/trace.cpp's get() on documents: a missing or
// null field gives the fallback, and so does a field of the wrong type (a
// boolean is not a number); a number converts to any arithmetic type. When a key appears twice, the last
// value counts, as in a document.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
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
  // (then parse it as a document; an invalid line fails there too).
  bool parse(std::string_view line) {
    fields_.clear();
    depth_ = 0;
    in_array_ = false;
    flat_ = true;
    const bool ok = nlohmann::json::sax_parse(line.begin(), line.end(), this);
    return ok && flat_ && !fields_.empty();
  }

  template <typename T>
  T get(std::string_view key, T fallback = T{}) const {
    const Field* f = find(key);
    if (f == nullptr) return fallback;
    if constexpr (std::is_same_v<T, std::string>) {
      return f->kind == Kind::string ? f->text : fallback;
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
    if (f == nullptr || f->kind != Kind::numbers || f->numbers.size() != 3) return d;
    for (const Number& n : f->numbers)
      if (!n.fits<int>()) return d;
    for (size_t i = 0; i < 3; ++i) d[i] = f->numbers[i].as<int>();
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
    fields_.push_back({std::move(key_), Kind::string, {}, std::move(v), {}});
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
    fields_.push_back({std::move(key_), Kind::numbers, {}, {}, {}});
    return true;
  }
  bool end_array() {
    in_array_ = false;
    return true;
  }
  bool key(string_t& k) {
    key_ = std::move(k);
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
    std::string key;
    Kind kind;
    Number number;
    std::string text;
    std::vector<Number> numbers;
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
      fields_.back().numbers.push_back(n);
      return true;
    }
    fields_.push_back({std::move(key_), kind, n, {}, {}});
    return true;
  }
  bool nested() {
    flat_ = false;
    return false;  // stops the parse: the document reader takes the line
  }

  std::vector<Field> fields_;
  std::string key_;
  int depth_ = 0;
  bool in_array_ = false;
  bool flat_ = true;
};

}  // namespace kaudit::tracer
