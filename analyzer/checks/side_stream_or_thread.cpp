// side-stream-or-thread: work that can run where the benchmark's timer does
// not look: side CUDA streams, host threads, other processes.
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/factories.h"

#include <set>

namespace kaudit::analyzer {
namespace {

using rules::Category;
using rules::Confidence;

const CheckInfo kInfo{
    "side-stream-or-thread",
    Category::cheat,
    Confidence::low,
    kPython | kCxx,
    "work may run on a side stream, another thread or another process, out of the timer's sight",
    "The submission creates or switches to a CUDA stream of its own (torch.cuda.Stream, torch.cuda.stream(...), "
    "cudaStreamCreate*, getStreamFromPool), or starts host threads or processes (threading, concurrent.futures, "
    "multiprocessing, subprocess, os.fork, std::thread, std::async, pthread_create). The offence this points "
    "at is work hidden from the timer: a benchmark that records events on the current stream does not wait "
    "for kernels queued on another stream, and work done ahead of time by a background thread or process is "
    "never measured at all. Side streams also have honest uses (overlapping independent kernels that are "
    "joined before returning), so a stream alone is of low confidence and a thread or process of medium; "
    "the trace decides: kernels that run outside the timed interval, or on a stream the call did not join, "
    "make it a cheat."
    "\n\n**Confidence.** Medium: host threads, processes or executors (a threading.Thread subclass, "
    "concurrent.futures, multiprocessing, run_in_executor). Low: a side CUDA stream created or "
    "switched to, which has honest uses (independent kernels overlapped and joined before "
    "returning). High: never; the trace's gpu-work-outside-timing and the output-not-ready probe "
    "decide. Clean counter-example: a side stream used to warm up a graph before capture, "
    "followed by `torch.cuda.current_stream().wait_stream(s)`: low.",
    "Look at what runs on the stream or thread and whether the call waits for it before returning "
    "(stream.wait_stream, event.wait, thread.join). Then run kaudit with the tracer: its per-call report "
    "lists the streams used and any GPU work that ran outside the timed interval."};

// Python callables that create a stream or make one current.
// ExternalStream is left out: it wraps a stream that exists already, in
// practice torch.cuda.current_stream().cuda_stream handed to CuPy.
const std::set<std::string, std::less<>> kPyStreams = {
    "torch.cuda.Stream", "torch.cuda.streams.Stream", "torch.cuda.stream", "torch.cuda.StreamContext",
    "torch.cuda.set_stream", "torch.Stream", "cupy.cuda.Stream", "cupy.cuda.stream.Stream"};

// Prefixes of Python callables that start threads or processes.
constexpr std::string_view kPyThreadPrefixes[] = {
    "threading.Thread", "threading.Timer", "_thread.start_new", "concurrent.futures.", "multiprocessing.",
    "torch.multiprocessing.", "subprocess.", "os.fork", "os.system", "os.popen", "os.spawn", "os.exec",
    "os.posix_spawn", "pty.spawn", "asyncio.to_thread", "asyncio.create_subprocess"};

bool is_thread_start(std::string_view q) {
  for (auto p : kPyThreadPrefixes)
    if (q.starts_with(p)) return true;
  return false;
}

std::string strip_inline_namespaces(std::string s) {
  for (std::string_view ns : {"std::__1::", "std::__cxx11::", "std::_V2::"}) {
    size_t at;
    while ((at = s.find(ns)) != std::string::npos) s.replace(at, ns.size(), "std::");
  }
  return s;
}

class SideStreamOrThreadCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (s.python) run_python(*s.python, sink);
    for (const auto& unit : s.cxx)
      if (unit.file && unit.facts) run_cxx(*unit.file, *unit.facts, sink);
  }

 private:
  static void run_python(const python::Module& m, FindingSink& sink) {
    // A class that derives from threading.Thread or multiprocessing.Process runs its body elsewhere.
    for (const auto& cls : m.classes())
      for (const auto& b : cls.bases)
        if (is_thread_start(b))
          sink.report(kInfo, m.file(), cls.node.line(), cls.node.column(),
                     "The class " + cls.name + " derives from " + b +
                         ", so its work runs on another thread or process that the benchmark's timer does not "
                         "wait for.",
                     b, Confidence::medium);
    for (const auto& c : m.calls()) {
      const std::string& q = c.qualified;
      if (q.empty()) {
        // `loop.run_in_executor(...)` and `pool.submit(...)` start work elsewhere whatever the receiver.
        if (c.method == "run_in_executor")
          sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                     "run_in_executor hands work to another thread or process that the benchmark's timer does "
                     "not wait for.",
                     "run_in_executor", Confidence::medium);
        continue;
      }
      if (kPyStreams.count(q)) {
        const bool context = q == "torch.cuda.stream" || q == "torch.cuda.StreamContext" || q == "torch.cuda.set_stream";
        sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                   context ? "Work is queued on a side CUDA stream (" + q +
                                 "); a benchmark that records its events on the current stream does not wait for it."
                           : "A side CUDA stream is created (" + q +
                                 "); kernels queued on it can run outside the interval the benchmark's timer measures.",
                   q, Confidence::low);
        continue;
      }
      if (is_thread_start(q)) {
        sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                   "Work is started on another thread or process (" + q +
                       "); what it does is not measured by the benchmark's timer.",
                   q, Confidence::medium);
      }
    }
  }

  static void run_cxx(const SourceFile& file, const cxx::Facts& facts, FindingSink& sink) {
    for (const auto& c : facts.calls) {
      if (c.in_device_code) continue;
      const std::string n = strip_inline_namespaces(c.callee.empty() ? c.spelled : c.callee);
      const std::string_view sp = c.spelled;
      auto is = [&](std::string_view want) { return n == want || sp == want || n == "::" + std::string(want); };
      if (is("cudaStreamCreate") || is("cudaStreamCreateWithFlags") || is("cudaStreamCreateWithPriority") ||
          is("cuStreamCreate") || is("cuStreamCreateWithPriority") || n.ends_with("::getStreamFromPool") ||
          sp == "getStreamFromPool") {
        sink.report(kInfo, file, c.line, c.column,
                   "A side CUDA stream is created (" + n +
                       "); kernels queued on it can run outside the interval the benchmark's timer measures.",
                   n, Confidence::low);
      } else if (n == "std::thread::thread" || n == "std::jthread::jthread" || n == "std::async" ||
                 is("pthread_create") || is("fork") || is("vfork") || is("popen") || is("system") ||
                 n == "std::system" || is("posix_spawn") || is("posix_spawnp") ||
                 n.starts_with("execv") || n.starts_with("execl")) {
        sink.report(kInfo, file, c.line, c.column,
                   "Host code starts another thread or process (" + n +
                       "); what it does is not measured by the benchmark's timer.",
                   n, Confidence::medium);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_side_stream_or_thread_check() { return std::make_unique<SideStreamOrThreadCheck>(); }

}  // namespace kaudit::analyzer
