// fallback-to-banned: an exception handler, or a branch on a "kernel
// available" flag, that computes the answer with banned ops or with the
// reference model. The kernel may fail (or be made to fail) exactly when it
// matters, and the library then does the work.
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/factories.h"
#include "analyzer/checks/fallback_path.h"
#include "analyzer/checks/value_flow.h"

#include <map>
#include <regex>
#include <set>

namespace kaudit::analyzer {
namespace {

using rules::Category;
using rules::Confidence;
using python::Node;

const CheckInfo kInfo{
    "fallback-to-banned",
    Category::cheat,
    Confidence::high,
    kPython,
    "an exception handler or availability branch falls back to banned or reference math",
    "A try/except (including `except Exception:` and a bare `except:`) whose handler computes the result "
    "with an op the problem bans (torch.matmul, F.linear, torch.topk, the `@` operator, ...) or calls the "
    "reference Model, or an `if not HAS_KERNEL:` style branch on a flag set by an import or compile guard "
    "that does the same. The authored kernel then only has to fail, be absent, or raise on the graded "
    "inputs for the library to do the core math; a kernel that fails on the timed shapes but not on the "
    "small test shapes passes correctness on the library's answer. The banned call inside the handler is "
    "also what the banned-op check reports; this finding adds that the submission arranged for it to run "
    "when its own kernel does not."
    "\n\n**Confidence.** High: a branch on an availability flag set by an import or build guard "
    "(`if not HAS_TRITON:`), or an except handler whose try raises on its own (a `raise` in it or in a "
    "helper it calls: a launcher that refuses some shapes), computes the result with "
    "a banned op, a helper that uses one, or the reference model. Medium: any other except handler "
    "that does so: it runs only if the kernel fails in a graded run, which the trace shows (a library "
    "kernel or a banned ATen op in the timed calls confirms it). Banned math whose result is only "
    "compared with the kernel's (a verification branch) or that only runs behind a switch off in "
    "graded runs is not a fallback and is not reported. Low: never. Clean counter-example: `try: ext = "
    "load_inline(...) except Exception: ext = None` with `if ext is None: return "
    "triton_kernel(x)`: the fallback is another authored kernel, not reported.",
    "Make the authored kernel raise (or delete the import it guards) and run the submission: if it still "
    "returns correct results, the fallback computes them. With the tracer, look for library kernels "
    "(nvjet_*, cutlass, cunn_*) in the timed calls."};

// Flags that usually record whether an authored kernel could be imported or built.
const std::regex& flag_name_re() {
  static const std::regex re(
      R"(^_*(has|have|use|enable|enabled|can|with)_\w+$|^\w*_(available|ok|enabled|loaded|compiled|supported|works|built)$)",
      std::regex::icase);
  return re;
}

class FallbackToBannedCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context& ctx, FindingSink& sink) const override {
    if (!s.python) return;
    const python::Module& m = *s.python;
    Scan scan{m, ctx.rules};
    scan.prepare();

    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "except_clause" || t == "except_group_clause") {
        for (const auto& child : n.named_children())
          if (child.type() == "block")
            // The handler runs only if the kernel fails, which the static view
            // cannot know (a launch that never fails in graded runs is the
            // common clean case); a try that raises on its own arranged it.
            scan.report_in(child, "except handler at line " + std::to_string(n.line()), sink,
                           patterns::try_raises_itself(m, n) ? Confidence::high : Confidence::medium);
      } else if (t == "if_statement" || t == "conditional_expression") {
        Node cond = t == "if_statement" ? n.field("condition") : Node{};
        if (t == "conditional_expression") {
          auto kids = n.named_children();  // body, condition, alternative
          if (kids.size() >= 2) cond = kids[1];
        }
        if (!cond.valid() || !scan.mentions_flag(cond)) return true;
        const std::string where = "branch on `" + std::string(cond.text()) + "` at line " + std::to_string(n.line());
        if (t == "conditional_expression") {
          auto kids = n.named_children();
          scan.report_in(kids[0], where, sink);
          if (kids.size() >= 3) scan.report_in(kids[2], where, sink);
        } else {
          scan.report_in(n.field("consequence"), where, sink);
          for (const auto& alt : n.named_children()) {
            if (alt.type() == "elif_clause") scan.report_in(alt.field("consequence"), where, sink);
            if (alt.type() == "else_clause") scan.report_in(alt.field("body"), where, sink);
          }
        }
      }
      return true;
    });
  }

 private:
  struct Scan {
    const python::Module& m;
    const rules::RulePack& rules;
    std::set<std::string> guard_names{};           // names assigned in an except handler
    std::set<std::string> reference_handles{};     // `self.ref`, `_ref` bound to Model(...)
    std::map<std::string, std::string> helpers{};  // function name -> banned thing it computes with
    std::set<std::string> model_bases{};           // resolved bases of the model class
    std::map<std::pair<uint32_t, uint32_t>, const python::Call*> calls_by_span{};
    mutable int flow_budget = 48;  // banned values followed per file (each costs walks of its function)

    static std::pair<uint32_t, uint32_t> span(Node n) {
      return n.span();
    }

    // What a call computes with, if it is banned or the reference; empty otherwise.
    std::string banned_call(const python::Call& c) const {
      const std::string& q = c.qualified;
      if (!q.empty()) {
        for (const auto& op : rules.banned_python_ops)
          if (q == op || q.starts_with(op + ".")) return q;
      }
      if (!c.method.empty() && (q.empty() || q.starts_with("torch.Tensor."))) {
        for (const auto& meth : rules.banned_tensor_methods)
          if (c.method == meth) return "." + meth + "()";
      }
      if (is_reference(q)) return q;
      const std::string callee(c.callee.valid() ? c.callee.text() : std::string_view{});
      if (reference_handles.count(callee)) return callee + " (the reference model)";
      // super().forward(...) of a model class that derives from the reference.
      if (c.method == "forward" && callee.starts_with("super()") && derives_from_reference())
        return "super().forward (the reference model)";
      if (c.callee.valid() && c.callee.type() == "identifier") {
        auto h = helpers.find(callee);
        if (h != helpers.end()) return callee + "() (which uses " + h->second + ")";
      }
      if (callee.starts_with("self.") && callee.find('.', 5) == std::string::npos) {
        auto h = helpers.find(callee.substr(5));
        if (h != helpers.end()) return callee + "() (which uses " + h->second + ")";
      }
      return {};
    }

    static bool is_reference(std::string_view q) {
      return q == "Model" || q == "reference.Model" || q.ends_with(".reference.Model") ||
             (q.starts_with("reference.") && q.size() > 10);
    }
    bool derives_from_reference() const {
      for (const auto& b : model_bases)
        if (is_reference(b)) return true;
      return false;
    }

    // The banned thing used directly in `scope` (calls and the @ operator), or empty.
    std::string first_banned_in(Node scope) const {
      std::string found;
      for_each_banned(scope, [&](Node, const std::string& what) {
        if (found.empty()) found = what;
      });
      return found;
    }

    template <class F>
    void for_each_banned(Node scope, F&& f) const {
      if (!scope.valid()) return;
      m.walk(scope, [&](Node n) {
        const auto t = n.type();
        if (t == "call") {
          auto it = calls_by_span.find(span(n));
          if (it != calls_by_span.end()) {
            std::string what = banned_call(*it->second);
            if (!what.empty() && matters(n)) f(n, what);
          }
        } else if (rules.matmul_operator_banned && (t == "binary_operator" || t == "augmented_assignment")) {
          Node op = n.field("operator");
          if (op.valid() && (op.type() == "@" || op.type() == "@=" || op.text() == "@" || op.text() == "@=") &&
              matters(n))
            f(n, std::string("the `") + std::string(op.text()) + "` operator");
        }
        return true;
      });
    }

    // A banned result that is only compared with another (a self-check's
    // oracle) or that only runs behind a switch off in graded runs does not
    // stand in for the kernel's answer.
    bool matters(Node n) const {
      if (flow_budget <= 0) return true;  // out of budget: it counts
      --flow_budget;
      if (patterns::dead_branch_guard(m, n).valid()) return false;
      if (n.type() == "augmented_assignment") return true;
      const patterns::ValueFlow flow = patterns::follow_value(m, n, patterns::ThroughCalls::all);
      return !(flow.only_checked() && flow.checked);
    }

    // The reference's own op, banned only because the problem names none: a lead.
    bool reference_op(const std::string& what) const {
      for (const auto& op : rules.reference_ops) {
        const std::string method = op.starts_with("torch.Tensor.") ? "." + op.substr(13) + "()" : op;
        if (what.find(method) != std::string::npos || what.find(op) != std::string::npos) return true;
      }
      return false;
    }

    void report_in(Node scope, const std::string& where, FindingSink& sink,
                   Confidence confidence = Confidence::high) const {
      for_each_banned(scope, [&](Node at, const std::string& what) {
        const Confidence c = reference_op(what) ? std::min(confidence, Confidence::medium) : confidence;
        sink.report(kInfo, m.file(), at.line(), at.column(),
                   "The " + where + " computes the result with " + what +
                       ", so the library or the reference does the work whenever the authored kernel fails or is "
                       "missing" +
                       (c == Confidence::high ? std::string(".")
                                              : std::string("; the trace shows whether it ran in graded calls.")),
                   what, c);
      });
    }

    bool mentions_flag(Node cond) const {
      bool hit = false;
      m.walk(cond, [&](Node n) {
        if (hit) return false;
        if (n.type() == "identifier") {
          const std::string name(n.text());
          if (guard_names.count(name) || std::regex_search(name, flag_name_re())) hit = true;
        }
        return true;
      });
      return hit;
    }

    void prepare() {
      for (const auto& c : m.calls()) calls_by_span.emplace(span(c.node), &c);
      if (const auto* model = m.model_class())
        for (const auto& b : model->bases) model_bases.insert(b);
      // Names assigned in except handlers (HAS_TRITON = False, _ext = None) and
      // handles bound to the reference model.
      m.walk([&](Node n) {
        if (n.type() != "assignment") return true;
        Node left = n.field("left"), right = n.field("right");
        if (!left.valid()) return true;
        if (right.valid() && right.type() == "call") {
          auto q = m.qualified_name(right.field("function"));
          if (q && is_reference(*q)) reference_handles.insert(std::string(left.text()));
        }
        for (Node p = n.parent(); p.valid(); p = p.parent()) {
          if (p.type() == "except_clause") {
            if (left.type() == "identifier") guard_names.insert(std::string(left.text()));
            break;
          }
          if (p.type() == "function_definition" || p.type() == "class_definition") break;
        }
        return true;
      });
      // Helpers that do banned math: a handler that calls them falls back just the same.
      for (const auto& f : m.functions()) {
        if (f.is_triton_kernel) continue;
        std::string what = first_banned_in(f.node);
        if (!what.empty()) helpers.emplace(f.name, what);
      }
    }
  };
};

}  // namespace

std::unique_ptr<Check> make_fallback_to_banned_check() { return std::make_unique<FallbackToBannedCheck>(); }

}  // namespace kaudit::analyzer
