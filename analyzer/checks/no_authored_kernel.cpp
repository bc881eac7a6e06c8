// no-authored-kernel: nothing the submission wrote runs when forward is
// called: no @triton.jit (or other kernel DSL) function is launched, no
// extension with a __global__ kernel is called, no CuPy raw kernel is
// launched. The work is then done by library code.
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/factories.h"

#include <map>
#include <regex>
#include <set>

namespace kaudit::analyzer {
namespace {

using python::Node;
using rules::Category;
using rules::Confidence;

const CheckInfo kInfo{
    "no-authored-kernel",
    Category::cheat,
    Confidence::medium,
    kPython,
    "no kernel written in the submission is reached from forward",
    "Nothing authored runs when the model's forward is called: no @triton.jit function (or numba.cuda.jit, "
    "CuTe or TileLang kernel) is launched on the forward path, no function of a load_inline extension whose "
    "sources define a __global__ kernel is called, and no CuPy RawKernel, RawModule function or "
    "ElementwiseKernel is launched. A kernel benchmark grades the submission's own kernels; a forward that "
    "only calls PyTorch (or kernels that are defined but never launched, or launched only in __init__) hands "
    "the core math to library code, which is the cheat even when no individual call is banned. The finding "
    "points at the model class's forward, or at the whole file (line 0) when there is no model class and "
    "nothing authored at all. Calls the analyzer cannot follow (an extension loaded from files, a custom "
    "torch.ops namespace, ctypes) count as authored, so this check errs towards silence. So does a call "
    "through anything that holds an authored kernel or extension function: a dispatch table, a tuple of "
    "kernels, a variable a conditional picks a kernel into, an object built around one, getattr on an "
    "extension, a function that builds and returns one (a lazily built extension); and forward reaches "
    "the methods of a torch.autograd.Function it applies and the model's own override of a method an "
    "inherited forward calls."
    "\n\n**Confidence.** Medium: no kernel written in the submission (a Triton kernel, embedded "
    "CUDA, a CuPy or NVRTC module, its own extension) is reached from forward; only libraries "
    "compute. It stays a lead: whether library delegation is allowed is the problem's policy, and "
    "the runtime share of GPU time in authored kernels decides. High and low: never. Clean "
    "counter-example: a forward that launches a @triton.jit kernel through a helper two calls "
    "deep: not reported.",
    "Read forward and follow its calls: each should end in a kernel launch the submission defines. With the "
    "tracer, the timed calls' kernels should come from the submission's Triton launcher or extension, not "
    "from libtorch_cuda or cuBLAS."};

// Decorators of kernel DSLs whose functions are authored GPU kernels.
bool is_kernel_decorator(std::string_view d) {
  static const std::regex re(
      R"(^(triton\.(jit|autotune|heuristics)|numba\.cuda\.jit|cuda\.jit|cutlass\.cute\.(kernel|jit)|cute\.(kernel|jit)|tilelang\.(jit|prim_func)|tilelang\.language\.prim_func|helion\.kernel|warp\.kernel|taichi\.kernel|cupyx\.jit\.rawkernel))");
  return std::regex_search(std::string(d), re);
}

// Callables whose result is a handle on code the submission compiled itself.
bool produces_extension(std::string_view q, std::string_view method) {
  const std::string_view last = patterns::last_component(q.empty() ? method : q);
  static const std::set<std::string_view> names = {
      "load_inline", "load", "RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel", "get_function",
      "CDLL", "LoadLibrary", "SourceModule", "Program", "cuModuleLoadData", "cuModuleGetFunction", "compile"};
  if (!names.count(last)) return false;
  if (q.empty()) return method == "get_function" || method == "LoadLibrary" || method == "get_kernel";
  return q.starts_with("torch.utils.cpp_extension.") || q.starts_with("cupy.") || q.starts_with("cupyx.") ||
         q.starts_with("ctypes.") || q.starts_with("pycuda.") || q.starts_with("cuda.") || q.starts_with("numba.") ||
         q.starts_with("nvrtc") || q.starts_with("cuda_python");
}

class NoAuthoredKernelCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (!s.python) return;
    const python::Module& m = *s.python;
    const python::ClassDef* model = m.model_class();
    const python::FunctionDef* fwd = m.model_forward();
    if (authored_reached(s, m)) return;
    if (!model) {
      sink.report(kInfo, m.file(), 0, 0,
                  "The file has no model class and launches no kernel of its own (no @triton.jit launch, no "
                  "extension with a __global__ kernel, no CuPy raw kernel).");
      return;
    }
    const Node at = fwd ? fwd->node : model->node;
    const std::string who = model->name + (fwd ? ".forward" : "");
    sink.report(kInfo, m.file(), at.line(), at.column(),
                who + " reaches no kernel written in the submission (no @triton.jit launch, no extension with a "
                      "__global__ kernel, no CuPy raw kernel), so library code does the work.",
                who);
  }

