// output-uninitialized: wrong output elements that still hold the bytes the
// harness fills freed device memory with before each correctness call.
#include "runner/judge/findings/families.h"

namespace kaudit::run {

using rules::Category;
using rules::Confidence;
using rules::Source;

void judge_output_uninitialized(ShapeJudge& judge) {
  const ShapeEvidence& e = judge.evidence();
  const std::string& shape = judge.shape();
  if (e.unwritten_cases.empty()) return;
  std::size_t elements = 0;
  for (const auto& [c, n] : e.unwritten_cases) elements += n;
  judge.add("output-uninitialized", shape + ", correctness",
            "On " + shape + " " + std::to_string(elements) + " wrong output element(s) of " +
                std::to_string(e.unwritten_cases.size()) + " correctness case(s) (first: case " +
                std::to_string(e.unwritten_cases.front().first) +
                ") still held the bytes the harness fills freed memory with: the submission never wrote them.");
}

std::vector<rules::FindingInfo> output_uninitialized_catalog() {
  return {
      {"output-uninitialized", Category::cheat, Confidence::medium, 0,
       "Wrong output elements were never written: they still hold the harness's poison bytes.",
       "Before each correctness call the harness fills freed device memory with 0xFF bytes, a NaN that no "
       "arithmetic produces, so an output allocated with torch.empty and left unwritten reads back as "
       "exactly those bytes. A benchmark that runs the reference just before the submission hands the "
       "reference's freed output block back to the submission's torch.empty, still holding the right "
       "answer: an output the kernel skips (a tail guard that exits every program, a launch that does "
       "nothing) passes there and is timed as if it had done the work.",
       "Fill the caching allocator's free memory with a constant (allocate and free a large torch.full), "
       "call the model, and look for that constant in its output.",
       Source::probe},
  };
}

}  // namespace kaudit::run
