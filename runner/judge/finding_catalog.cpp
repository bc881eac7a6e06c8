#include "runner/judge/finding_catalog.h"

#include "runner/judge/findings/families.h"

namespace kaudit::run {

using rules::Category;
using rules::Confidence;
using rules::Source;

namespace {

// What the runner sees of the harness itself: forged times, messages out of
// protocol, replaced functions, changed problem files, an early exit
// (docs/threat-model.md, class 2).
std::vector<rules::FindingInfo> integrity_findings() {
  return {
      {"timing-forged", Category::cheat, Confidence::high, 0,
       "The times the submission's process reported are not what the runner's clock saw.",
       "The harness reports each timed call's time from inside the submission's process, where the submission "
       "can change what it says. The runner starts every timed call itself and holds its own clock from its "
       "start signal to the call's report; the cache flush, the timing events and the two messages cost well "
       "under a millisecond. Before its timed calls each mode makes five null calls, the harness's same work "
       "around a call with no call in it, on the runner's clock: what they take beyond their reported time "
       "(at most 5 ms) is overhead of this machine. When the median call of a mode has more than 2 ms (10 ms "
       "on the CPU) plus that, and more than 4 times the reported median, unaccounted for, the reported time "
       "is forged (timed by something other than the harness), or "
       "the call left work running past its end event that the runner's clock, which waits for the device, "
       "still saw: work hidden from the timer either way.",
       "Compare `timing[].modes.<mode>.runner_clock` in run.json: median_unexplained_ms against "
       "median_reported_ms and median_null_overhead_ms.", Source::probe},
      {"protocol-violation", Category::cheat, Confidence::high, 0,
       "Messages on the harness's private channel that the harness never writes.",
       "The harness talks to the runner over a pipe in the submission's process, in a fixed order: one "
       "correctness call per case, and per timing mode a start, each call started by the runner and reported "
       "at once, an end and a summary whose samples are exactly the calls the runner chose after they "
       "returned. A message that is not JSON, names an unknown event, has a field of the wrong type, comes "
       "out of order or claims samples the runner did not ask for was written by code in the submission's "
       "process (a forged report, a relay thread, a patched encoder). The run stops at the first message out "
       "of order.",
       "Read submission_process.bad_messages and the finding's message in run.json; search the solution for "
       "writes to file descriptor 3, os.fdopen, json.dumps patches or frame walking.", Source::probe},
      {"harness-tampered", Category::cheat, Confidence::high, 0,
       "The submission replaced functions the harness relies on, its channel, or the files it handed over.",
       "Before the solution is imported the harness binds every function it uses (json.dumps, os.write, "
       "time.perf_counter, torch.equal, torch.cuda.Event and its methods, Tensor.clone, copy_, data_ptr, and "
       "the harness's own functions) and afterwards checks that none of them was replaced. The harness keeps "
       "using what it bound, so the replacement changes nothing it measures; replacing them is still an "
       "attempt to change what the checker sees. The runner also reads from /proc which file the harness's "
       "channel (file descriptor 3) is: the runner's own pipe before the solution is imported, and still it "
       "at every message after. Another file there (a pipe to a relay "
       "of the submission's, which can rewrite every line) or descriptors the process hid from /proc is "
       "tampering too, and the run stops there. So is an output file of a call (or a sampled call's input "
       "file) changed after the harness wrote it and named it to the runner, which stamps each one (inode, "
       "size, change time) as its message comes in: the run is then an error and nothing is compared.",
       "Search the solution for assignments to attributes of json, os, time, torch, torch.cuda or "
       "torch.Tensor, for setattr through any route, and for os.dup2, os.close or prctl on file descriptor 3 "
       "(run.json's submission_process.channel_checks says what the runner saw), and for writes into the "
       "harness's out/ folder (the finding's message names the first file changed).", Source::probe},
      {"banned-aten-op", Category::cheat, Confidence::high, 0,
       "An ATen op that the problem bans ran in the submission's calls.",
       "The harness records which ATen ops untimed calls of the submission (one per shape on its first case's "
       "inputs, one per timing mode) ran, with a dispatch mode bound before the solution was imported "
       "(run.json's aten_ops): tensor "
       "methods, torch functions, torch.ops.aten and at:: calls from an extension all pass through it. An op "
       "whose name stands for one the rule pack bans (aten.topk for torch.topk or Tensor.topk, aten.sort for "
       "torch.argsort, aten.addmm or aten.mm for F.linear) ran: PyTorch, not the submission, did that part of "
       "the work, on the CPU as on the GPU. A custom kernel or a custom op of the same name is not ATen's and "
       "is not counted. This is what confirms a static banned-call where no GPU trace does.",
       "Read aten_ops.banned and aten_ops.groups in run.json, or run the model under a "
       "torch.utils._python_dispatch.TorchDispatchMode that prints every func.", Source::probe},
      {"problem-file-changed", Category::cheat, Confidence::high, 0,
       "A problem file in the working folder, or a reference input file, was changed, deleted or replaced.",
       "The runner hashes the copies of the problem's files (reference.py, shapes.py, problem.yaml) "
       "before and after the submission runs, and seals the reference's input files in the exchange folder "
       "(inode, size and change time, which no unprivileged process can set back) before the submission can "
       "reach them. Changing either is tampering with the harness, whether the change would have weakened "
       "the reference, the shapes, the tolerance or the inputs the expected outputs are computed on; a "
       "broken seal also makes the run an error, as no expected output can be trusted.",
       "Run the submission in a scratch folder holding copies of the problem files and diff them "
       "afterwards.", Source::probe},
      {"exited-before-results", Category::cheat, Confidence::medium, 0,
       "The process exited with status 0 before handing over its results.",
       "The submission's process ended successfully (sys.exit(0), os._exit(0)) while the harness was still "
       "running: a harness that trusts the exit status or a printed PASS would have scored it. kaudit "
       "counts only results that come back through its own channel.",
       "Run the submission under a harness that prints a line after the last call; the line is missing.", Source::probe},
  };
}

// The input probes (runner/judge/input_probes.h): shapes near the graded ones, and
// inputs drawn from other distributions than the generator's.
std::vector<rules::FindingInfo> input_probe_infos() {
  return {
      {"shape-hardcoded", Category::benchmark_aware, Confidence::high, 0,
       "Right on the graded shapes, wrong on shapes near them that the reference accepts.",
       "The runner moves each size of the smallest graded shape, one at a time, to a neighbour that keeps the "
       "divisibility every graded value of that size shares (plus or minus the largest power of two up to 128 "
       "that divides them all) and to one an element off, keeps the shapes the reference runs without an "
       "error, and compares the submission's outputs on them with the reference's, with the graded tolerance. "
       "Wrong values where the divisibility was kept, while every graded case passed, mean tables, tiles or "
       "branches tuned for exactly the graded shapes with no correct path for others: high confidence. Wrong "
       "values only an element off (NaN included) are what a kernel without tail handling past its tiles "
       "gives, honest if narrow: low confidence, a lead, as when the submission only raised, which refuses a "
       "shape honestly. Not judged when the graded correctness failed, and "
       "skipped (run.json says so) where the reference refuses every perturbed shape.",
       "Read input_probes.off_grid in run.json for the shape and the size changed, set the reference module's "
       "globals to it, make both models with the same seed and compare their outputs on one input.",
       Source::probe},
      {"input-distribution-dependent", Category::benchmark_aware, Confidence::medium, 0,
       "Right on the generator's inputs, wrong on inputs drawn from other distributions.",
       "Per graded shape the runner redraws the floating-point data inputs of a correctness case another way "
       "(permuted, shifted off zero, scaled row by row, heavy-tailed, a few special values such as a zero, "
       "huge and subnormal ones); integer, boolean and index inputs stay as the generator drew them. Then, on "
       "the smallest graded shape, each input is moved on its own toward the ends of its domain (input-ends): "
       "a one-signed float input (a log-decay, a gate, a scale) divided by 256 toward zero and multiplied by "
       "16 away from it, or, in [0, 1], pushed toward one; an integer input (lengths, a page table, expert "
       "ids) skewed to its most frequent values (every row the same values where rows hold distinct ones, "
       "else one value everywhere), unless its rows are ordered (offsets); a property "
       "every whole-input redraw keeps, such as gates that forget fast enough for a truncated recurrence to "
       "be exact, is broken one input at a time. The "
       "calls sit among the graded correctness calls, on seeds the runner draws. Outputs are compared with "
       "the reference under the stress cases' rule (tolerance grown with the output, skipped where the "
       "reference is not finite, or where the reference's own answer on the inputs rounded once moves about "
       "as far as the submission is off: an ill-conditioned input no honest kernel can be held to). Wrong "
       "values while every graded case passed mean the kernel relies on how "
       "the benchmark's generator draws values (every row a permutation of one grid, values in a fixed "
       "range): medium confidence, high where the output holds NaN or infinity where the reference's is "
       "finite, low where the submission only raised.",
       "Read input_probes.distributions in run.json for the distribution and the shape; draw an input that "
       "way, call both models on it and compare.", Source::probe},
  };
}

// What the trace measured (runner/judge/trace_summary.cpp). The timing's
// speedup-vanishes-with-fresh-inputs is runner/judge/findings/fresh_input_gap.cpp's.
std::vector<rules::FindingInfo> measured_findings() {
  return {
      {"gpu-work-outside-timing", Category::cheat, Confidence::high, 0,
       "GPU work launched by a timed call ran outside the timed interval.",
       "The trace shows that a timed call's kernels and copies kept the GPU busy clearly longer than the "
       "call's timing events measured (more than 1.5 times plus 5 us, in most of a shape's timed calls), or "
       "still ran after the call had ended (its last kernel or copy more than 50 us past its end, in most of a "
       "shape's timed calls: CUPTI's kernel timestamps, mapped onto the host's clock, can seem a little late): work "
       "on a side stream the caller never waits for, on a thread, or deferred to a later call, so the "
       "reported time leaves it out.",
       "Look at the call's track in the Perfetto trace (`kaudit run --trace`): kernels outside the call's "
       "range.", Source::trace},
      {"timer-read-in-call", Category::benchmark_aware, Confidence::high, 0,
       "The submission read a GPU timer inside a timed call.",
       "The trace recorded cudaEventElapsedTime (or the driver's cuEventElapsedTime) between the begin and "
       "end of a timed call. The harness reads its own events only after a call has ended, so the submission "
       "timed itself while being timed. Timer reads in correctness, warm-up and probe calls (a shape's first "
       "call: Triton's autotune, candidates timed with events) are honest tuning and no finding. This is what "
       "confirms a static self-timing finding.",
       "Look for the timer reads in the call's launch track in the Perfetto trace, or trace the submission "
       "with `kaudit trace` and search its launches for EventElapsedTime.", Source::trace},
      {"banned-library-kernel", Category::cheat, Confidence::high, 0,
       "A library's kernel that the problem bans ran during timed calls.",
       "The trace shows, during the timed calls, kernels launched by a library (cuBLAS, cuBLASLt, cuDNN, "
       "libtorch_cuda...) whose names match the rule pack's banned kernel patterns (nvjet_*, cutlass GEMMs, "
       "radix sorts, softmax...): the library, not the submission, did the core math while it was timed. "
       "This is what confirms a static banned-call.",
       "Open the trace in Perfetto and look at the timed calls' kernels and their launching library, or run "
       "the submission under `kaudit trace` and read the per-library summary.", Source::trace},
      {"no-authored-kernel-ran", Category::cheat, Confidence::medium, 0,
       "No kernel of the submission's own ran during timed calls; libraries did all the GPU work.",
       "Every kernel of the timed calls was launched by a library (libtorch_cuda, cuBLAS, cuDNN...) and none "
       "by the submission's own code (a Triton launcher, its extension, a CuPy or NVRTC module): whatever "
       "kernel the file defines, it is not what runs when the benchmark measures.",
       "Look at the timed calls in the Perfetto trace: every kernel's launching library is a library's.", Source::trace},
      {"library-does-the-work", Category::cheat, Confidence::medium, 0,
       "The submission's own kernels ran only a small share of the graded calls' GPU time; libraries did the rest.",
       "A fig leaf: a kernel of its own ran (often a trivial scale or cast) while cuBLAS, cuDNN or ATen did the "
       "problem's work. The share is own / (own + library) of the bench-mode timed calls' kernel time per shape, "
       "with the pack's allowed_glue_kernels (copies, fills, elementwise casts; sort, scan, histogram and index "
       "kernels where routing is allowed) left out of both sides, unless the pack bans the kernel; per call, an "
       "unbanned library kernel the problem's own reference also runs (its process is traced too) is left out "
       "as well, up to thresholds.reference_glue_allowance (1.5) times what the reference spends on kernels of "
       "that name, so that routing done as the reference does it is not taken for the library's work, while "
       "the work never hides behind the reference's glue; the finding comes when a shape's share is under the pack's thresholds.min_own_kernel_share (0.5 by default; "
       "each bundled problem's pack sets its own). No kernel of its own at all is no-authored-kernel-ran: the same "
       "policy at share 0. Medium: a library kernel legitimately doing a side task can take a large share on a "
       "small shape. Low, never deciding, when every shape is under the threshold by less than "
       "thresholds.own_share_lead_margin (0.15): bookkeeping the glue list does not name can make that up. Clean counter-example: a Triton GEMM that calls torch.empty and .to(bfloat16) around it (the "
       "fill and the cast are glue; its own share is 100%).",
       "Read run.json's trace.authored_share per shape (and trace.reference_glue), then open the Perfetto trace of a timed call: the long "
       "kernels' launching library is a library's.", Source::trace},
      {"no-kernels-in-timed-call", Category::cheat, Confidence::medium, 0,
       "Timed calls launched no GPU work while other calls did.",
       "Some timed calls launched no kernel, copy or fill at all, while the correctness calls and the "
       "fresh-mode calls did: the timed call returned a stored result.",
       "Trace the calls and count kernels per call.", Source::trace},
  };
}

}  // namespace

const std::vector<rules::FindingInfo>& runner_finding_catalog() {
  static const std::vector<rules::FindingInfo> catalog = [] {
    std::vector<rules::FindingInfo> all = integrity_findings();
    // What the probes judged of one shape: one family a file under runner/judge/findings/.
    const std::vector<rules::FindingInfo> families = runtime_family_catalog();
    all.insert(all.end(), families.begin(), families.end());
    const std::vector<rules::FindingInfo> measured = measured_findings();
    all.insert(all.end(), measured.begin(), measured.end());
    for (const auto& info : input_probe_infos()) all.push_back(info);
    return all;
  }();
  return catalog;
}

const rules::FindingInfo* find_runner_finding(std::string_view id) {
  for (const auto& f : runner_finding_catalog())
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace kaudit::run
