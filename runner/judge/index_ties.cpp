#include "runner/judge/index_ties.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kaudit::run {

std::optional<std::size_t> tie_reordered_elements(const TensorFile& got, const TensorFile& expected,
                                                  const TensorFile& expected_values) {
  if (got.is_floating() || expected.is_floating() || !expected_values.is_floating() || got.dtype != expected.dtype ||
      got.shape != expected.shape || expected_values.shape != expected.shape)
    return std::nullopt;
  const std::size_t n = expected.numel();
  const std::size_t row = expected.shape.empty() ? 1 : static_cast<std::size_t>(expected.shape.back());
  if (n == 0 || row == 0) return std::nullopt;
  std::size_t reordered = 0;
  std::vector<std::size_t> order;
  for (std::size_t start = 0; start < n; start += row) {
    bool differs = false;
    for (std::size_t i = start; i < start + row && !differs; ++i) differs = got.at(i) != expected.at(i);
    if (!differs) continue;
    // An index output names each element of a row once (top-k's, argsort's):
    // an integer output that repeats a value in a row (expert ids beside
    // equal weights, codes beside equal values) is no index, and its order
    // among ties is part of the answer.
    std::vector<double> named;
    for (std::size_t i = start; i < start + row; ++i) named.push_back(expected.at(i));
    std::sort(named.begin(), named.end());
    if (std::adjacent_find(named.begin(), named.end()) != named.end()) return std::nullopt;
    // The row's positions grouped by the reference's value: each group of
    // differing positions must be tied, and hold the same indices.
    order.resize(row);
    for (std::size_t k = 0; k < row; ++k) order[k] = start + k;
    // NaN last, each its own group (NaN equals nothing).
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double x = expected_values.at(a), y = expected_values.at(b);
      return !std::isnan(x) && (std::isnan(y) || x < y);
    });
    for (std::size_t g = 0; g < row;) {
      std::size_t end = g + 1;
      const double v = expected_values.at(order[g]);
      while (end < row && expected_values.at(order[end]) == v) ++end;
      std::vector<double> want, have;
      for (std::size_t k = g; k < end; ++k) {
        want.push_back(expected.at(order[k]));
        have.push_back(got.at(order[k]));
        reordered += got.at(order[k]) != expected.at(order[k]);
      }
      if (want != have) {
        if (end - g < 2) return std::nullopt;  // a value tied with none (or NaN): its index differs
        std::sort(want.begin(), want.end());
        std::sort(have.begin(), have.end());
        if (want != have) return std::nullopt;
      }
      g = end;
    }
  }
  return reordered;
}

}  // namespace kaudit::run