 private:
  static bool has_kernel(const Submission& s, const python::EmbeddedSource& e) {
    for (const auto& u : s.cxx)
      if (u.file == &e.file && u.facts && u.facts->parsed) {
        if (!u.facts->kernels.empty()) return true;
        break;
      }
    return e.file.text.find("__global__") != std::string::npos;
  }

  static bool authored_reached(const Submission& s, const python::Module& m) {
    const auto& fns = m.functions();

    std::set<std::string> kernels;  // names of DSL kernels defined here
    for (const auto& f : fns) {
      bool k = f.is_triton_kernel;
      for (const auto& d : f.decorators) k = k || is_kernel_decorator(d);
      if (k) kernels.insert(f.name);
    }

    // Extension handles: `_ext = load_inline(...)`, `self.k = cupy.RawKernel(...)`, and
    // functions that build and return one (`def _ext(): return load_inline(...)`).
    // Each maps to whether the code behind it defines a kernel (or cannot be seen).
    std::map<std::string, bool> handles;
    std::set<std::string> exported;  // load_inline(functions=[...]) and PYBIND11 m.def("...") names
    const auto& embedded = m.embedded_sources();
    auto behind = [&](Node call, std::string_view q) {
      bool any_source = false, kernel = false;
      for (const auto& e : embedded)
        if (call.contains(e.origin) || e.origin == call) {
          any_source = true;
          if (!e.complete || has_kernel(s, e)) kernel = true;
        }
      // Sources we cannot read (files, a non-constant string) or CuPy's own kernel kinds count as authored.
      if (!any_source) return true;
      if (q.find("cupy") != std::string_view::npos) return true;
      return kernel;
    };
    for (const auto& c : m.calls()) {
      if (!produces_extension(c.qualified, c.method)) continue;
      const bool authored = behind(c.node, c.qualified);
      if (Node fl = c.node.keyword_arg("functions"); fl.valid())
        m.walk(fl, [&](Node n) {
          if (n.type() == "string")
            if (auto v = m.constant_string(n)) exported.insert(*v);
          return n.type() != "string";
        });
      // Where the handle goes: an assignment, or the return value of a builder function.
      Node p = c.node.parent();
      while (p.valid() && (p.type() == "parenthesized_expression" || p.type() == "attribute" || p.type() == "call" ||
                           p.type() == "argument_list"))
        p = p.parent();
      if (p.valid() && p.type() == "assignment") {
        Node left = p.field("left");
        if (left.valid()) handles[std::string(left.text())] = handles[std::string(left.text())] || authored;
      } else if (p.valid() && p.type() == "return_statement" && c.function_index >= 0) {
        const auto& f = fns[c.function_index];
        handles[f.name + "("] = handles[f.name + "("] || authored;
        handles["self." + f.name + "("] = handles["self." + f.name + "("] || authored;
      }
    }
    for (const auto& e : embedded) {
      static const std::regex def_re(R"re(\.def\(\s*"([A-Za-z_][A-Za-z0-9_]*)")re");
      if (!has_kernel(s, e) && e.kind.find("cpp_sources") == std::string::npos) continue;
      for (auto it = std::sregex_iterator(e.file.text.begin(), e.file.text.end(), def_re); it != std::sregex_iterator(); ++it)
        exported.insert((*it)[1].str());
    }
    // Handles assigned from another handle (`self.ext = _ext`) inherit it.
    m.walk([&](Node n) {
      if (n.type() != "assignment") return true;
      Node left = n.field("left"), right = n.field("right");
      if (left.valid() && right.valid() && handles.count(std::string(right.text())))
        handles[std::string(left.text())] = handles[std::string(right.text())];
      return true;
    });

    bool any_embedded_kernel = false;
    for (const auto& e : embedded) any_embedded_kernel = any_embedded_kernel || has_kernel(s, e);

    const std::set<std::string> held = names_holding_kernels(m, kernels, handles);

    for (const auto& c : m.calls()) {
      if (!m.on_forward_path(c.function_index)) continue;
      if (launches_kernel(c.callee, kernels, m)) return true;
      if (mentions(m, c.callee, held)) return true;
      const std::string callee(c.callee.valid() ? c.callee.text() : std::string_view{});
      for (const auto& [h, authored] : handles) {
        if (!authored) continue;
        const bool builder = h.ends_with("(");
        if (callee == h || callee.starts_with(h + ".") || (builder && callee.starts_with(h))) return true;
      }
      if (!c.method.empty() && exported.count(c.method) && !c.qualified.starts_with("torch.") && any_embedded_kernel)
        return true;
      // cuda-python / ctypes launches of a function the submission loaded.
      const std::string_view last = patterns::last_component(c.qualified.empty() ? std::string_view(callee) : std::string_view(c.qualified));
      if (last == "cuLaunchKernel" || last == "cuLaunchKernelEx" || last == "cudaLaunchKernel" ||
          last == "cuLaunchCooperativeKernel")
        return true;
      // A custom op registered by an extension the analyzer cannot see.
      if (c.qualified.starts_with("torch.ops.") && !c.qualified.starts_with("torch.ops.aten.") &&
          !c.qualified.starts_with("torch.ops.prims.") && !c.qualified.starts_with("torch.ops.quantized."))
        return true;
    }
    return false;
  }

