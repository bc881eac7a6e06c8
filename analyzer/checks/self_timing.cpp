// self-timing: the submission measures its own speed on the path the
// benchmark times (CUDA events with timing, device-wide synchronisation,
// host clocks, triton.testing.do_bench), in Python or in C++ host code.
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/factories.h"

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
    "Medium: forward's path synchronizes the device, the usual first step of timing oneself. Low: "
    "never; timing that forward does not reach is not reported. Clean counter-example: a "
    "`__main__` block that times the model with do_bench: not reported, it never runs under the "
    "harness.",
    "Open the line and follow what is done with the measured time: if a branch, a cache or a choice of "
    "kernel depends on it, the submission behaves differently under the timer. Run the submission with "
    "kaudit's fresh and bench modes and compare the kernels launched per call; a synchronisation alone "
    "shows up as host time between the benchmark's events."};

const std::set<std::string, std::less<>> kHostClocks = {
    "time.perf_counter", "time.perf_counter_ns", "time.time",         "time.time_ns",
    "time.monotonic",    "time.monotonic_ns",    "time.process_time", "time.process_time_ns",
    "time.thread_time",  "time.thread_time_ns",  "time.clock_gettime", "time.clock_gettime_ns",
    "timeit.default_timer", "datetime.datetime.now"};

const std::set<std::string, std::less<>> kEventClasses = {"torch.cuda.Event", "torch.cuda.streams.Event",
                                                          "torch.Event", "torch.cuda.event.Event"};

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
      if (kEventClasses.count(q)) {
        if (patterns::is_true_literal(c.node.keyword_arg("enable_timing")))
          sink.report(kInfo, m.file(), line, col,
                     "The forward path creates a timing CUDA event (" + q +
                         "(enable_timing=True)), so the submission can measure its own GPU time while the "
                         "benchmark measures it.",
                     q);
        continue;
      }
      if (c.method == "elapsed_time" || q.ends_with(".elapsed_time")) {
        sink.report(kInfo, m.file(), line, col,
                   "The forward path reads the time between two CUDA events (elapsed_time), so the "
                   "submission measures its own GPU time while the benchmark measures it.",
                   "elapsed_time");
        continue;
      }
      if (kHostClocks.count(q)) {
        sink.report(kInfo, m.file(), line, col,
                   "The forward path reads the host clock " + q +
                       "(), so the submission can measure its own calls and tell warm-up from timed ones.",
                   q);
        continue;
      }
      if (q.starts_with("triton.testing.do_bench") || q.starts_with("torch.utils.benchmark.") ||
          q.starts_with("timeit.")) {
        sink.report(kInfo, m.file(), line, col,
                   "The forward path runs the benchmarking helper " + q +
                       ", so the submission times itself while it is being timed.",
                   q);
        continue;
      }
      if (q == "torch.cuda.synchronize" || q == "torch.accelerator.synchronize" || q == "torch.cuda.Stream.synchronize" ||
          q == "torch.cuda.Event.synchronize" || (q.empty() && c.method == "synchronize")) {
        sink.report(kInfo, m.file(), line, col,
                   "The forward path waits for the GPU (" + (q.empty() ? std::string(".synchronize()") : q + "()") +
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
