// The batch folder that `kaudit audit` writes (summary.json and, per
// submission, verdict.json, analysis.json, run.json, trace.json,
// trace.chrome.json), read into what the reports show. Every file but
// summary.json may be missing, partial or malformed: what cannot be read is
// noted on the submission, never thrown.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::report {

// A few lines of the submission's source around a finding's line.
struct Excerpt {
  int first_line = 0;              // 1-based number of lines[0]
  std::vector<std::string> lines;  // raw (unescaped) text
  int marked = 0;                  // the finding's line
};

struct FindingView {
  std::string id, source, category, confidence, message;
  std::string file, symbol;
  int line = 0, column = 0;
  bool deciding = false;
  std::optional<Excerpt> excerpt;  // when the line is in the submission's source
};

struct TimingRow {
  int index = 0;
  std::string shape;  // "batch=64, n=8192, k=8"
  std::optional<double> bench_ms, fresh_ms, rewrite_ms;
  std::optional<double> bench_pct, fresh_pct;
  std::optional<double> ratio;  // fresh / bench
};

// What the correctness calls of one shape showed (run.json correctness[]).
struct CorrectnessRow {
  int index = 0;
  std::string shape;
  bool passed = true;
  int seeds = 0, seeds_passed = 0;    // seed cases
  int stress = 0, stress_passed = 0;  // stress cases that ran (skipped ones count in neither)
  std::string first_failure;          // "seed case 1: ..." for the first failing case
  std::size_t unwritten = 0;          // wrong elements still holding the poison bytes
  std::vector<int> mutated_cases;     // cases whose inputs the call changed
  std::optional<int> stream_outputs, stream_differing;  // the stream-order probe (CUDA runs)
};

// Cells of a correctness row for both reports, as plain text (escaped by the
// caller): "3 of 3" or "–"; "ready", "2 of 2 unfinished" or "–"; "cases 0, 3" or "–".
std::string cases_text(int passed, int total);
std::string stream_order_text(const CorrectnessRow& r);
std::string mutated_text(const CorrectnessRow& r);

struct KernelRow {
  std::string name, library, role, launcher;  // launcher: the launching object's file name
  std::size_t count = 0;
  double gpu_ms = 0;
  std::string phases;  // "timed, correctness"
};

struct LibraryTime {
  std::string library, role;  // role: own | library | unknown
  double gpu_ms = 0;
};

struct Submission {
  std::string key, anchor, path, problem;
  std::string result = "not-run", integrity = "not-run", status;
  std::optional<double> seconds;
  bool folder_readable = false;  // the key names a folder inside the batch
  std::vector<std::string> notes;  // what is missing or could not be read

  bool has_verdict = false, has_analysis = false, has_run = false, has_trace = false;
  bool has_chrome_trace = false;
  std::string result_reason;
  std::vector<std::string> reasons;
  std::vector<FindingView> deciding, beside;
  // Ids of the static leads beside the verdict (a source pattern the run did
  // not confirm) that no deciding finding holds: on the board, and said on
  // the page, so that a clean verdict never hides them.
  std::vector<std::string> unconfirmed;

  std::vector<CorrectnessRow> correctness;
  std::vector<TimingRow> timing;
  double ratio_threshold = 1.5;
  std::optional<double> bench_pct, fresh_pct;  // geometric means over shapes
  std::string device, hardware;
  std::string shapes_run;  // when not every graded shape ran (--shapes smallest): which, in words

  std::vector<KernelRow> kernels;
  std::size_t kernels_hidden = 0;  // rows past the ones shown
  std::vector<LibraryTime> libraries;
  std::string libraries_basis;  // which calls the library split covers
  // Per graded shape: its own kernels' share of the bench calls' GPU time
  // (run.json trace.authored_share), and how long its first call took.
  std::vector<std::pair<std::string, double>> authored_share;
  std::vector<std::pair<std::string, double>> first_call_seconds;
  std::string trace_status;     // from the run document: ok, failed, unavailable

  std::string source_shown;  // the path the source was read from; empty when not found
};

// "shape 0: 12%, shape 1: 9%" and "shape 0: 74.1 s, ..."; empty when unknown.
std::string authored_share_text(const Submission& s);
std::string first_calls_text(const Submission& s);
// "shape-hardcoded, banned-call"; empty when none (Submission::unconfirmed).
std::string unconfirmed_text(const Submission& s);
// The page's sentence on them, or empty: "The source shows what the run did
// not confirm ... not confirmed at run time: ids ...".
std::string unconfirmed_sentence(const Submission& s);

struct Batch {
  std::filesystem::path out_dir;
  std::string kaudit_version, gpu;
  std::string root;  // summary.json `root`: where relative submission paths start; empty when not said
  std::vector<Submission> submissions;  // in summary order
  std::vector<std::string> notes;
};

struct Counts {
  int clean = 0, benchmark_aware = 0, cheat = 0, not_run = 0;  // not_run: not-run, unverified, unknown
  int correct = 0, incorrect = 0, error = 0, result_not_run = 0;
};
Counts count_verdicts(const Batch& batch);

// Submissions grouped by problem (sorted by name, no problem last), each
// group ranked by fresh % of peak, highest first, those without last.
std::vector<std::pair<std::string, std::vector<const Submission*>>> by_problem(const Batch& batch);

// Where a finding's evidence is on the submission's page: "f<N>" (its own
// card, with the source lines), "timing" or "kernels"; the caller prefixes
// the submission's anchor.
enum class EvidenceKind { source, correctness, timing, kernels, none };
EvidenceKind evidence_of(const Submission& s, const FindingView& f);

// Reads the batch. Throws std::runtime_error only when summary.json is
// missing or not a JSON object.
Batch load_batch(const std::filesystem::path& out_dir);

}  // namespace kaudit::report
