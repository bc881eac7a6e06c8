#include "runner/judge/probe_findings.h"

#include "runner/judge/finding_catalog.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace kaudit::run {

rules::Finding make_probe_finding(const std::string& id, const std::string& file, const std::string& where,
                                  const std::string& message) {
  const rules::FindingInfo* info = find_runner_finding(id);
  if (!info) throw std::logic_error("finding id not in the runner's catalog: " + id);
  rules::Finding f;
  f.id = id;
  f.source = info->source;
  f.category = info->category;
  f.confidence = info->confidence;
  f.location.file = file;
  f.location.symbol = where;
  f.message = message;
  return f;
}

namespace {


int count(const nlohmann::json& counts, const char* key) {
  return counts.is_object() && counts.contains(key) && counts[key].is_number_integer() ? counts[key].get<int>() : 0;
}

// Under this share of wrong elements a failed timed sample is a near miss.
constexpr double kWidelyWrongShare = 0.01;

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// speedup-vanishes-with-fresh-inputs: the timed calls on fresh inputs
// against the benchmark's reused ones.
std::optional<rules::Finding> fresh_input_finding(const ShapeEvidence& e, const std::string& file,
                                                  FreshThresholds fresh) {
  // Timing: the medians decide, as the score is the median. Honest kernels
  // on fresh inputs are sometimes 1.5-2x slower by the median (memory no
  // earlier call touched) with their fastest fresh call at bench speed; so
  // when the fastest fresh call is at bench speed, the medians must show
  // twice the threshold. A cache that the allocator's reuse of an address
  // hits now and then (fresh 3.4 ms by the median, 0.21 ms at the least,
  // 0.17 ms bench) shows 5-30x.
  const std::string shape = "shape " + std::to_string(e.shape);
  const double fresh_over_bench = fresh.over_bench;
  const auto b = e.modes.find("bench"), f = e.modes.find("fresh");
  if (b != e.modes.end() && f != e.modes.end() && b->second.median_ms > 0 && b->second.min_ms > 0) {
    const double med = f->second.median_ms / b->second.median_ms;
    const double mn = f->second.min_ms / b->second.min_ms;
    // What fresh inputs add to a call decides, besides the ratio: honest
    // calls of 0.1 ms are mostly launch and allocation costs, which fresh
    // tensors change by themselves (on the H200, honest Triton calls of
    // 0.08-0.1 ms took 1.4-2.6x as long on fresh inputs, 0.03-0.13 ms more),
    // while a memo that skips the work adds the work: milliseconds.
    const double gap = f->second.median_ms - b->second.median_ms;
    const bool small_gap = gap < fresh.gap_ms;
    // The gap must also clear the noise of identical calls: the bench mode's
    // own spread (p90/p10) raises the threshold, at most twofold (a cache
    // that skips the work shows 5-100x; the spread of honest calls of 0.1 ms
    // on a shared machine reaches 1.5-2x).
    const double noise = std::clamp(b->second.spread, 1.0, 2.0);
    const double threshold = fresh_over_bench * noise;
    if (med > threshold && (mn > threshold || med > 2 * threshold)) {
      const auto r = e.modes.find("rewrite");
      const std::string rewrite =
          r != e.modes.end() && r->second.median_ms > 0
              ? " Inputs rewritten in place took " + fmt(r->second.median_ms / b->second.median_ms) + "x bench."
              : std::string();
      rules::Finding found = make_probe_finding(
          "speedup-vanishes-with-fresh-inputs", file, shape + ", fresh/bench",
          "On " + shape + " the median timed call takes " + fmt(f->second.median_ms) + " ms on fresh inputs and " +
              fmt(b->second.median_ms) + " ms on the benchmark's reused inputs (" + fmt(med) + "x, threshold " +
              fmt(threshold) + "x" +
              (noise > 1 ? " after the bench calls' own spread of " + fmt(noise) + "x" : std::string()) + "; " +
              fmt(gap) + " ms more a call)." + rewrite +
              (mn > threshold
                   ? std::string()
                   : " The fastest fresh call, " + fmt(f->second.min_ms) +
                         " ms, ran at bench speed: a cache that still answered some fresh calls (an address the "
                         "allocator handed out again)." ) +
              (small_gap ? " Under " + fmt(fresh.gap_ms) +
                               " ms more a call this can be launch and allocation costs, so it is a low-confidence lead."
                         : std::string()));
      if (small_gap) found.confidence = rules::Confidence::low;
      return found;
    }
  }
  return std::nullopt;
}

}  // namespace

