// cuda-graph: CUDA graph capture or replay, from Python (torch.cuda.graph,
// CUDAGraph.replay, make_graphed_callables, torch.compile's cudagraph modes)
// or C++ (stream capture, graph instantiate and launch).
#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"

#include <regex>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "cuda-graph",
    rules::Category::benchmark_aware,
    rules::Confidence::medium,
    kPython | kCxx,
    "a CUDA graph is captured or replayed",
    "The submission captures its work into a CUDA graph and replays it (torch.cuda.CUDAGraph, "
    "torch.cuda.graph, make_graphed_callables, torch.compile with mode=\"reduce-overhead\", "
    "cudaStreamBeginCapture, cudaGraphLaunch, cuGraphLaunch). A replay skips the CPU launch overhead, which "
    "is real work a caller would pay, and a graph bakes in the device addresses it was captured with: it is "
    "right only while the benchmark keeps handing over the very same input tensors. When the capture or "
    "replay is guarded by, or stored under, data_ptr(), id() or another identity of the inputs, the message "
    "says the graph is keyed on input pointers: fresh tensors at new addresses then either miss the cache "
    "(and the speed disappears) or, worse, replay against stale memory."
    "\n\n**Confidence.** High: never; whether a graph's speed depends on the tensors it is given "
    "is for the runtime probes. Medium: any capture or replay, keyed on the inputs' identity "
    "(data_ptr, id, _version, an `is` guard: the message says so) or on shapes. Low: C++ "
    "that only touches graph APIs without capturing. Benchmark-aware at most; the fresh and "
    "rewrite probes decide. Clean counter-example: a graph captured per (shape, dtype) over "
    "static buffers, each call copying the inputs in with copy_ and returning a clone of the "
    "static output: a medium lead that the probes clear.",
    "Open the line and find what the graph is stored under and what triggers a new capture; then compare "
    "the `bench` and `fresh` timings of `kaudit run` (a large fresh/bench ratio means the speed comes from "
    "the graph) and look for kernels with a graph id in the trace."};

bool receiver_mentions_graph(const python::Call& c) {
  Node recv = c.callee.valid() && c.callee.type() == "attribute" ? c.callee.field("object") : Node{};
  if (!recv.valid()) return false;
  std::string s(recv.text());
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s.find("graph") != std::string::npos || s == "g" || s.ends_with(".g");
}

// `r.replay()` is a graph replay when r is named like a graph or was bound
// from something named like one (g, out = self.graphs[key]).
bool receiver_is_graph(const Module& m, const python::Call& c) {
  if (receiver_mentions_graph(c)) return true;
  Node recv = c.callee.field("object");
  if (!recv.valid()) return false;
  const std::string target(recv.text());
  bool bound = false;
  m.walk([&](Node n) {
    if (bound) return false;
    if (n.type() != "assignment") return true;
    Node left = n.field("left"), right = n.field("right");
    if (!left.valid() || !right.valid()) return true;
    bool binds = left.text() == target;
    for (const auto& k : left.named_children()) binds = binds || k.text() == target;
    if (!binds) return true;
    std::string r(right.text());
    for (auto& ch : r) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (r.find("graph") != std::string::npos) bound = true;
    return true;
  });
  return bound;
}

class CudaGraphCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (s.python) run_python(*s.python, sink);
    run_cxx(s, sink);
  }

 private:
  // What makes the site keyed on input identity, or empty.
  static std::string keyed_on(const Module& m, Node site) {
    const python::FunctionDef* f = m.enclosing_function(site);
    if (!f) return {};
    auto uses = identity_uses(m, f->node);
    if (!uses.empty()) return uses.front().what + " at line " + std::to_string(uses.front().node.line());
    if (f->class_name.empty()) return {};
    for (const auto& g : m.functions()) {
      if (g.class_name != f->class_name) continue;
      auto u = identity_uses(m, g.node);
      if (!u.empty()) return u.front().what + " at line " + std::to_string(u.front().node.line());
    }
    return {};
  }

  void report_site(const Module& m, FindingSink& sink, Node at, const std::string& what,
                   const std::string& symbol) const {
    // Medium, keyed or not: a replay keyed on the inputs' identity
    // recomputes from their memory, and only the fresh and rewrite probes
    // tell a saved launch overhead from an answer that depends on the tensor.
    const std::string key = keyed_on(m, at);
    std::string msg = what;
    if (!key.empty()) msg += ", keyed on input pointers (" + key + ")";
    msg += reach_note(m.reach_of(at)) + ".";
    sink.report(kInfo, m.file(), at.line(), at.column(), msg, symbol, kInfo.confidence);
  }

  void run_python(const Module& m, FindingSink& sink) const {
    bool has_capture = false;
    for (const auto& c : m.calls()) {
      const std::string& q = c.qualified;
      if (q == "torch.cuda.graph" || q == "torch.cuda.graphs.graph" || q == "torch.cuda.make_graphed_callables" ||
          q == "torch.cuda.graphs.make_graphed_callables" || c.method == "capture_begin" ||
          c.method == "begin_capture" || last_component(q).starts_with("cudaStreamBeginCapture") ||
          last_component(q).starts_with("cuStreamBeginCapture"))
        has_capture = true;
    }
    for (const auto& c : m.calls()) {
      const std::string& q = c.qualified;
      const std::string last(last_component(q));
      if (q == "torch.cuda.graph" || q == "torch.cuda.graphs.graph") {
        report_site(m, sink, c.node, "work is captured into a CUDA graph with torch.cuda.graph", q);
      } else if (q == "torch.cuda.make_graphed_callables" || q == "torch.cuda.graphs.make_graphed_callables") {
        report_site(m, sink, c.node, "make_graphed_callables captures a callable into CUDA graphs", q);
      } else if (c.method == "capture_begin" || c.method == "begin_capture") {
        report_site(m, sink, c.node, "stream capture into a CUDA graph begins (." + c.method + "())", c.method);
      } else if (last.starts_with("cudaStreamBeginCapture") || last.starts_with("cuStreamBeginCapture")) {
        report_site(m, sink, c.node, last + " begins a CUDA graph capture", q);
      } else if (last == "cudaGraphLaunch" || last == "cuGraphLaunch") {
        report_site(m, sink, c.node, last + " replays a CUDA graph", q);
      } else if (c.method == "replay" && receiver_is_graph(m, c)) {
        report_site(m, sink, c.node,
                    "a CUDA graph is replayed (`" + one_line(c.callee.text(), 40) + "()`) instead of launching kernels",
                    "replay");
      } else if ((is_under(q, "torch.cuda.CUDAGraph") && q == "torch.cuda.CUDAGraph") && !has_capture) {
        report_site(m, sink, c.node, "a torch.cuda.CUDAGraph is created", q);
      } else if (q == "torch.compile") {
        check_compile(m, c, sink);
      }
    }
  }

  // torch.compile(mode="reduce-overhead") and friends capture CUDA graphs.
  void check_compile(const Module& m, const python::Call& c, FindingSink& sink) const {
    Node mode = c.node.keyword_arg("mode");
    if (mode.valid()) {
      auto v = m.constant_string(mode);
      if (v && (*v == "reduce-overhead" || *v == "max-autotune")) {
        report_site(m, sink, c.node, "torch.compile(mode=\"" + *v + "\") replays CUDA graphs", "torch.compile");
        return;
      }
    }
    Node options = c.node.keyword_arg("options");
    if (options.valid() && options.text().find("cudagraphs") != std::string_view::npos &&
        options.text().find("True") != std::string_view::npos)
      report_site(m, sink, c.node, "torch.compile with cudagraphs enabled in its options replays CUDA graphs",
                  "torch.compile");
  }

  void run_cxx(const Submission& s, FindingSink& sink) const {
    static const std::regex primary(
        R"(^(cudaStreamBeginCapture|cuStreamBeginCapture|cudaGraphLaunch|cuGraphLaunch|cudaGraphInstantiate|cuGraphInstantiate|cudaGraphCreate|cuGraphCreate)\w*$)");
    static const std::regex any_graph(R"(^(cudaGraph|cuGraph|cudaStreamBeginCapture|cuStreamBeginCapture)\w*$)");
    for (const auto& u : s.cxx) {
      if (!u.facts || !u.file) continue;
      bool any_primary = false;
      const cxx::Call* first_other = nullptr;
      for (const auto& c : u.facts->calls) {
        std::string callee = c.callee.starts_with("::") ? c.callee.substr(2) : c.callee;
        if (std::regex_match(callee, primary)) {
          any_primary = true;
          std::string what = callee.find("Capture") != std::string::npos ? " begins a CUDA graph capture"
                             : callee.find("Launch") != std::string::npos ? " replays a CUDA graph"
                             : callee.find("Instantiate") != std::string::npos
                                 ? " instantiates a CUDA graph for replay"
                                 : " builds a CUDA graph";
          sink.report(kInfo, *u.file, c.line, c.column,
                      callee + what + (c.enclosing_function.empty() ? "" : " in " + c.enclosing_function) + ".",
                      callee);
        } else if (!first_other && std::regex_match(callee, any_graph)) {
          first_other = &c;
        }
      }
      if (!any_primary && first_other)
        sink.report(kInfo, *u.file, first_other->line, first_other->column,
                    first_other->callee + " works with a CUDA graph.", first_other->callee, rules::Confidence::low);
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_cuda_graph_check() { return std::make_unique<CudaGraphCheck>(); }

}  // namespace kaudit::analyzer
