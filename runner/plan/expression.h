// A small, safe arithmetic evaluator for problem.yaml's flops_formula and
// bytes_formula ("2 * M * N * K"). Never Python's eval: a formula is data.
//
// Grammar: numbers, names bound in `vars`, + - * / // % **, unary + and -,
// parentheses, and the functions min, max, ceil, floor, abs, sqrt, log2,
// cdiv(a, b). `**` binds tighter than unary minus and is right-associative,
// as in Python. Anything else is an error naming the offending position.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace kaudit::run {

// Throws std::invalid_argument with the reason on a syntax error, an unknown
// name or function, division by zero, or an expression over 1000 characters.
double evaluate_expression(std::string_view expression, const std::map<std::string, double>& vars);

}  // namespace kaudit::run
