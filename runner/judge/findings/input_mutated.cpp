// input-mutated: a correctness call changed the values of its inputs.
#include "runner/judge/findings/families.h"

namespace kaudit::run {

using rules::Category;
using rules::Confidence;
using rules::Source;

void judge_input_mutated(ShapeJudge& judge) {
  const ShapeEvidence& e = judge.evidence();
  const std::string& shape = judge.shape();
  if (e.mutated_cases.empty()) return;
  judge.add("input-mutated", shape + ", correctness",
            "On " + shape + " a call changed the values of its inputs (correctness case " +
                std::to_string(e.mutated_cases.front()) + ")" +
                (judge.mode_failed("bench") ? "; the timed bench calls, on the benchmark's reused inputs, then "
                                              "answered for changed inputs and were wrong."
                                            : "."));
}

std::vector<rules::FindingInfo> input_mutated_catalog() {
  return {
      {"input-mutated", Category::cheat, Confidence::high, 0, "A call changed the values of its inputs.",
       "The runner compares the inputs' bytes after each correctness call with the bytes it handed over. "
       "A module that replaces a PyTorch reference must leave its caller's tensors alone: writing into "
       "inputs (a scale folded in place, an output written over one) saves work or memory that an honest "
       "kernel pays for, corrupts every later call that reuses them, and can hide a result in memory the "
       "checker reads. The benchmark reuses its inputs, so kaudit checks the timed bench calls against "
       "the untouched inputs, and they fail. Inputs that the problem's reference itself writes into (an "
       "in-place problem) do not count.",
       "Clone the inputs before a call and compare them with torch.equal afterwards.", Source::probe},
  };
}

}  // namespace kaudit::run
