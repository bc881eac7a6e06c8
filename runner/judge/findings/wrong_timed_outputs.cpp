// Wrong timed outputs after right correctness calls: the first timing mode
// that fails tells which offence it is. bench reuses the very inputs that
// passed (correct-only-untimed), fresh brings new tensors
// (work-skipped-on-repeat), and rewrite keeps the tensors but changes their
// values (output-cached-on-identity).
#include "runner/judge/findings/families.h"

namespace kaudit::run {

using rules::Category;
using rules::Confidence;
using rules::Source;

namespace {

// Under this share of wrong elements a failed timed sample is a near miss.
constexpr double kWidelyWrongShare = 0.01;

// The offence a failing mode names, at the catalog's confidence when its
// wrong samples were wrong widely; a near miss (under 1% of the elements)
// is rounding on one draw more likely than a stale or skipped answer.
void add_wrong(ShapeJudge& judge, const char* mode, const std::string& id, const std::string& msg) {
  const double share = judge.evidence().modes.at(mode).wrong_share;
  const std::string where = judge.shape() + ", " + mode;
  if (share >= kWidelyWrongShare) {
    judge.add(id, where, msg);
    return;
  }
  rules::Finding& lead = judge.add(
      id, where,
      msg + " Only " + fmt3(share * 100) + "% of the elements of the worst sampled call were wrong, though: " +
          "a numerical near miss on one draw looks so too, so this is a lead, not a verdict.");
  lead.confidence = Confidence::low;
}

}  // namespace

void judge_wrong_timed_outputs(ShapeJudge& judge) {
  const ShapeEvidence& e = judge.evidence();
  const std::string& shape = judge.shape();
  if (!e.correctness_passed) return;
  if (judge.mode_failed("bench")) {
    // Changed inputs explain wrong bench calls (input-mutated says so).
    if (e.mutated_cases.empty())
      add_wrong(judge, "bench", "correct-only-untimed",
                "On " + shape +
                    " the outputs of timed bench calls do not match the reference on the same inputs that "
                    "passed the correctness check.");
  } else if (judge.mode_failed("fresh")) {
    add_wrong(judge, "fresh", "work-skipped-on-repeat",
              "On " + shape +
                  " timed calls on new inputs returned outputs that do not match the reference on those "
                  "inputs, after the correctness calls had passed.");
  } else if (judge.mode_failed("rewrite")) {
    add_wrong(judge, "rewrite", "output-cached-on-identity",
              "On " + shape + " outputs were wrong once new values were written into the warm-up tensors" +
                  std::string(e.modes.count("fresh") ? ", while new tensors gave right outputs" : "") +
                  ": the result is looked up by the tensors' identity or address.");
  }
}

// work-skipped-on-repeat is reported by work_stopped_after_first_calls.cpp, by
// the trace (runner/judge/trace_summary.cpp) and by the ATen op record
// (runner/judge/ops_skipped_on_repeat.cpp) too; its entry, which names
// every route, lives here.
std::vector<rules::FindingInfo> wrong_timed_outputs_catalog() {
  return {
      {"output-cached-on-identity", Category::cheat, Confidence::high, 0,
       "Outputs are wrong once new values are written into the same input tensors.",
       "In the rewrite mode the runner keeps the tensors of the warm-up calls and writes new values into "
       "their storage (without moving their version counters) before every timed call. A submission that "
       "computes is right; one that keys a cache of outputs on the tensors' identity, address or version "
       "returns the old answer. The same submission was right on the fresh mode's new tensors, so its "
       "answer depends on which tensor it is given, not on what the tensor holds.",
       "Call the model twice on one tensor, changing its values in between with `x.data.copy_(new)`; "
       "compare the second output with the reference on the new values.",
       Source::probe},
      {"work-skipped-on-repeat", Category::cheat, Confidence::high, 0,
       "After the first calls, or on inputs it has seen, the submission stops doing the work.",
       "Three routes. The probes: the submission passed the correctness calls, but timed calls in the fresh "
       "mode, each on newly allocated inputs holding new values, returned outputs that do not match the "
       "reference on those inputs: after some calls it stops computing and returns an earlier result. The "
       "trace: kernels of the fresh timed calls that most timed bench calls of the same shape do not launch, "
       "or launch hollow (a median launch under a fifth of the fresh one's: a tiny grid, an early return), "
       "carry at least half the fresh calls' GPU time, and the bench calls take under half of it: on the "
       "benchmark's repeated inputs the work is skipped (a memo under a content fingerprint: "
       "a few sampled elements read back, then a gather and a copy). The message names the kernels on each "
       "side. Without a GPU trace (on the CPU), the ATen op record: ATen ops of the shape's untimed call on "
       "fresh inputs that its untimed call on the benchmark's repeated inputs did not run, or ran on under a "
       "fifth of the tensor elements, took at least half of the fresh call's op time; the message names them.",
       "Run the model a few times on one input, then on a new random input, and compare the last output "
       "with the reference; or open a bench and a fresh timed call of the shape in the Perfetto trace and "
       "compare their kernels; or compare aten_ops.groups' fresh and bench records of the shape in run.json.",
       Source::probe},
      {"correct-only-untimed", Category::cheat, Confidence::high, 0,
       "Right in the correctness calls, wrong in the timed calls on the same inputs.",
       "The outputs of a sample of timed bench calls, on the very inputs that passed the correctness "
       "check, do not match the reference: the submission behaves differently when it is being timed "
       "(it counts calls, or looks for the timer or the harness).",
       "Call the model 20 times on one input and compare every output with the reference.", Source::probe},
  };
}

}  // namespace kaudit::run
