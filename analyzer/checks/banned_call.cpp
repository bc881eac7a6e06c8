// banned-call: the problem's banned PyTorch ops, Tensor methods, the `@`
// operator, torch.ops.aten overloads and banned C++ library symbols, found
// through every alias form the Python front resolves.
#include "analyzer/checks/factories.h"
#include "analyzer/checks/fallback_path.h"
#include "analyzer/checks/liveness.h"
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/value_flow.h"

#include <algorithm>
#include <regex>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "banned-call",
    rules::Category::cheat,
    rules::Confidence::high,
    kPython | kCxx,
    "a library op that the problem bans does the core math",
    "The submission calls an operation that the problem (or, without a problem, kaudit's default rule pack) "
    "bans because it would do the very computation the kernel is supposed to implement: torch.matmul, "
    "F.linear, softmax, topk/sort, scaled_dot_product_attention, a Tensor method such as x.matmul() or "
    "x.topk(), the `@` operator, a torch.ops.aten overload, an nn.Linear module that is called, or from "
    "C++/CUDA a cuBLAS, cuBLASLt, cuDNN, ATen or thrust/cub sort symbol. A problem that names no forbidden "
    "ops (KernelBench's one-file problems) bans, as leads, the ops its own reference's forward computes with "
    "(F.conv2d, an nn.Conv2d it calls, torch.relu, x.sum(), the `@` operator; a matrix product under each of "
    "its spellings: `@`, torch.matmul, torch.mm, torch.bmm, x.matmul()), leaving out shape, dtype and "
    "allocation plumbing (view, to, empty, cat...): the reference's own op around a fig-leaf kernel is the "
    "library doing the work. Aliases are followed (`from torch "
    "import matmul as mm`, `mm = torch.matmul`, `getattr(torch, \"mat\" + \"mul\")`, macros such as "
    "cublasSgemm for cublasSgemm_v2) and the message names the path that led to the op. A call that is not "
    "reachable from forward is still reported, with low confidence: the trace decides whether it ran during "
    "timed calls."
    "\n\n**Confidence.** High: the banned op runs on forward's path and its result can become part "
    "of the output, through any alias. Medium: it runs once, in __init__ or at import (a weight "
    "transformed by the library is still library math), or only in a fallback for a failed kernel "
    "(an except handler, the code after `if self.use_fast:` whose try returns, a helper called only "
    "there), where the trace decides whether it ran; and any call of an op banned only because the "
    "problem's reference computes with it (a problem with no forbidden list). Low: it is unreachable from forward, only "
    "behind a switch that is off in a graded run (`if TUNING:` with TUNING read from an unset "
    "variable), only for tensors off the GPU (`if not x.is_cuda:`), only under `if __name__ == "
    "\"__main__\":` or in a def nothing running calls, or its result is only compared with the kernel's (an autotuner's or a "
    "self-check's oracle); a constructed nn.Linear that forward never calls. Clean "
    "counter-example: an autotuner whose `_validate(cfg)` computes `torch.topk(x, k)` and keeps a "
    "configuration only if `torch.equal` says the kernel agrees: low, the output always comes "
    "from the kernel.",
    "Open the line and follow the alias the message names back to the banned op; then run `kaudit run` and "
    "look in the trace for the library's kernels (nvjet_*, cutlass, cudnn, at::native sort/topk kernels) "
    "during the timed calls."};

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// Spellings of the same op that PyTorch exposes under other names.
std::string canonical(const std::string& q) {
  static const std::pair<const char*, const char*> kMap[] = {
      {"torch._C._VariableFunctions.", "torch."}, {"torch._VF.", "torch."},
      {"torch.functional.", "torch."},           {"torch._C._nn.", "torch.nn.functional."},
      {"torch.special.", "torch."},              {"torch.nn.modules.linear.", "torch.nn."},
      {"torch._C._linalg.linalg_", "torch.linalg."}};
  for (const auto& [from, to] : kMap)
    if (q.rfind(from, 0) == 0) return to + q.substr(std::string_view(from).size());
  return q;
}