namespace {

// Adds the runner's findings of one shape to `out`, at each id's catalog
// confidence.
class ShapeJudge {
 public:
  ShapeJudge(const ShapeEvidence& e, const std::string& file, std::vector<rules::Finding>& out)
      : e_(e), file_(file), out_(out), shape_("shape " + std::to_string(e.shape)) {}

  // Wrong timed outputs: the first mode that fails tells which offence it is.
  // bench reuses the very inputs that passed, fresh brings new tensors, and
  // rewrite keeps the tensors but changes their values.
  void wrong_timed_outputs() {
    if (!e_.correctness_passed) return;
    if (mode_failed("bench")) {
      // Changed inputs explain wrong bench calls (input-mutated says so).
      if (e_.mutated_cases.empty())
        add_wrong("bench", "correct-only-untimed",
            "On " + shape_ + " the outputs of timed bench calls do not match the reference on the same inputs that "
            "passed the correctness check.");
    } else if (mode_failed("fresh")) {
      add_wrong("fresh", "work-skipped-on-repeat",
          "On " + shape_ + " timed calls on new inputs returned outputs that do not match the reference on those "
          "inputs, after the correctness calls had passed.");
    } else if (mode_failed("rewrite")) {
      add_wrong("rewrite", "output-cached-on-identity",
          "On " + shape_ + " outputs were wrong once new values were written into the warm-up tensors" +
              std::string(e_.modes.count("fresh") ? ", while new tensors gave right outputs" : "") +
              ": the result is looked up by the tensors' identity or address.");
    }
  }

  // Right at first, wrong from some call on, and handing back an earlier
  // call's output: the work stopped once the first calls were checked.
  void work_stopped_after_first_calls() {
    const int reused_in_correctness = count(e_.correctness_counts, "reused");
    if (e_.correctness_passed || reused_in_correctness == 0 || e_.seed_cases_passed.empty() ||
        !e_.seed_cases_passed.front())
      return;
    std::size_t right = 0;
    while (right < e_.seed_cases_passed.size() && e_.seed_cases_passed[right]) ++right;
    const bool wrong_after = right < e_.seed_cases_passed.size() &&
                             std::none_of(e_.seed_cases_passed.begin() + static_cast<long>(right),
                                          e_.seed_cases_passed.end(), [](bool ok) { return ok; });
    if (wrong_after)
      add("work-skipped-on-repeat", shape_ + ", correctness",
          "On " + shape_ + " the first " + std::to_string(right) + " correctness call(s) were right and every later "
          "one wrong, while " + std::to_string(reused_in_correctness) +
              " call(s) returned an earlier call's output storage again: the work stops after the first calls.");
  }