  // Whether `e` mentions one of `names`: a plain name, or a whole attribute
  // chain (self._op), never the attribute part alone.
  static bool mentions(const python::Module& m, Node e, const std::set<std::string>& names) {
    if (!e.valid() || names.empty()) return false;
    bool hit = false;
    m.walk(e, [&](Node n) {
      if (hit) return false;
      const auto t = n.type();
      if (t == "attribute" && names.count(std::string(n.text()))) hit = true;
      if (t == "identifier" && names.count(std::string(n.text()))) {
        Node p = n.parent();
        hit = !(p.valid() && p.type() == "attribute" && p.field("attribute") == n);
      }
      return !hit;
    });
    return hit;
  }

  // The names that hold an authored kernel or extension, or something built
  // from one: a dispatch table of extension functions, a tuple of kernels, a
  // variable a conditional picks a kernel into, an object built around one,
  // a function that returns one (a lazily built extension). Followed through
  // assignments and returns to a fixed point; a call on the forward path
  // through any of them counts as authored (errs towards silence).
  static std::set<std::string> names_holding_kernels(const python::Module& m, const std::set<std::string>& kernels,
                                                     const std::map<std::string, bool>& handles) {
    std::set<std::string> held(kernels.begin(), kernels.end());
    for (const auto& [h, authored] : handles)
      if (authored && !h.ends_with("(")) held.insert(h);
    const auto& fns = m.functions();
    for (size_t round = 0; round < 8 && held.size() < 256; ++round) {
      const size_t before = held.size();
      m.walk([&](Node n) {
        const auto t = n.type();
        if (t == "assignment") {
          Node left = n.field("left"), right = n.field("right");
          if (left.valid() && (left.type() == "identifier" || left.type() == "attribute") && mentions(m, right, held))
            held.insert(std::string(left.text()));
        } else if (t == "return_statement" && mentions(m, n, held)) {
          const python::FunctionDef* inner = nullptr;  // the function the return belongs to
          for (const auto& f : fns)
            if (f.node.valid() && f.node.contains(n) && (!inner || inner->node.contains(f.node))) inner = &f;
          if (inner) held.insert(inner->name);
        }
        return true;
      });
      if (held.size() == before) break;
    }
    return held;
  }

  // kernel[grid](...), kernel[grid, block](...), kernel.run(...), wrap_triton(kernel)[grid](...).
  static bool launches_kernel(Node callee, const std::set<std::string>& kernels, const python::Module& m) {
    if (!callee.valid() || kernels.empty()) return false;
    Node target = callee;
    if (callee.type() == "subscript") target = callee.field("value");
    else if (callee.type() == "attribute") target = callee.field("object");
    if (!target.valid()) return false;
    if (callee.type() == "identifier") return kernels.count(std::string(callee.text())) > 0;
    bool hit = false;
    m.walk(target, [&](Node n) {
      if (hit) return false;
      if (n.type() == "identifier" && kernels.count(std::string(n.text()))) {
        // The attribute name of `self.kernel` is an identifier too; only plain names count.
        Node p = n.parent();
        if (!(p.valid() && p.type() == "attribute" && p.field("attribute") == n)) hit = true;
      }
      return true;
    });
    return hit;
  }
};

}  // namespace

std::unique_ptr<Check> make_no_authored_kernel_check() { return std::make_unique<NoAuthoredKernelCheck>(); }

}  // namespace kaudit::analyzer
