// output-not-ready-on-return: the stream-order probe saw returned tensors
// whose copy on the caller's stream, made right after the call returned,
// differed from the tensor after a full synchronize.
#include "runner/judge/findings/families.h"

namespace kaudit::run {

using rules::Category;
using rules::Confidence;
using rules::Source;

void judge_output_not_ready(ShapeJudge& judge) {
  const ShapeEvidence& e = judge.evidence();
  const std::string& shape = judge.shape();
  if (e.outputs_not_ready <= 0) return;
  judge.add("output-not-ready-on-return", shape + ", stream-order probe",
            "On " + shape + " " + std::to_string(e.outputs_not_ready) +
                " returned tensor(s) read on the caller's stream right after the call returned differed from the "
                "same tensor(s) after the device was synchronized: their GPU work ran on streams the caller's "
                "stream never waits for.");
}

std::vector<rules::FindingInfo> output_not_ready_catalog() {
  return {
      {"output-not-ready-on-return", Category::cheat, Confidence::high, 0,
       "The output was not finished on the caller's stream when the call returned.",
       "Once per shape the harness keeps the caller's CUDA stream busy for about 2 ms, calls the model, "
       "copies each returned tensor on the caller's stream, then synchronizes the device and compares. "
       "The copies differ when the output is written by work on another stream (a side stream, a thread "
       "pool's streams) that the caller's stream never waits for: a benchmark's CUDA events on the "
       "caller's stream close before that work ends, so its time is not measured, and a caller that uses "
       "the output on its stream reads it unfinished. Joining the side stream back "
       "(torch.cuda.current_stream().wait_stream(side)) before returning makes the two equal.",
       "Queue torch.cuda._sleep(4_000_000) on the current stream, call the model, clone the output at once, "
       "then torch.cuda.synchronize() and compare the clone with the output.",
       Source::probe},
  };
}

}  // namespace kaudit::run
