// self-timing: the submission measures its own speed on the path the
// benchmark times (CUDA events with timing, device-wide synchronisation,
// host clocks, triton.testing.do_bench), in Python or in C++ host code.
#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"

#include <set>

namespace kaudit::analyzer {
namespace {

using rules::Category;
using rules::Confidence;

const CheckInfo kInfo{
    "self-timing",
    Category::benchmark_aware,
    Confidence::high,
    kPython | kCxx,
    "the submission times itself on the path the benchmark measures",
    "Code reached from the model's forward (or C++ host code of an extension it calls) reads a clock or "
    "times GPU work itself: torch.cuda.Event(enable_timing=True) and elapsed_time, time.perf_counter, "
    "time.time or time.monotonic, triton.testing.do_bench, torch.cuda.synchronize, or cudaEventElapsedTime, "
    "cudaDeviceSynchronize and std::chrono clocks in host code. A kernel has no honest reason to measure "
    "itself while it is being measured: the usual purpose is to notice the benchmark's warm-up or timed "
    "calls and behave differently in them (pick a path, autotune on the graded inputs, skip work once "
    "timing is detected), and a device-wide synchronisation also changes what the benchmark's own events "
    "measure. Timing code that only runs under `if __name__ == \"__main__\":` or in helpers forward never "
    "calls is not reported."
    "\n\n**Confidence.** High: forward's path creates timing CUDA events, reads elapsed_time, reads "
    "a host clock or runs a benchmarking helper (triton.testing.do_bench), so the submission "
    "measures itself while it is measured; benchmark-aware, confirmed by the trace's timer reads. "
    "Medium: forward's path synchronizes the device, the usual first step of timing oneself. Low: the "
    "timing runs only in a branch that fills a table by key (`if key not in table: ... table[key] = ...`), "
    "once per key, as first-call tuning keyed on shapes does (honest: DESIGN 4.3); a run settles it, since "
    "only timer reads inside timed calls confirm it. Timing that forward does not reach is not reported. Clean "
    "counter-example: a "
    "`__main__` block that times the model with do_bench: not reported, it never runs under the "
    "harness.",
    "Open the line and follow what is done with the measured time: if a branch, a cache or a choice of "
    "kernel depends on it, the submission behaves differently under the timer. Run the submission with "
    "kaudit's fresh and bench modes and compare the kernels launched per call; a synchronisation alone "
    "shows up as host time between the benchmark's events."};

const std::set<std::string, std::less<>> kHostClocks = {
    "time.perf_counter",    "time.perf_counter_ns", "time.time",          "time.time_ns",
    "time.monotonic",       "time.monotonic_ns",    "time.process_time",  "time.process_time_ns",
    "time.thread_time",     "time.thread_time_ns",  "time.clock_gettime", "time.clock_gettime_ns",
    "timeit.default_timer", "datetime.datetime.now"};

const std::set<std::string, std::less<>> kEventClasses = {"torch.cuda.Event", "torch.cuda.streams.Event", "torch.Event",
                                                          "torch.cuda.event.Event"};

// Whether `n` runs only in a branch that fills a table by key (`if key not
// in table:` or `if table.get(key) is None:` ... `table[key] = ...`): once
// per key, as first-call tuning does (autotune, candidates timed with events
// in a shape's first call), not on every timed call.
bool once_per_key(const python::Module& m, python::Node n) {
  for (python::Node p = n.parent(); p.valid() && p.type() != "function_definition"; p = p.parent()) {
    if (p.type() != "if_statement") continue;
    // The branch is taken only for a key the table lacks: a plain `not in`
    // or `is None` test, nothing or-ed to it (`or calls % 8 == 0` re-tunes).
    const python::Node cond = p.field("condition");
    if (!cond.valid() || cond.type() != "comparison_operator") continue;
    const auto ops = cond.operator_tokens();
    if (ops.size() != 1 || (ops[0] != "not in" && ops[0] != "is")) continue;
    if (ops[0] == "is" && cond.named_children().back().type() != "none") continue;
    bool fills = false;
    m.walk(p.field("consequence"), [&](python::Node x) {
      if (x.type() == "assignment" && x.field("left").valid() && x.field("left").type() == "subscript") fills = true;
      return !fills;
    });
    if (fills) return true;
  }
  return false;
}

class SelfTimingCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (s.python) run_python(*s.python, sink);
    for (const auto& unit : s.cxx)
      if (unit.file && unit.facts) run_cxx(*unit.file, *unit.facts, sink);
  }

