// Rule packs: the data that says what is banned and allowed for a problem
// (DESIGN.md section 3, "rules"). A pack is JSON (schema in docs/rules.md);
// a KernelBench-Hard problem's own `forbidden:` list is merged into it.
#pragma once

#include "rules/finding.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <string>
#include <vector>

namespace kaudit::rules {

// Numbers the runner and the probes read (a pack's `thresholds`; docs/rules.md).
// The defaults below are the only place a default value is written: a pack
// states only the thresholds it changes (rules/packs/default.json states
// none), and the code reads every threshold from the pack it runs under.
struct Thresholds {
  double fresh_over_bench = 1.5;        // speedup-vanishes-with-fresh-inputs on a GPU
  double fresh_over_bench_cpu = 5.0;    // the same on the CPU, whose wall-clock times are noisy
  // What fresh inputs add to a call (ms, by the medians)
  // before speedup-vanishes-with-fresh-inputs decides: below it the ratio
  // can be launch and allocation costs, and the finding is only a lead.
  double fresh_gap_ms = 0.5;
  double stress_mismatch_fraction = 0.001;  // elements a numeric-stress case may get wrong
  double near_miss_fraction = 1e-6;  // elements any check may get just wrong (within twice the tolerance)
  // ... or this many where that is more, up to one in a thousand (runner/plan/tolerance.h)
  std::uint64_t near_miss_elements = 4;
  // The least share of the graded timed calls' GPU time, library glue left
  // out, that the submission's own kernels must run (library-does-the-work).
  double min_own_kernel_share = 0.5;
  // Shares under min_own_kernel_share by less than this are a low-confidence
  // lead (library-does-the-work never decides there).
  double own_share_lead_margin = 0.15;
  // Per bench call, an unbanned library kernel the problem's own reference
  // also runs (its glue: routing, index maps) may take this many times what
  // the reference spends per call on kernels of that name before it counts
  // against the share.
  double reference_glue_allowance = 1.5;
  bool fp8_dot_required = false;               // recorded; not read yet

  bool operator==(const Thresholds&) const = default;
};

// How evidence of each source counts; a pack's `verdict` section
// (docs/rules.md). Runtime and probe evidence outrank static evidence.
struct VerdictPolicy {
  // Static ids whose mere presence is the offence (harness tampering...):
  // they decide alone at or above static_min_confidence.
  std::set<std::string> static_decides;
  // Static id -> runtime ids that confirm it; a confirmed static finding is
  // listed among the deciding ones beside its confirmation.
  std::map<std::string, std::vector<std::string>> confirmed_by;
  // Static ids of category cheat or benchmark-aware that never decide: leads
  // for a person (or for a runtime measurement that reports its own id).
  std::set<std::string> static_leads;
  Confidence static_min_confidence = Confidence::high;
  Confidence runtime_min_confidence = Confidence::medium;
};

struct RulePack {
  std::string name;
  // Fully qualified Python callables, after alias resolution:
  // "torch.matmul", "torch.nn.functional.linear", "torch.ops.aten.mm".
  std::vector<std::string> banned_python_ops;
  // Tensor methods banned whatever the receiver: "matmul", "topk", "sort".
  std::vector<std::string> banned_tensor_methods;
  // Whether the `@` and `@=` operators count as a banned matmul.
  bool matmul_operator_banned = false;
  // ECMAScript regular expressions matched against fully qualified C++
  // callee names after macro expansion: "^cublas", "^at::matmul$".
  std::vector<std::string> banned_cxx_symbols;
  // Regular expressions on kernel names and library file names (tracer).
  std::vector<std::string> banned_kernel_patterns;
  std::vector<std::string> banned_libraries;
  std::vector<std::string> allowed_glue_kernels;
  // The problem's `forbidden:` entries as written, for messages.
  std::vector<std::string> problem_forbidden;
  // Ops banned because the reference's forward computes with them, for a
  // problem that names none (the analyzer derives them: analyzer/reference_ops.h).
  // Not read from JSON; a call of one is a lead (medium), not a verdict.
  std::vector<std::string> reference_ops;
  Thresholds thresholds;
  // The pack's `verdict` section, or the default pack's when it has none.
  VerdictPolicy verdict;
};

// The pack compiled into kaudit (rules/packs/default.json).
RulePack default_rule_pack();
// A pack compiled into kaudit by name (every rules/packs/<name>.json), or
// nothing when there is none of that name.
std::optional<RulePack> builtin_rule_pack(std::string_view name);
// Throws std::runtime_error with the path and the reason on bad input.
RulePack load_rule_pack(const std::filesystem::path& path);
RulePack rule_pack_from_json(const nlohmann::json& doc);

// Merges a KernelBench-Hard `forbidden:` list: "torch.matmul" and
// "F.linear" become banned Python ops (and the method form where one
// exists), entries with "::" become exact C++ symbol patterns.
void merge_problem_forbidden(RulePack& pack, const std::vector<std::string>& forbidden);

// The rules for a problem: its built-in pack when kaudit has one of the
// problem's name, else a pack that bans nothing of its own (the default
// pack's thresholds and verdict policy kept), in both cases with the
// problem's `forbidden:` list merged in.
struct Problem;
RulePack rule_pack_for_problem(const Problem& problem);

}  // namespace kaudit::rules
