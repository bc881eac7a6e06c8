// How close a submission's output must be to the reference's, per output
// dtype, as the problem states it (docs/runner.md, "Tolerance"). Read in every
// form the upstream benchmarks write; any other form is an error, never a
// silent default.
#pragma once

#include "rules/problem.h"
#include "runner/process/tensor_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kaudit::run {

struct ToleranceTable {
  std::optional<Tolerance> all;              // one tolerance for every dtype
  std::map<std::string, Tolerance> by_dtype;  // "bfloat16" -> ..., the problem's per-dtype overrides
  bool non_finite_expected_excused = false;    // given to every Tolerance it hands out

  // The tolerance for outputs of `dtype` (torch's name without "torch."):
  // `all`, else the override, else KernelBench-Hard's default for the dtype
  // (float32 1e-4, float16 and bfloat16 1e-2, float8 1e-1, integers and bool
  // exact, anything else 1e-4).
  Tolerance for_dtype(std::string_view dtype) const;
  // run.json's settings.tolerance: {atol, rtol} for one tolerance, else
  // {by_dtype: {dtype: {atol, rtol}}, defaults: "kernelbench-hard"}.
  nlohmann::json to_json() const;
};

// The problem's tolerance. KernelBench (single-file) problems: 1e-2 for
// both. KernelBench-Hard problem.yaml `tolerance:` may be absent (the
// defaults per dtype), a number or numeric string (both atol and rtol),
// {atol, rtol} (kaudit's form, every dtype), or a map from dtype ("bfloat16"
// or "torch.bfloat16") to a number, numeric string or {atol, rtol}. Throws
// std::runtime_error naming the problem file for anything else.
ToleranceTable tolerance_of(const rules::Problem& problem);

// How many elements of an output may be rounding near misses (outside the
// tolerance, within twice it) in any check: `fraction` of them
// (thresholds.near_miss_fraction), or `elements` (thresholds.near_miss_elements)
// where that is more, as long as it is at most one in a thousand: one
// element of a mid-sized output is a rounding edge, in a small one it is a
// real share of the answer.
struct NearMissAllowance {
  double fraction = 0;
  std::uint64_t elements = 0;
  std::uint64_t allowed(std::uint64_t n) const {
    const auto by_share = static_cast<std::uint64_t>(fraction * static_cast<double>(n));
    return std::max(by_share, std::min<std::uint64_t>(elements, n / 1000));
  }
};

}  // namespace kaudit::run