bool contains_str(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool is_matmul_dunder(std::string_view m) {
  return m == "__matmul__" || m == "__rmatmul__" || m == "__imatmul__";
}

// The banned op `q` amounts to, or empty.
std::string banned_python(const rules::RulePack& r, const std::string& q) {
  if (q.empty()) return {};
  const std::string c = canonical(q);
  for (const auto& op : r.banned_python_ops)
    if (is_under(q, op) || is_under(c, op)) return op;
  if (is_under(q, "torch.ops.aten")) {
    // torch.ops.aten.X[.overload]: banned when torch.X, F.X or Tensor.X is.
    std::string rest = q.substr(std::string_view("torch.ops.aten.").size());
    std::string x = rest.substr(0, rest.find('.'));
    for (const std::string& twin : {"torch." + x, "torch.nn.functional." + x})
      if (contains_str(r.banned_python_ops, twin)) return twin;
    if (contains_str(r.banned_tensor_methods, x)) return "torch.Tensor." + x;
  }
  if (is_under(q, "torch.Tensor")) {
    std::string x(last_component(q));
    if (contains_str(r.banned_tensor_methods, x)) return "torch.Tensor." + x;
    if (r.matmul_operator_banned && is_matmul_dunder(x)) return "torch.Tensor." + x;
  }
  if (r.matmul_operator_banned && (q == "operator.matmul" || q == "operator.imatmul" || q == "operator.__matmul__" ||
                                   q == "operator.__imatmul__"))
    return q;
  // Python bindings of the libraries themselves (cupy.cuda.cublas.sgemm, nvmath's cublas, ...).
  if (!is_under(q, "torch.backends")) {
    static const std::regex lib(R"((^|\.)(cublas|cublasLt|cublaslt|cudnn)(\.|$))");
    if (std::regex_search(q, lib)) return q;
  }
  return {};
}

std::string why_banned(const rules::RulePack& r, const std::string& op) {
  if (contains_str(r.reference_ops, op))
    return "which the problem's reference computes with (the problem names no forbidden ops: the reference's own op "
           "around a kernel of the submission's is the library doing the work, if the trace shows it ran)";
  for (std::string f : r.problem_forbidden) {
    if (f.rfind("F.", 0) == 0) f = "torch.nn.functional." + f.substr(2);
    if (f == op || (op.rfind("torch.Tensor.", 0) == 0 && last_component(f) == last_component(op)))
      return "which this problem forbids";
  }
  return "which the rule pack bans";
}

// Whether the receiver of `x.sort(...)` is a Python list rather than a tensor.
bool looks_like_list_method(const Module& m, const python::Call& c) {
  if (c.node.keyword_arg("key").valid() || c.node.keyword_arg("reverse").valid()) return true;
  Node recv = c.callee.field("object");
  if (!recv.valid()) return false;
  const auto t = recv.type();
  if (t == "list" || t == "list_comprehension") return true;
  if (t != "identifier") return false;
  // A local bound to a list literal or list(...) in the same function.
  const python::FunctionDef* f = m.enclosing_function(c.node);
  bool is_list = false;
  m.walk(f ? f->node : m.root(), [&](Node n) {
    if (is_list) return false;
    if (n.type() != "assignment") return true;
    Node left = n.field("left"), right = n.field("right");
    if (left.valid() && right.valid() && left.text() == recv.text()) {
      const auto rt = right.type();
      if (rt == "list" || rt == "list_comprehension" ||
          (rt == "call" && (right.field("function").text() == "list" || right.field("function").text() == "sorted")))
        is_list = true;
    }
    return true;
  });
  return is_list;
}

// Whether `recv.method(...)` calls the submission's own code rather than a
// Tensor: self.matmul() of a class that defines matmul, or ext.matmul() of an
// extension built with load_inline.
bool receiver_is_own_code(const Module& m, const Node& recv, const std::string& method) {
  if (!recv.valid()) return false;
  if (recv.text() == "self" || recv.text() == "cls")
    for (const auto& f : m.functions())
      if (f.name == method && !f.class_name.empty()) return true;
  bool own = false;
  const std::string target(recv.text());
  m.walk([&](Node n) {
    if (own) return false;
    if (n.type() != "assignment") return true;
    Node left = n.field("left"), right = n.field("right");
    if (!left.valid() || !right.valid() || left.text() != target || right.type() != "call") return true;
    Node fn = right.field("function");
    auto q = fn.valid() ? m.qualified_name(fn) : std::nullopt;
    const std::string name = q ? *q : std::string(fn.valid() ? fn.text() : "");
    if (name.find("cpp_extension") != std::string::npos || name.find("load_inline") != std::string::npos ||
        name.find("RawModule") != std::string::npos || name.find("import_module") != std::string::npos)
      own = true;
    return true;
  });
  return own;
}

class BannedCallCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context& ctx, FindingSink& sink) const override {
    flow_budget_ = kFlowBudget;
    pack_ = &ctx.rules;
    if (s.python) run_python(*s.python, ctx.rules, sink);
    run_cxx(s, ctx.rules, sink);
  }

 private:
  // Following each banned value costs walks of its function; a file of
  // thousands of banned calls follows the first kFlowBudget and keeps the
  // rest at their reach's confidence. Per thread, as files may be analysed
  // on several threads by one check object.
  static constexpr int kFlowBudget = 48;
  static inline thread_local int flow_budget_ = 0;
  static inline thread_local const rules::RulePack* pack_ = nullptr;  // the pack of the file being analysed

  static rules::Confidence confidence_for(Reach r) {
    switch (r) {
      case Reach::unreachable: return rules::Confidence::low;
      case Reach::construction:
      case Reach::module_level: return rules::Confidence::medium;
      default: return rules::Confidence::high;
    }
  }

  // Reachability from forward with the conditions on the way: a call that
  // only runs behind a switch that is off in a graded run, or whose result
  // is only compared with the kernel's (an autotuner's or a self-check's
  // oracle), is a low note; the trace says whether it ran while timed.
  void report_py(const Module& m, FindingSink& sink, Node at, std::string message,
                 std::string symbol, std::optional<rules::Confidence> conf = std::nullopt) const {
    Reach r = m.reach_of(at);
    const Liveness live = liveness_of(m, at);
    message += live == Liveness::runs ? reach_note(r) : liveness_note(live);
    std::optional<rules::Confidence> c = conf ? conf : std::optional(confidence_for(r));
    if (flow_budget_-- <= 0) {
      // out of budget: the reach alone decides, as for any call
    } else if (Node guard = dead_branch_guard(m, at); guard.valid()) {
      message += ", but only behind `" + one_line(guard.text(), 40) +
                 "`, which is off in a graded run (a tuning or debug switch nobody sets)";
      c = rules::Confidence::low;
    } else if (at.type() == "call" || at.type() == "binary_operator") {
      const ValueFlow flow = follow_value(m, at, ThroughCalls::all);
      if (flow.only_checked() && flow.checked) {
        message += ", but its result is only compared with another (a self-check or an autotuner's oracle), "
                   "never part of what forward returns";
        c = rules::Confidence::low;
      }
    }
    // The reference's own op, on a problem that names none, is a lead.
    if (c == rules::Confidence::high && pack_ && contains_str(pack_->reference_ops, symbol))
      c = rules::Confidence::medium;
    if (c != rules::Confidence::low) {
      // Code a harness's import never runs, or a branch only CPU tensors
      // take: no graded GPU call reaches it.
      if (live != Liveness::runs) {
        c = rules::Confidence::low;
      } else if (Node guard = cpu_only_guard(m, at); guard.valid()) {
        message += ", only for tensors off the GPU (`" + one_line(guard.field("condition").text(), 40) +
                   "` at line " + std::to_string(guard.line()) + "); graded calls run on the GPU";
        c = rules::Confidence::low;
      }
    }
    if (c == rules::Confidence::high) {
      if (Node guard = fallback_guard(m, at); guard.valid()) {
        message += ", only in a fallback for when the kernel fails (line " + std::to_string(guard.line()) +
                   "): the trace shows whether it ran in graded calls";
        c = rules::Confidence::medium;
      }
    }
    sink.report(kInfo, m.file(), at.line(), at.column(), std::move(message) + ".", std::move(symbol), c);
  }

  // nn.Linear(...) stored as self.fc: is self.fc (or what holds it) called?
  std::string module_call_site(const Module& m, const python::Call& ctor) const {
    Node n = ctor.node;
    for (Node p = n.parent(); p.valid(); p = p.parent()) {
      const auto t = p.type();
      if (t == "assignment") {
        Node left = p.field("left");
        if (!left.valid()) return {};
        const std::string target(left.text());
        for (const auto& c : m.calls())
          if (c.callee.valid() && c.callee.text() == target) {
            Reach r = m.reach_of(c.node);
            if (r == Reach::forward || r == Reach::unknown) return std::to_string(c.node.line());
          }
        return {};
      }
      if (t != "argument_list" && t != "call" && t != "list" && t != "tuple" && t != "keyword_argument" &&
          t != "parenthesized_expression")
        return {};
    }
    return {};
  }

  void run_python(const Module& m, const rules::RulePack& r, FindingSink& sink) const {
    std::set<std::pair<uint32_t, uint32_t>> callees;
    for (const auto& c : m.calls()) {
      if (c.callee.valid()) callees.insert(c.callee.span());
      check_call(m, r, c, sink);
    }

    if (r.matmul_operator_banned) {
      m.walk([&](Node n) {
        const auto t = n.type();
        if (t == "binary_operator" || t == "augmented_assignment") {
          Node op = n.field("operator");
          if (op.valid() && (op.text() == "@" || op.text() == "@="))
            report_py(m, sink, n,
                      "the `" + std::string(op.text()) + "` operator is a matrix multiply (torch.matmul), " +
                          why_banned(r, std::string(op.text())),
                      std::string(op.text()));
        }
        return true;
      });
    }

    // Banned ops used as values: functools.partial(torch.mm), {"f": F.linear},
    // self.f = torch.matmul (called later through the attribute).
    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "import_statement" || t == "import_from_statement" || t == "decorator") return false;
      if (t != "attribute" && t != "identifier") return true;
      if (callees.count(n.span())) return false;
      Node parent = n.parent();
      if (parent.valid()) {
        const auto pt = parent.type();
        // `mm = torch.matmul` is an alias the front follows to the call.
        if (pt == "assignment") {
          Node left = parent.field("left");
          if (left.valid() && (left == n || left.contains(n))) return false;
          if (left.valid() && left.type() == "identifier") return false;
        }
        if (pt == "keyword_argument" && parent.field("name") == n) return false;
        if (pt == "function_definition" || pt == "class_definition" || pt == "parameters" ||
            pt == "default_parameter" || pt == "typed_parameter")
          if (parent.field("name") == n || pt == "parameters") return false;
      }
      auto q = m.qualified_name(n);
      if (!q) return true;
      std::string op = banned_python(r, *q);
      if (op.empty()) return true;
      report_py(m, sink, n,
                op + " is used as a value (`" + one_line(n.text(), 60) + "`), to be called elsewhere; " +
                    why_banned(r, op),
                op);
      return false;
    });
  }

  void check_call(const Module& m, const rules::RulePack& r, const python::Call& c, FindingSink& sink) const {
    std::string op = banned_python(r, c.qualified);
    if (!op.empty()) {
      std::string path = alias_path(m, c.callee, c.qualified);
      std::string shown = c.qualified == op ? op : c.qualified + " (" + op + ")";
      const std::string last(last_component(op));
      if (!last.empty() && is_upper(last[0])) {
        // A module class such as nn.Linear: constructing it is harmless, calling it is the offence.
        std::string called_at = module_call_site(m, c);
        std::string msg = shown + " is constructed" + (path.empty() ? "" : " (" + path + ")");
        if (!called_at.empty()) {
          msg += " and called from forward at line " + called_at + ", " + why_banned(r, op);
          report_py(m, sink, c.node, msg, op, rules::Confidence::high);
        } else {
          msg += " but never called from forward (its parameters may only be read), " + why_banned(r, op);
          report_py(m, sink, c.node, msg, op, rules::Confidence::low);
        }
        return;
      }
      report_py(m, sink, c.node,
                shown + " is called" + (path.empty() ? "" : ", " + path) + ", " + why_banned(r, op), op);
      return;
    }
    if (!c.qualified.empty()) {
      check_library_load(m, r, c, sink);
      return;
    }
    // x.matmul(y), x.topk(k): a Tensor method whatever the receiver.
    std::string method = c.method;
    std::string how;
    if (method.empty() && c.callee.valid() && c.callee.type() == "call") {
      // getattr(x, "mat" + "mul")(y)
      Node inner_fn = c.callee.field("function");
      auto args = c.callee.positional_args();
      if (inner_fn.valid() && inner_fn.text() == "getattr" && args.size() >= 2)
        if (auto name = m.constant_string(args[1])) {
          method = *name;
          how = " through `" + one_line(c.callee.text(), 60) + "`";
        }
    }
    if (method.empty()) return;
    const bool dunder = r.matmul_operator_banned && is_matmul_dunder(method);
    if (!dunder && !contains_str(r.banned_tensor_methods, method)) return;
    if (method == "sort" && looks_like_list_method(m, c)) return;
    Node recv = c.callee.type() == "attribute" ? c.callee.field("object") : Node{};
    if (receiver_is_own_code(m, recv, method)) return;
    std::string on = recv.valid() ? " on `" + one_line(recv.text(), 40) + "`" : "";
    const std::string op_name = "torch.Tensor." + method;
    report_py(m, sink, c.node,
              "the Tensor method ." + method + "()" + (dunder ? " (the `@` operator)" : "") + " is called" + on + how +
                  ", " + why_banned(r, dunder ? std::string("torch.matmul") : op_name),
              op_name);
  }

  // ctypes.CDLL("libcublasLt.so"): the banned library loaded by hand.
  void check_library_load(const Module& m, const rules::RulePack& r, const python::Call& c, FindingSink& sink) const {
    static const char* kLoaders[] = {"ctypes.CDLL", "ctypes.cdll.LoadLibrary", "ctypes.PyDLL",
                                     "ctypes.util.find_library", "ctypes.LibraryLoader", "cffi.FFI.dlopen"};
    bool loader = false;
    for (const char* l : kLoaders) loader = loader || c.qualified == l;
    if (!loader && last_component(c.qualified) != "dlopen") return;
    auto args = c.node.positional_args();
    if (args.empty()) return;
    auto name = m.constant_string(args[0]);
    if (!name) return;
    for (const std::string& lib : r.banned_libraries) {
      std::string bare = lib.rfind("lib", 0) == 0 ? lib.substr(3) : lib;
      if (name->find(lib) != std::string::npos || *name == bare) {
        report_py(m, sink, c.node,
                  "the library " + *name + " is loaded by hand through " + c.qualified + ", which the rule pack bans",
                  lib);
        return;
      }
    }
  }

  void run_cxx(const Submission& s, const rules::RulePack& r, FindingSink& sink) const {
    std::vector<std::pair<std::string, std::regex>> patterns;
    for (const auto& p : r.banned_cxx_symbols) {
      try {
        patterns.emplace_back(p, std::regex(p, std::regex::ECMAScript));
      } catch (const std::regex_error&) {
      }
    }
    static const std::regex setup(R"(^(cublas|cudnn|cusparse)\w*?(Create|Destroy|Set|Get|Init))");
    struct Hit {
      const CxxUnit* unit;
      const cxx::Call* call;
      std::string pattern;
    };
    std::vector<Hit> compute, setups;
    for (const auto& u : s.cxx) {
      if (!u.facts || !u.file) continue;
      for (const auto& call : u.facts->calls)
        for (const auto& [text, re] : patterns)
          if (std::regex_search(call.callee, re)) {
            (std::regex_search(call.callee, setup) ? setups : compute).push_back({&u, &call, text});
            break;
          }
    }
    for (const auto& h : compute) {
      std::string spelled = h.call->spelled.empty() || h.call->spelled == h.call->callee
                                ? ""
                                : " (written `" + h.call->spelled + "`)";
      sink.report(kInfo, *h.unit->file, h.call->line, h.call->column,
                  h.call->callee + " is called" + spelled +
                      (h.call->enclosing_function.empty() ? "" : " in " + h.call->enclosing_function) +
                      ", which the rule pack bans (pattern " + h.pattern + ").",
                  h.call->callee);
    }
    // Handles and descriptors alone: a library set up but no compute call found.
    if (compute.empty() && !setups.empty()) {
      const auto& h = setups.front();
      sink.report(kInfo, *h.unit->file, h.call->line, h.call->column,
                  h.call->callee + " sets up a banned library (pattern " + h.pattern +
                      ") although no call that computes with it was found.",
                  h.call->callee, rules::Confidence::low);
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_banned_call_check() { return std::make_unique<BannedCallCheck>(); }

}  // namespace kaudit::analyzer
