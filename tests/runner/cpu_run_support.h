// What the CPU runner tests share (runner_cpu_test, runner_cpu_aten_test,
// input_probes_cpu_test): Debian's python3-torch as the interpreter, the
// common run options, and how a run document is summarised in a failure.
#pragma once

#include "runner/session/run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <set>
#include <string>

namespace kaudit::test {

inline bool have_torch() {
  static const bool ok = std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
  return ok;
}

// A CPU run of tests/runner/solutions/SOLUTION on tests/runner/problems/PROBLEM.
inline run::RunOptions cpu_options(const std::string& problem, const std::string& solution) {
  const std::filesystem::path tests = KAUDIT_RUNNER_TESTS;
  run::RunOptions o;
  o.problem = tests / "problems" / problem;
  o.solution = tests / "solutions" / solution;
  o.device = "cpu";
  o.python = "/usr/bin/python3";
  o.harness = KAUDIT_HARNESS_BUILD;
  o.setup_timeout_s = 90;
  o.phase_timeout_s = 60;
  return o;
}

inline std::set<std::string> ids(const nlohmann::json& r) {
  std::set<std::string> s;
  for (const auto& f : r["findings"]) s.insert(f["id"].get<std::string>());
  return s;
}

// The result, error and findings, the stderr tail, and the `extra` fields
// the run document has.
inline std::string describe(const nlohmann::json& r, std::initializer_list<const char*> extra = {}) {
  nlohmann::json brief = {{"result", r["result"]}, {"error", r["error"]}, {"findings", r["findings"]}};
  if (r.contains("result_reason")) brief["result_reason"] = r["result_reason"];
  for (const char* k : extra)
    if (r.contains(k)) brief[k] = r[k];
  if (r.contains("submission_process")) brief["stderr_tail"] = r["submission_process"]["stderr_tail"];
  return brief.dump(2);
}

}  // namespace kaudit::test

#define SKIP_WITHOUT_TORCH() \
  if (!kaudit::test::have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch (apt-get install python3-torch)"
