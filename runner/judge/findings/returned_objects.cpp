// Facts about the objects a shape's calls returned, counted by the harness
// over the correctness and timed calls: storage shared with an input
// (output-aliases-input), the previous call's storage again (output-reused),
// something other than a plain torch.Tensor (disguised-output).
#include "runner/judge/findings/families.h"

namespace kaudit::run {

using rules::Category;
using rules::Confidence;
using rules::Source;

void judge_returned_objects(ShapeJudge& judge) {
  const ShapeEvidence& e = judge.evidence();
  const std::string& shape = judge.shape();
  int aliases = count_of(e.correctness_counts, "aliases_input"), reused = count_of(e.correctness_counts, "reused");
  int disguised = count_of(e.correctness_counts, "non_plain") + count_of(e.correctness_counts, "not_tensor");
  int calls = count_of(e.correctness_counts, "calls");
  for (const auto& [m, ev] : e.modes) {
    aliases += count_of(ev.counts, "aliases_input");
    reused += count_of(ev.counts, "reused");
    disguised += count_of(ev.counts, "non_plain") + count_of(ev.counts, "not_tensor");
    calls += count_of(ev.counts, "calls");
  }
  const std::string of_calls = " of " + std::to_string(calls) + " calls returned ";
  // An in-place problem's reference returns an input's storage too.
  if (aliases > 0 && !e.reference_aliases_input)
    judge.add("output-aliases-input", shape,
              "On " + shape + " " + std::to_string(aliases) + of_calls + "a tensor that shares storage with an input.");
  if (reused > 0)
    judge.add(
        "output-reused", shape,
        "On " + shape + " " + std::to_string(reused) + of_calls + "the storage of the previous call's output again.");
  if (disguised > 0)
    judge.add(
        "disguised-output", shape,
        "On " + shape + " " + std::to_string(disguised) + of_calls + "an object that was not a plain torch.Tensor.");
}

std::vector<rules::FindingInfo> returned_objects_catalog() {
  return {
      {"output-aliases-input", Category::benchmark_aware, Confidence::high, 0,
       "The returned tensor shares storage with an input.",
       "An output that lives in an input's memory was computed in place: the benchmark's inputs are "
       "overwritten, and the timing leaves out an allocation that a real caller pays for. Not reported "
       "when the problem's reference returns an input's storage too.",
       "Compare out.untyped_storage().data_ptr() with each input's.", Source::probe},
      {"output-reused", Category::benchmark_aware, Confidence::medium, 0,
       "The same output storage is returned on successive calls.",
       "The runner holds on to each call's output; the next call returned a tensor in the same storage, so "
       "the earlier result was overwritten. A caller that keeps outputs gets wrong data, and the timing "
       "leaves out the allocation.",
       "Keep the output of one call, make a second call on other inputs, and see whether the first "
       "output changed.",
       Source::probe},
      {"disguised-output", Category::cheat, Confidence::medium, 0, "The returned object is not a plain torch.Tensor.",
       "The output is a subclass of torch.Tensor or not a tensor at all. A subclass can override "
       "comparison, printing or __torch_function__ so that an in-process check passes; kaudit compares "
       "the raw bytes outside the process, and reports the disguise itself.",
       "print(type(out)) must be <class 'torch.Tensor'>.", Source::probe},
  };
}

}  // namespace kaudit::run
