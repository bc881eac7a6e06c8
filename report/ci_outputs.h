// What `kaudit audit --sarif FILE` and `--junit FILE` write for CI systems,
// read from the batch folder like the reports (report/batch.h): SARIF 2.1.0
// with every finding of every submission's verdict, through the writer that
// `kaudit analyze --format sarif` uses (evidence/sarif.h), and JUnit XML, one
// testcase per submission (docs/report-format.md, "SARIF" and "JUnit XML").
#pragma once

#include "evidence/sarif.h"
#include "report/batch.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace kaudit::report {

// One SARIF run: each submission's deciding findings, then those beside
// its verdict, in summary order. A finding with no file points at the
// submission's file (with no region when it has no line). Paths start at
// the summary's `root` (else the current folder).
nlohmann::json render_batch_sarif(const Batch& batch, const evidence::RuleInfo& info,
                                  const std::string& kaudit_version);

// How a submission shows in JUnit XML.
enum class TestOutcome { passed, failure, error, skipped };
// failure: integrity cheat or benchmark-aware, or result incorrect; error:
// result error, infrastructure-error or unreadable evidence (unknown), or an
// audit that could not decide (status failed); skipped: not run; passed
// otherwise (clean, and unverified with a correct result).
TestOutcome test_outcome(const Submission& s);

// <testsuites> holding one <testsuite> for the batch and one <testcase> per
// submission (name: its key, classname: its problem), with the verdict's
// reasons as the message and text of its <failure>, <error> or <skipped>.
std::string render_junit(const Batch& batch);

// The files to write (an empty path is not written), and the version of the
// kaudit writing them.
struct CiOutputs {
  std::filesystem::path sarif, junit;
  std::string kaudit_version;
};
// Reads the batch at `out_dir` and writes the outputs asked for (each
// through a temporary file, renamed; missing parent folders are made).
// Throws std::runtime_error when summary.json is unreadable or a file
// cannot be written.
void write_ci_outputs(const std::filesystem::path& out_dir, const CiOutputs& outputs, const evidence::RuleInfo& info);

}  // namespace kaudit::report
