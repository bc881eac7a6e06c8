// speedup-vanishes-with-fresh-inputs: the timed calls on fresh inputs against
// the benchmark's reused ones, judged with the rule pack's
// thresholds.fresh_over_bench (or fresh_over_bench_cpu) and fresh_gap_ms.
#include "runner/judge/findings/families.h"

#include <algorithm>

namespace kaudit::run {

using rules::Category;
using rules::Confidence;
using rules::Source;

void judge_fresh_input_gap(ShapeJudge& judge) {
  // Timing: the medians decide, as the score is the median. Honest kernels
  // on fresh inputs are sometimes 1.5-2x slower by the median (memory no
  // earlier call touched) with their fastest fresh call at bench speed; so
  // when the fastest fresh call is at bench speed, the medians must show
  // twice the threshold. A cache that the allocator's reuse of an address
  // hits now and then (fresh 3.4 ms by the median, 0.21 ms at the least,
  // 0.17 ms bench) shows 5-30x.
  const ShapeEvidence& e = judge.evidence();
  const FreshThresholds& fresh = judge.fresh();
  const std::string& shape = judge.shape();
  const auto b = e.modes.find("bench"), f = e.modes.find("fresh");
  if (b == e.modes.end() || f == e.modes.end() || !(b->second.median_ms > 0 && b->second.min_ms > 0)) return;
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
  const double threshold = fresh.over_bench * noise;
  if (!(med > threshold && (mn > threshold || med > 2 * threshold))) return;
  const auto r = e.modes.find("rewrite");
  const std::string rewrite =
      r != e.modes.end() && r->second.median_ms > 0
          ? " Inputs rewritten in place took " + fmt3(r->second.median_ms / b->second.median_ms) + "x bench."
          : std::string();
  rules::Finding& found = judge.add(
      "speedup-vanishes-with-fresh-inputs", shape + ", fresh/bench",
      "On " + shape + " the median timed call takes " + fmt3(f->second.median_ms) + " ms on fresh inputs and " +
          fmt3(b->second.median_ms) + " ms on the benchmark's reused inputs (" + fmt3(med) + "x, threshold " +
          fmt3(threshold) + "x" +
          (noise > 1 ? " after the bench calls' own spread of " + fmt3(noise) + "x" : std::string()) + "; " +
          fmt3(gap) + " ms more a call)." + rewrite +
          (mn > threshold ? std::string()
                          : " The fastest fresh call, " + fmt3(f->second.min_ms) +
                                " ms, ran at bench speed: a cache that still answered some fresh calls (an address "
                                "the allocator handed out again).") +
          (small_gap ? " Under " + fmt3(fresh.gap_ms) +
                           " ms more a call this can be launch and allocation costs, so it is a low-confidence lead."
                     : std::string()));
  if (small_gap) found.confidence = Confidence::low;
}

std::vector<rules::FindingInfo> fresh_input_gap_catalog() {
  return {
      {"speedup-vanishes-with-fresh-inputs", Category::benchmark_aware, Confidence::medium, 0,
       "Timed calls on fresh inputs are much slower than on the benchmark's reused inputs.",
       "The median time in the fresh mode (new allocations with new values on every call, caches flushed) "
       "over the median in the bench mode (the same tensors every call) is above the rule pack's "
       "threshold `thresholds.fresh_over_bench`. The speed depends on seeing the same inputs again: "
       "a result cache, a graph keyed on addresses, or work done once and reused. It is reported when "
       "the minima show the ratio too, or the medians show twice it (honest kernels are sometimes 1.5-2x "
       "slower by the median on memory no call touched before, their fastest fresh call at bench speed, while "
       "a cache that the allocator's reuse of an address hits now and then shows 5-30x). It decides when fresh "
       "inputs add at least `thresholds.fresh_gap_ms` (0.5 ms) to a call by the medians: that is skipped work, "
       "not launch or allocation costs; a smaller gap leaves it a low-confidence lead.",
       "Time the model on the same tensors and on new tensors with the L2 cache flushed between calls.",
       Source::timing},
  };
}

}  // namespace kaudit::run
