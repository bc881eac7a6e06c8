// Tie-breaks in an index output (top-k, argsort, argmax over rows): where a
// row holds equal values, two correct kernels may return their indices in
// either order, and KernelBench-Hard's top-k check accepts any order (it
// gathers the input at the returned indices). On the H200 an honest top-k
// was judged incorrect for two tied values' indices swapped.
#pragma once

#include "runner/process/tensor_file.h"

#include <cstddef>
#include <optional>

namespace kaudit::run {

// How many elements of `got` differ from `expected` (an integer output) if
// every difference is a reordering among positions of one row (the last
// dimension) where `expected_values` (a floating output of the same shape,
// the reference's) holds exactly equal values: within each such group of
// tied positions, `got` holds the same indices as `expected`, in another
// order. Only an index output: the reference's row names no value twice.
// std::nullopt when any difference is anything else, when a differing row
// of the reference's repeats a value, or when the shapes or dtypes do not fit.
std::optional<std::size_t> tie_reordered_elements(const TensorFile& got, const TensorFile& expected,
                                                  const TensorFile& expected_values);

}  // namespace kaudit::run
