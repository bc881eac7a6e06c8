#include "runner/plan/expression.h"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace kaudit::run {
namespace {

class Parser {
 public:
  Parser(std::string_view s, const std::map<std::string, double>& vars) : s_(s), vars_(vars) {}

  double parse() {
    const double v = sum();
    skip();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument("formula \"" + std::string(s_) + "\": " + why + " at position " +
                                std::to_string(pos_ + 1));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(pos_, tok.size()) == tok) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }
  bool peek(std::string_view tok) {
    skip();
    return s_.substr(pos_, tok.size()) == tok;
  }

  double sum() {
    double v = product();
    for (;;) {
      if (eat("+")) v += product();
      else if (eat("-")) v -= product();
      else return v;
    }
  }
  double product() {
    double v = unary();
    for (;;) {
      if (peek("**")) return v;
      if (eat("//")) {
        const double d = unary();
        if (d == 0) fail("division by zero");
        v = std::floor(v / d);
      } else if (eat("*")) {
        v *= unary();
      } else if (eat("/")) {
        const double d = unary();
        if (d == 0) fail("division by zero");
        v /= d;
      } else if (eat("%")) {
        const double d = unary();
        if (d == 0) fail("division by zero");
        v = v - d * std::floor(v / d);  // Python's sign rule
      } else {
        return v;
      }
    }
  }
  double unary() {
    if (++depth_ > 200) fail("nesting too deep");
    double v;
    if (eat("-")) v = -unary();
    else if (eat("+")) v = unary();
    else v = power();
    --depth_;
    return v;
  }
  double power() {
    const double base = atom();
    if (eat("**")) return std::pow(base, unary());
    return base;
  }
  double atom() {
    skip();
    if (pos_ >= s_.size()) fail("unexpected end");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const double v = sum();
      if (!eat(")")) fail("missing ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string name(s_.substr(start, pos_ - start));
      if (eat("(")) return call(name);
      const auto it = vars_.find(name);
      if (it == vars_.end()) {
        pos_ = start;
        fail("unknown name '" + name + "'");
      }
      return it->second;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  double number() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                s_[pos_] == '_'))
      ++pos_;
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    std::string text;
    for (char ch : s_.substr(start, pos_ - start))
      if (ch != '_') text += ch;
    try {
      std::size_t used = 0;
      const double v = std::stod(text, &used);
      if (used != text.size()) fail("bad number");
      return v;
    } catch (const std::logic_error&) {
      fail("bad number");
    }
  }
  double call(const std::string& name) {
    std::vector<double> args;
    if (!eat(")")) {
      do args.push_back(sum());
      while (eat(","));
      if (!eat(")")) fail("missing ')'");
    }
    auto want = [&](std::size_t n) {
      if (args.size() != n) fail(name + " takes " + std::to_string(n) + " argument(s)");
    };
    if (name == "min" || name == "max") {
      if (args.empty()) fail(name + " needs arguments");
      double v = args[0];
      for (double a : args) v = name == "min" ? std::min(v, a) : std::max(v, a);
      return v;
    }
    if (name == "ceil") return want(1), std::ceil(args[0]);
    if (name == "floor") return want(1), std::floor(args[0]);
    if (name == "abs") return want(1), std::fabs(args[0]);
    if (name == "sqrt") return want(1), std::sqrt(args[0]);
    if (name == "log2") return want(1), std::log2(args[0]);
    if (name == "cdiv") {
      want(2);
      if (args[1] == 0) fail("division by zero");
      return std::ceil(args[0] / args[1]);
    }
    fail("unknown function '" + name + "'");
  }

  std::string_view s_;
  const std::map<std::string, double>& vars_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

double evaluate_expression(std::string_view expression, const std::map<std::string, double>& vars) {
  if (expression.size() > 1000) throw std::invalid_argument("formula longer than 1000 characters");
  return Parser(expression, vars).parse();
}

}  // namespace kaudit::run
