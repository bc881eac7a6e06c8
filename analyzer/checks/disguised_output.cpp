// disguised-output: what forward returns is not a plain tensor holding the
// answer: a torch.Tensor subclass or an object that intercepts torch calls
// (computing lazily, when the checker looks), a lambda or generator, or a
// broadcast view of a tiny buffer that looks like a full-size result.
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/factories.h"

#include <map>
#include <set>

namespace kaudit::analyzer {
namespace {

using python::Node;
using rules::Category;
using rules::Confidence;

const CheckInfo kInfo{
    "disguised-output",
    Category::cheat,
    Confidence::high,
    kPython,
    "forward returns something other than a plain tensor holding the answer",
    "The submission defines a torch.Tensor subclass, defines __torch_function__ or __torch_dispatch__ "
    "(or a TorchFunctionMode/TorchDispatchMode), builds tensors with _make_subclass or "
    "_make_wrapper_subclass, returns a lambda, a generator, a functools.partial or an instance of its own "
    "class from forward, or returns a stride-0 view (as_strided with a zero stride, expand of a one-element "
    "tensor) that looks like a full-size output while holding almost no memory. Such outputs let the work "
    "happen later, when the checker reads the result (outside the timed interval), or let the object lie "
    "about its values, shape or dtype when compared; a broadcast view passes shape checks while most of the "
    "output was never written. Benchmarks expect forward to return a plain torch.Tensor whose storage holds "
    "the answer."
    "\n\n**Confidence.** High: a torch.Tensor subclass, __torch_function__ or __torch_dispatch__ "
    "(or their modes), _make_subclass or _make_wrapper_subclass, forward returning a lambda, "
    "generator, partial or an own-class instance, or a stride-0 view passed off as a full output. "
    "Medium and low: never. Clean counter-example: `out.view(t, k, inter)` of a freshly written "
    "tensor is an ordinary view and is not reported.",
    "Call forward once and print type(out), out.stride() and out.untyped_storage().nbytes(): a subclass, a "
    "zero stride or a storage far smaller than out.numel() * out.element_size() confirms it. kaudit's runner "
    "checks that the returned object is a plain torch.Tensor that does not alias an input."};

bool is_tensor_base(std::string_view b) {
  return b == "torch.Tensor" || b == "torch._C._TensorBase" || b == "torch._C.TensorBase" ||
         b == "torch._tensor.Tensor" || b == "torch.nn.Parameter" || b == "torch.nn.parameter.Parameter";
}

bool is_mode_base(std::string_view b) {
  return b.ends_with("TorchDispatchMode") || b.ends_with("TorchFunctionMode") ||
         b.starts_with("torch.utils._python_dispatch.") || b.starts_with("torch.overrides.");
}

bool is_module_base(std::string_view b) { return b.starts_with("torch.nn.") && !is_tensor_base(b); }

// A tuple or list literal that contains the integer 0.
bool has_zero_entry(Node n) {
  if (!n.valid() || (n.type() != "tuple" && n.type() != "list")) return false;
  for (const auto& k : n.named_children())
    if (k.type() == "integer" && k.text() == "0") return true;
  return false;
}

// torch.zeros(1), torch.empty(()), x.new_zeros(1), torch.tensor(0.0), torch.full((1, 1), v).
bool is_tiny_allocation(const python::Module& m, const python::Call& c) {
  static const std::set<std::string_view> factories = {"torch.zeros", "torch.ones", "torch.empty", "torch.full",
                                                        "torch.rand", "torch.randn"};
  static const std::set<std::string_view> methods = {"new_zeros", "new_ones", "new_empty", "new_full"};
  if (c.qualified == "torch.tensor" || c.qualified == "torch.scalar_tensor") {
    auto args = c.node.positional_args();
    return !args.empty() && (args[0].type() == "integer" || args[0].type() == "float");
  }
  const bool factory = factories.count(c.qualified) > 0;
  if (!factory && !methods.count(c.method)) return false;
  auto args = c.node.positional_args();
  if (args.empty()) return false;
  // Every size given is the literal 1 (or an empty tuple).
  Node size = args[0];
  const size_t nsize = (c.qualified == "torch.full" || c.method == "new_full") ? 1 : args.size();
  std::vector<Node> dims;
  if (size.type() == "tuple" || size.type() == "list") {
    dims = size.named_children();
  } else {
    for (size_t i = 0; i < nsize && i < args.size(); ++i) dims.push_back(args[i]);
  }
  for (const auto& d : dims) {
    auto v = m.constant_int(d);
    if (!v || *v != 1) return false;
  }
  return true;
}

class DisguisedOutputCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (!s.python) return;
    const python::Module& m = *s.python;