  // Memory the call left in the wrong state: outputs never written or not
  // finished on the caller's stream, inputs written.
  void memory_left_wrong() {
    if (!e_.unwritten_cases.empty()) {
      std::size_t elements = 0;
      for (const auto& [c, n] : e_.unwritten_cases) elements += n;
      add("output-uninitialized", shape_ + ", correctness",
          "On " + shape_ + " " + std::to_string(elements) + " wrong output element(s) of " +
              std::to_string(e_.unwritten_cases.size()) + " correctness case(s) (first: case " +
              std::to_string(e_.unwritten_cases.front().first) +
              ") still held the bytes the harness fills freed memory with: the submission never wrote them.");
    }
    if (e_.outputs_not_ready > 0)
      add("output-not-ready-on-return", shape_ + ", stream-order probe",
          "On " + shape_ + " " + std::to_string(e_.outputs_not_ready) +
              " returned tensor(s) read on the caller's stream right after the call returned differed from the "
              "same tensor(s) after the device was synchronized: their GPU work ran on streams the caller's "
              "stream never waits for.");
    if (!e_.mutated_cases.empty())
      add("input-mutated", shape_ + ", correctness",
          "On " + shape_ + " a call changed the values of its inputs (correctness case " +
              std::to_string(e_.mutated_cases.front()) + ")" +
              (mode_failed("bench") ? "; the timed bench calls, on the benchmark's reused inputs, then answered "
                                      "for changed inputs and were wrong."
                                    : "."));
  }

  // Facts about returned objects, over the correctness and timed calls.
  void returned_objects() {
    int aliases = count(e_.correctness_counts, "aliases_input"), reused = count(e_.correctness_counts, "reused");
    int disguised = count(e_.correctness_counts, "non_plain") + count(e_.correctness_counts, "not_tensor");
    int calls = count(e_.correctness_counts, "calls");
    for (const auto& [m, ev] : e_.modes) {
      aliases += count(ev.counts, "aliases_input");
      reused += count(ev.counts, "reused");
      disguised += count(ev.counts, "non_plain") + count(ev.counts, "not_tensor");
      calls += count(ev.counts, "calls");
    }
    const std::string of_calls = " of " + std::to_string(calls) + " calls returned ";
    if (aliases > 0 && !e_.reference_aliases_input)
      add("output-aliases-input", shape_,
          "On " + shape_ + " " + std::to_string(aliases) + of_calls + "a tensor that shares storage with an input.");
    if (reused > 0)
      add("output-reused", shape_,
          "On " + shape_ + " " + std::to_string(reused) + of_calls + "the storage of the previous call's output again.");
    if (disguised > 0)
      add("disguised-output", shape_,
          "On " + shape_ + " " + std::to_string(disguised) + of_calls +
              "an object that was not a plain torch.Tensor.");
  }

 private:
  void add(const std::string& id, const std::string& where, const std::string& msg) {
    out_.push_back(make_probe_finding(id, file_, where, msg));
  }
  bool mode_failed(const char* m) const {
    const auto it = e_.modes.find(m);
    return it != e_.modes.end() && !it->second.samples_ok;
  }
  // The offence a failing mode names, at the catalog's confidence when its
  // wrong samples were wrong widely; a near miss (under 1% of the elements)
  // is rounding on one draw more likely than a stale or skipped answer.
  void add_wrong(const char* mode, const std::string& id, const std::string& msg) {
    const double share = e_.modes.at(mode).wrong_share;
    if (share >= kWidelyWrongShare) return add(id, shape_ + ", " + mode, msg);
    add(id, shape_ + ", " + mode,
        msg + " Only " + fmt(share * 100) + "% of the elements of the worst sampled call were wrong, though: a " +
            "numerical near miss on one draw looks so too, so this is a lead, not a verdict.");
    out_.back().confidence = rules::Confidence::low;
  }

  const ShapeEvidence& e_;
  const std::string& file_;
  std::vector<rules::Finding>& out_;
  const std::string shape_;
};

}  // namespace

std::vector<rules::Finding> probe_findings(const ShapeEvidence& e, const std::string& file, FreshThresholds fresh) {
  std::vector<rules::Finding> out;
  ShapeJudge judge(e, file, out);
  judge.wrong_timed_outputs();
  judge.work_stopped_after_first_calls();
  judge.memory_left_wrong();
  judge.returned_objects();
  if (auto f = fresh_input_finding(e, file, fresh)) out.push_back(*f);
  return out;
}

}  // namespace kaudit::run