 private:
  static void run_python(const python::Module& m, FindingSink& sink) {
    for (const auto& c : m.calls()) {
      if (!m.on_forward_path(c.function_index)) continue;
      const std::string& q = c.qualified;
      const int line = c.node.line(), col = c.node.column();
      // Tuning once per key is honest where the key is a shape, and a
      // per-call key makes the trace's timer reads in timed calls confirm it:
      // a low lead, for the run to settle.
      const bool once = once_per_key(m, c.node);
      auto report = [&](const std::string& message, const std::string& what, Confidence conf = Confidence::high) {
        sink.report(kInfo, m.file(), line, col,
                    once ? message + " It runs only where a table has no entry for its key yet (tuning once per key)."
                         : message,
                    what, once ? Confidence::low : conf);
      };
      if (kEventClasses.count(q)) {
        if (patterns::is_true_literal(c.node.keyword_arg("enable_timing")))
          report("The forward path creates a timing CUDA event (" + q +
                     "(enable_timing=True)), so the submission can measure its own GPU time while the "
                     "benchmark measures it.",
                 q);
        continue;
      }
      if (c.method == "elapsed_time" || q.ends_with(".elapsed_time")) {
        report(
            "The forward path reads the time between two CUDA events (elapsed_time), so the "
            "submission measures its own GPU time while the benchmark measures it.",
            "elapsed_time");
        continue;
      }
      if (kHostClocks.count(q)) {
        report("The forward path reads the host clock " + q +
                   "(), so the submission can measure its own calls and tell warm-up from timed ones.",
               q);
        continue;
      }
      if (q.starts_with("triton.testing.do_bench") || q.starts_with("torch.utils.benchmark.") ||
          q.starts_with("timeit.")) {
        report("The forward path runs the benchmarking helper " + q +
                   ", so the submission times itself while it is being timed.",
               q);
        continue;
      }
      if (q == "torch.cuda.synchronize" || q == "torch.accelerator.synchronize" ||
          q == "torch.cuda.Stream.synchronize" || q == "torch.cuda.Event.synchronize" ||
          (q.empty() && c.method == "synchronize")) {
        report("The forward path waits for the GPU (" + (q.empty() ? std::string(".synchronize()") : q + "()") +
                   "), which changes what the benchmark's own events measure and is the usual first step "
                   "of timing oneself.",
               q.empty() ? std::string("synchronize") : q, Confidence::medium);
        continue;
      }
    }
  }

  static void run_cxx(const SourceFile& file, const cxx::Facts& facts, FindingSink& sink) {
    auto name_of = [](const cxx::Call& c) -> std::string_view {
      return c.callee.empty() ? std::string_view(c.spelled) : std::string_view(c.callee);
    };
    auto is_elapsed = [](std::string_view n) {
      return n == "cudaEventElapsedTime" || n == "cudaEventElapsedTime_v2" || n == "cuEventElapsedTime" ||
             n == "cuEventElapsedTime_v2";
    };
    bool has_elapsed = false;
    for (const auto& c : facts.calls)
      if (!c.in_device_code && c.enclosing_function != "main" && (is_elapsed(c.callee) || is_elapsed(c.spelled)))
        has_elapsed = true;

    for (const auto& c : facts.calls) {
      if (c.in_device_code) continue;
      // A standalone program's main() is its own test harness, not the submission's call path.
      if (c.enclosing_function == "main") continue;
      const std::string_view n = name_of(c);
      const std::string_view sp = c.spelled;
      std::string msg;
      Confidence conf = Confidence::high;
      if (is_elapsed(n) || is_elapsed(sp)) {
        msg = "Host code reads the time between two CUDA events (" + std::string(n) +
              "), so the extension measures its own GPU time while the benchmark measures it.";
      } else if (n == "cudaDeviceSynchronize" || n == "cuCtxSynchronize" || sp == "cudaDeviceSynchronize") {
        msg = "Host code waits for the whole device (" + std::string(n) +
              "), which changes what the benchmark's own events measure and is the usual first step of timing "
              "oneself.";
        conf = Confidence::medium;
      } else if (has_elapsed && (n.starts_with("cudaEventRecord") || n.starts_with("cuEventRecord"))) {
        msg = "Host code records a CUDA event (" + std::string(n) +
              ") whose elapsed time it reads, so the extension times its own work.";
      } else if ((n.starts_with("std::chrono::") || n.starts_with("std::__1::chrono::")) && n.ends_with("::now")) {
        msg = "Host code reads the clock " + std::string(n) +
              "(), so the extension can measure its own calls and tell warm-up from timed ones.";
      } else if (n == "clock_gettime" || n == "gettimeofday" || n == "::clock_gettime" || n == "::gettimeofday") {
        msg = "Host code reads the clock " + std::string(n) +
              "(), so the extension can measure its own calls and tell warm-up from timed ones.";
      } else {
        continue;
      }
      sink.report(kInfo, file, c.line, c.column, std::move(msg), std::string(n), conf);
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_self_timing_check() { return std::make_unique<SelfTimingCheck>(); }

}  // namespace kaudit::analyzer