    // Classes: tensor subclasses (directly or through another class of this file) and torch modes.
    std::set<std::string> tensor_classes, own_classes;
    bool grew = true;
    while (grew) {
      grew = false;
      for (const auto& cls : m.classes())
        for (const auto& b : cls.bases)
          if ((is_tensor_base(b) || tensor_classes.count(b)) && tensor_classes.insert(cls.name).second) grew = true;
    }
    for (const auto& cls : m.classes()) {
      bool module = false;
      for (const auto& b : cls.bases) module = module || is_module_base(b);
      if (!module) own_classes.insert(cls.name);
      if (tensor_classes.count(cls.name)) {
        sink.report(kInfo, m.file(), cls.node.line(), cls.node.column(),
                   "The class " + cls.name +
                       " subclasses torch.Tensor, so a returned result can compute or change its values when it is "
                       "read instead of holding them.",
                   cls.name);
        continue;
      }
      for (const auto& b : cls.bases)
        if (is_mode_base(b)) {
          sink.report(kInfo, m.file(), cls.node.line(), cls.node.column(),
                     "The class " + cls.name + " derives from " + b +
                         ", which intercepts every torch call made while it is active.",
                     cls.name);
          break;
        }
    }
    for (const auto& f : m.functions())
      if (f.name == "__torch_function__" || f.name == "__torch_dispatch__")
        sink.report(kInfo, m.file(), f.node.line(), f.node.column(),
                   (f.class_name.empty() ? f.name : f.class_name + "." + f.name) +
                       " intercepts torch operations, so reads and comparisons of the output can be answered by the "
                       "submission's own code.",
                   f.qualified_name);

    for (const auto& c : m.calls()) {
      const std::string_view last = patterns::last_component(c.qualified.empty() ? c.method : c.qualified);
      if (last == "_make_subclass" || last == "_make_wrapper_subclass")
        sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                   std::string(last) + " builds a tensor of a custom subclass that can disguise what it holds.",
                   std::string(last));
    }

    forward_returns(m, own_classes, sink);
    stride_zero_views(m, sink);
  }

 private:
  // Return statements of the model's forward: lambdas, generators, partials, own objects.
  static void forward_returns(const python::Module& m, const std::set<std::string>& own_classes,
                              FindingSink& sink) {
    const python::FunctionDef* fwd = m.model_forward();
    if (!fwd) return;
    m.walk(fwd->node, [&](Node n) {
      const auto t = n.type();
      if ((t == "function_definition" || t == "class_definition") && !(n == fwd->node)) return false;
      if (t == "yield") {
        sink.report(kInfo, m.file(), n.line(), n.column(),
                   "forward is a generator: it returns a lazy object instead of the output tensor.", "yield");
        return false;
      }
      if (t != "return_statement") return true;
      auto kids = n.named_children();
      if (kids.empty()) return false;
      Node v = kids[0];
      while (v.valid() && v.type() == "parenthesized_expression" && !v.named_children().empty()) v = v.named_children()[0];
      if (v.type() == "lambda") {
        sink.report(kInfo, m.file(), n.line(), n.column(),
                   "forward returns a lambda, so the output is computed only when someone calls it.", "lambda");
      } else if (v.type() == "call") {
        Node callee = v.field("function");
        auto q = m.qualified_name(callee);
        const std::string name(callee.valid() ? callee.text() : std::string_view{});
        if (q && (*q == "functools.partial" || *q == "functools.lru_cache")) {
          sink.report(kInfo, m.file(), n.line(), n.column(),
                     "forward returns functools.partial, a deferred computation instead of the output tensor.", *q);
        } else if (callee.valid() && callee.type() == "identifier" && own_classes.count(name)) {
          sink.report(kInfo, m.file(), n.line(), n.column(),
                     "forward returns an instance of the submission's own class " + name +
                         " instead of a plain torch.Tensor.",
                     name);
        }
      }
      return false;
    });
  }

  // as_strided with a zero stride, or expand of a one-element tensor, returned from a function on the path.
  static void stride_zero_views(const python::Module& m, FindingSink& sink) {
    const auto& fns = m.functions();
    // Per function: names bound to tiny allocations, and names that are returned.
    std::map<int, std::set<std::string>> tiny, returned;
    std::map<std::pair<uint32_t, uint32_t>, const python::Call*> by_span;
    for (const auto& c : m.calls()) by_span[c.node.span()] = &c;
    auto call_at = [&](Node n) -> const python::Call* {
      if (!n.valid() || n.type() != "call") return nullptr;
      auto it = by_span.find(n.span());
      return it == by_span.end() ? nullptr : it->second;
    };
    for (size_t i = 0; i < fns.size(); ++i) {
      if (!m.on_forward_path(static_cast<int>(i))) continue;
      m.walk(fns[i].node, [&](Node n) {
        if (n.type() == "assignment") {
          Node l = n.field("left"), r = n.field("right");
          if (l.valid() && l.type() == "identifier")
            if (const auto* c = call_at(r); c && is_tiny_allocation(m, *c)) tiny[i].emplace(l.text());
        } else if (n.type() == "return_statement") {
          m.walk(n, [&](Node k) {
            if (k.type() == "identifier") returned[i].emplace(k.text());
            return true;
          });
        }
        return true;
      });
    }
    auto is_returned = [&](const python::Call& c) {
      for (Node p = c.node.parent(); p.valid(); p = p.parent()) {
        if (p.type() == "return_statement") return true;
        if (p.type() == "assignment") {
          Node l = p.field("left");
          return l.valid() && l.type() == "identifier" && returned[c.function_index].count(std::string(l.text())) > 0;
        }
        if (p.type() == "function_definition" || p.type() == "expression_statement" || p.type() == "block") return false;
      }
      return false;
    };
    for (const auto& c : m.calls()) {
      if (!m.on_forward_path(c.function_index)) continue;
      const bool as_strided = c.method == "as_strided" || c.qualified == "torch.as_strided" ||
                              c.qualified == "torch.empty_strided";
      if (as_strided) {
        auto args = c.node.positional_args();
        const size_t stride_at = c.qualified == "torch.as_strided" ? 2 : 1;
        Node stride = c.node.keyword_arg("stride");
        if (!stride.valid() && args.size() > stride_at) stride = args[stride_at];
        if (has_zero_entry(stride) && is_returned(c))
          sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                     "The returned tensor is a view with a zero stride (" + std::string(c.method.empty() ? c.qualified : c.method) +
                         "), so a full-size output is backed by a tiny buffer.",
                     c.method.empty() ? c.qualified : c.method);
        continue;
      }
      if (c.method != "expand" && c.method != "expand_as" && c.qualified != "torch.broadcast_to" &&
          c.method != "broadcast_to")
        continue;
      Node recv = c.qualified == "torch.broadcast_to" ? Node{} : c.callee.field("object");
      if (c.qualified == "torch.broadcast_to") {
        auto args = c.node.positional_args();
        if (!args.empty()) recv = args[0];
      }
      if (!recv.valid()) continue;
      bool small = false;
      if (const auto* rc = call_at(recv)) small = is_tiny_allocation(m, *rc);
      else if (recv.type() == "identifier") small = tiny[c.function_index].count(std::string(recv.text())) > 0;
      if (small && is_returned(c))
        sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                   "The returned tensor is a one-element tensor broadcast to the output's shape, so a full-size "
                   "output is backed by a single value.",
                   c.method.empty() ? c.qualified : c.method);
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_disguised_output_check() { return std::make_unique<DisguisedOutputCheck>(); }

}  // namespace kaudit::analyzer
