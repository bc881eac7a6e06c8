// reference-resubmitted: the submission's forward is the problem's reference
// forward with names changed (or delegates to the reference model, or, with
// no problem at hand, a ModelNew.forward that is nothing but torch calls).
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
    "reference-resubmitted",
    Category::cheat,
    Confidence::high,
    kPython,
    "the submission's forward is the reference implementation",
    "With a problem folder, the model's forward is compared with the forward of the problem's reference.py "
    "after normalising it: comments and docstrings dropped, parameters and local variables renamed in order "
    "of first use, self attributes renamed likewise, and module aliases resolved (F.relu and "
    "torch.nn.functional.relu are the same token). Equal token streams mean the reference was handed in as "
    "the solution. A model class that inherits the reference Model without overriding forward, or whose "
    "forward only returns the reference model's output, is reported too. Without a problem folder, a "
    "ModelNew whose forward calls nothing but PyTorch ops (and torch.nn modules built in __init__) is "
    "reported with low confidence: it is the shape a resubmitted reference takes. The no-authored-kernel "
    "finding usually accompanies this one."
    "\n\n**Confidence.** High: forward's tokens equal the reference's after names are normalised, "
    "the model inherits the reference Model without overriding forward, or forward only returns "
    "the reference model's output. Low: without a problem folder, a forward that calls nothing "
    "but PyTorch ops. Medium: never. Clean counter-example: a forward that reshapes the inputs "
    "like the reference and then launches its own kernel: the token streams differ, not reported.",
    "Diff the submission's forward against reference.py's Model.forward: the two differ only in names. "
    "The tracer shows the same library kernels (cuBLAS, ATen) for both."};

std::vector<std::string> parameter_names(Node def) {
  std::vector<std::string> out;
  Node params = def.field("parameters");
  if (!params.valid()) return out;
  for (const auto& p : params.named_children()) {
    if (p.type() == "identifier") {
      out.emplace_back(p.text());
    } else if (p.type() == "default_parameter" || p.type() == "typed_default_parameter") {
      if (Node n = p.field("name"); n.valid()) out.emplace_back(n.text());
    } else if (p.type() == "typed_parameter") {
      for (const auto& k : p.named_children())
        if (k.type() == "identifier") {
          out.emplace_back(k.text());
          break;
        }
    } else if (p.type() == "list_splat_pattern" || p.type() == "dictionary_splat_pattern") {
      for (const auto& k : p.named_children())
        if (k.type() == "identifier") out.push_back(std::string(p.type() == "list_splat_pattern" ? "*" : "**") + std::string(k.text()));
    }
  }
  return out;
}

// The body statements of a def without a leading docstring.
std::vector<Node> statements(Node def) {
  std::vector<Node> out;
  Node body = def.field("body");
  if (!body.valid()) return out;
  for (const auto& st : body.named_children()) {
    if (st.type() == "comment") continue;
    if (out.empty() && st.type() == "expression_statement") {
      auto kids = st.named_children();
      if (kids.size() == 1 && (kids[0].type() == "string" || kids[0].type() == "concatenated_string")) continue;
    }
    out.push_back(st);
  }
  return out;
}

// The normalised token stream of a forward's body.
std::vector<std::string> normalised_tokens(const python::Module& m, const python::FunctionDef& f) {
  std::vector<std::string> toks;
  const auto params = parameter_names(f.node);
  const std::string self = params.empty() ? "self" : params.front();
  std::map<std::string, int> locals, attrs;
  auto local = [&](const std::string& name) {
    auto [it, fresh] = locals.emplace(name, static_cast<int>(locals.size()));
    return "V" + std::to_string(it->second);
  };
  for (size_t i = 1; i < params.size(); ++i) local(params[i]);  // parameters first, in order
  toks.push_back("PARAMS" + std::to_string(params.size()));

  for (const auto& st : statements(f.node)) {
    std::vector<Node> stack{st};
    while (!stack.empty()) {
      Node n = stack.back();
      stack.pop_back();
      const auto t = n.type();
      if (t == "comment") continue;
      if (t == "string" || t == "concatenated_string" || t == "integer" || t == "float") {
        toks.emplace_back(n.text());
        continue;
      }
      if (t == "attribute") {
        Node obj = n.field("object");
        if (obj.valid() && obj.type() == "identifier" && obj.text() == self) {
          Node a = n.field("attribute");
          const std::string name(a.valid() ? a.text() : std::string_view{});
          auto [it, fresh] = attrs.emplace(name, static_cast<int>(attrs.size()));
          toks.push_back("SELF." + std::to_string(it->second));
          continue;
        }
        if (auto q = m.qualified_name(n); q && !q->empty()) {
          toks.push_back("Q:" + *q);
          continue;
        }
      }
      if (t == "identifier") {
        Node p = n.parent();
        const std::string name(n.text());
        if (p.valid() && p.type() == "attribute" && p.field("attribute") == n) {
          toks.push_back("." + name);
        } else if (p.valid() && p.type() == "keyword_argument" && p.field("name") == n) {
          toks.push_back("K:" + name);
        } else if (name == self) {
          toks.push_back("SELF");
        } else if (locals.count(name)) {
          toks.push_back(local(name));
        } else if (auto q = m.qualified_name(n); q && !q->empty()) {
          toks.push_back("Q:" + *q);
        } else {
          toks.push_back(local(name));
        }
        continue;
      }
      std::vector<Node> kids = n.children();
      if (kids.empty()) {
        toks.emplace_back(n.text());
        continue;
      }
      toks.push_back("(" + std::string(t));
      stack.insert(stack.end(), kids.rbegin(), kids.rend());
    }
  }
  return toks;
}

bool is_reference_name(std::string_view q) {
  return q == "Model" || q == "reference.Model" || q.ends_with(".reference.Model");
}



// torch functions that create, combine or reshape tensors, or pick their
// triangles and diagonals: no arithmetic of the problem's own.
bool is_structural_op(const std::string& q) {
  static const std::set<std::string_view> ops = {
      "torch.eye",       "torch.ones",        "torch.zeros",     "torch.empty",      "torch.full",
      "torch.ones_like", "torch.zeros_like",  "torch.empty_like", "torch.full_like", "torch.arange",
      "torch.tensor",    "torch.as_tensor",   "torch.tril",      "torch.triu",       "torch.diag",
      "torch.diag_embed", "torch.diagonal",   "torch.stack",     "torch.cat",        "torch.concat",
      "torch.concatenate", "torch.split",     "torch.chunk",     "torch.unbind",     "torch.reshape",
      "torch.flatten",   "torch.transpose",   "torch.permute",   "torch.movedim",    "torch.squeeze",
      "torch.unsqueeze", "torch.narrow",      "torch.flip",      "torch.roll",       "torch.where",
      "torch.nn.functional.pad", "torch.broadcast_to", "torch.contiguous_format", "torch.no_grad",
      "torch.inference_mode"};
  return ops.count(q) > 0;
}

class ReferenceResubmittedCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context& ctx, FindingSink& sink) const override {
    if (!s.python) return;
    const python::Module& m = *s.python;
    const python::ClassDef* model = m.model_class();
    if (!model) return;
    const python::FunctionDef* fwd = m.model_forward();

    // class ModelNew(Model): no forward of its own.
    bool derives_from_reference = false;
    for (const auto& b : model->bases) derives_from_reference = derives_from_reference || is_reference_name(b);
    if (!fwd) {
      if (derives_from_reference && model->name != "Model")
        sink.report(kInfo, m.file(), model->node.line(), model->node.column(),
                    model->name + " inherits forward from the reference Model without overriding it, so the "
                                  "reference computes the result.",
                    model->name);
      return;
    }
    if (delegates_to_reference(m, *model, *fwd, derives_from_reference)) {
      sink.report(kInfo, m.file(), fwd->node.line(), fwd->node.column(),
                  model->name + ".forward only returns what the reference Model computes.",
                  model->name + ".forward");
      return;
    }

    const python::Module* ref = ctx.problem ? ctx.problem->reference : nullptr;
    if (ref) {
      const python::ClassDef* ref_model = ref->model_class();
      const python::FunctionDef* ref_fwd = ref_model ? ref->model_forward() : nullptr;
      if (!ref_fwd) return;
      const auto mine = normalised_tokens(m, *fwd);
      const auto theirs = normalised_tokens(*ref, *ref_fwd);
      if (mine.size() > 1 && mine == theirs) {
        sink.report(kInfo, m.file(), fwd->node.line(), fwd->node.column(),
                    model->name + ".forward is the reference's forward with only names changed.",
                    model->name + ".forward");
        return;
      }
    }
    // Not the reference token for token, but nothing but torch either (the
    // reference's algorithm reorganised into helpers): low confidence.
    // With a problem, only the reference's own torch ops count: a forward that
    // swaps in another library op (torch._scaled_mm) is a banned call, not this.
    std::set<std::string> allowed;
    if (ref)
      for (const auto& c : ref->calls())
        if (c.qualified.starts_with("torch.")) allowed.insert(c.qualified);
    torch_ops_used().clear();
    bool all_torch = (ref || model->name == "ModelNew") && only_torch(m, *model, *fwd);
    if (all_torch && ref) {
      // Ops the reference does not use are tolerated when they only build or
      // arrange tensors (torch.eye, torch.stack, torch.tril, ...): reorganising
      // the reference's loop needs them, and they compute nothing of its math.
      // Any other op (torch._scaled_mm, a different activation) breaks the match,
      // and the forward must share at least one computing op with the reference.
      bool shares_math = false;
      for (const auto& q : torch_ops_used()) {
        if (allowed.count(q)) {
          if (!is_structural_op(q)) shares_math = true;
          continue;
        }
        if (!is_structural_op(q)) all_torch = false;
      }
      if (!shares_math) all_torch = false;
    }
    if (all_torch)
      sink.report(kInfo, m.file(), fwd->node.line(), fwd->node.column(),
                  model->name + ".forward and the helpers it calls do nothing but PyTorch ops, the shape of a "
                                "resubmitted reference.",
                  model->name + ".forward", Confidence::low);
  }

 private:
  // forward is `return super().forward(...)`, `return Model.forward(self, ...)` or
  // `return self.ref(...)` with self.ref = Model(...).
  static bool delegates_to_reference(const python::Module& m, const python::ClassDef& model,
                                     const python::FunctionDef& fwd, bool derives) {
    auto st = statements(fwd.node);
    if (st.size() != 1 || st[0].type() != "return_statement") return false;
    auto kids = st[0].named_children();
    if (kids.size() != 1 || kids[0].type() != "call") return false;
    Node callee = kids[0].field("function");
    const std::string text(callee.text());
    if (derives && (text == "super().forward" || text.starts_with("super(") )) return text.ends_with(".forward");
    if (auto q = m.qualified_name(callee); q && (is_reference_name(*q) || *q == "reference.Model.forward" || *q == "Model.forward"))
      return true;
    // self.ref(...) where __init__ does self.ref = Model(...)
    if (text.starts_with("self.")) {
      bool bound = false;
      for (const auto& f : m.functions()) {
        if (f.class_name != model.name || f.name != "__init__") continue;
        m.walk(f.node, [&](Node n) {
          if (n.type() != "assignment") return true;
          Node l = n.field("left"), r = n.field("right");
          if (l.valid() && r.valid() && r.type() == "call" && l.text() == text) {
            auto q = m.qualified_name(r.field("function"));
            if (q && is_reference_name(*q)) bound = true;
          }
          return true;
        });
      }
      return bound;
    }
    return false;
  }

  // Every call in forward is a torch op, a tensor method, or a torch.nn module built in __init__.
  // torch.* callables seen by the last only_torch walk (single-threaded use per run).
  static std::set<std::string>& torch_ops_used() {
    thread_local std::set<std::string> used;
    return used;
  }

  // A free function of this file whose body is nothing but torch (followed a few levels deep), or null.
  static const python::FunctionDef* torch_only_helper(const python::Module& m, const std::string& name, int depth) {
    if (depth >= 4) return nullptr;
    for (const auto& f : m.functions()) {
      if (f.name != name || !f.class_name.empty() || f.is_triton_kernel || !f.decorators.empty()) continue;
      static const python::ClassDef none{};
      return only_torch(m, none, f, depth + 1) ? &f : nullptr;
    }
    return nullptr;
  }

  static bool only_torch(const python::Module& m, const python::ClassDef& model, const python::FunctionDef& fwd,
                         int depth = 0) {
    static const std::set<std::string_view> builtins = {"len", "int", "float", "tuple", "list", "range",
                                                        "isinstance", "max", "min", "abs", "getattr", "print"};
    // self attributes assigned torch.nn things in __init__; and names bound at module level.
    std::set<std::string> torch_attrs, module_names;
    for (const auto& f : m.functions())
      if (f.class_name == model.name && f.name == "__init__")
        m.walk(f.node, [&](Node n) {
          if (n.type() != "assignment") return true;
          Node l = n.field("left"), r = n.field("right");
          if (!l.valid() || !r.valid()) return true;
          Node target = r.type() == "call" ? r.field("function") : r;
          auto q = m.qualified_name(target);
          if (q && q->starts_with("torch.")) torch_attrs.emplace(l.text());
          return true;
        });
    // Names bound outside any def or class (also inside module-level try/if blocks).
    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "function_definition" || t == "class_definition" || t == "lambda") return false;
      if (t == "assignment")
        if (Node l = n.field("left"); l.valid() && l.type() == "identifier") module_names.emplace(l.text());
      return true;
    });

    const auto params = parameter_names(fwd.node);
    // Only a method has a self; a free helper's first parameter is a tensor.
    const std::string self = model.name.empty() ? std::string("\x01") : params.empty() ? "self" : params.front();
    // Parameters and names assigned in the body: receivers whose methods are tensor methods.
    std::set<std::string> locals(params.begin(), params.end());
    m.walk(fwd.node, [&](Node n) {
      const auto t = n.type();
      if (t == "assignment" || t == "augmented_assignment" || t == "for_statement") {
        Node l = n.field("left");
        if (l.valid())
          m.walk(l, [&](Node k) {
            if (k.type() == "identifier") locals.emplace(k.text());
            return k.type() != "attribute" && k.type() != "subscript";
          });
      }
      return true;
    });
    int calls = 0;
    bool ok = true;
    const int fwd_index = static_cast<int>(&fwd - &m.functions()[0]);
    for (const auto& c : m.calls()) {
      if (!fwd.node.contains(c.node)) continue;
      if (c.function_index != fwd_index) return false;  // a nested def or lambda body: not "nothing else"
      ++calls;
      // A helper of this file (the front may resolve its name to itself).
      if (c.callee.valid() && c.callee.type() == "identifier" &&
          torch_only_helper(m, std::string(c.callee.text()), depth))
        continue;
      if (!c.qualified.empty()) {
        if (c.qualified.starts_with("torch.")) torch_ops_used().insert(c.qualified);
        if (c.qualified.starts_with("torch.") && !c.qualified.starts_with("torch.ops.") &&
            !c.qualified.starts_with("torch.utils.cpp_extension") && !c.qualified.starts_with("torch.library"))
          continue;
        if (c.qualified.starts_with("torch.ops.aten.")) continue;
        if (builtins.count(c.qualified)) continue;
        ok = false;
        break;
      }
      const std::string callee(c.callee.valid() ? c.callee.text() : std::string_view{});
      if (c.callee.valid() && c.callee.type() == "identifier") {
        if (builtins.count(callee)) continue;
        ok = false;
        break;
      }
      if (c.callee.valid() && c.callee.type() == "attribute") {
        // self.linear(x) with self.linear = nn.Linear(...)
        if (torch_attrs.count(callee)) continue;
        Node obj = c.callee.field("object");
        std::string root(obj.valid() ? obj.text() : std::string_view{});
        if (auto dot = root.find_first_of(".(["); dot != std::string::npos) root.resize(dot);
        if (root == self) {
          // self.weight.t(): a method of a torch attribute; self.helper(): the submission's own code.
          std::string attr(obj.text());
          if (obj.type() == "attribute" && torch_attrs.count(attr)) continue;
          ok = false;
          break;
        }
        // A plain name chain (`_ext.gemm`, `x.view`) must start at a parameter or local;
        // calls, subscripts and parentheses are judged by their own parts.
        const bool chain = obj.valid() && (obj.type() == "identifier" || obj.type() == "attribute") &&
                           obj.text().find_first_of("([") == std::string_view::npos;
        if (module_names.count(root) || (chain && !locals.count(root))) {  // _ext.gemm(x): a handle from elsewhere
          ok = false;
          break;
        }
        continue;  // x.view(...), (a + b).relu(): tensor methods
      }
      ok = false;  // kernel[grid](...) and other shapes
      break;
    }
    return ok && (calls > 0 || depth > 0);
  }
};

}  // namespace

std::unique_ptr<Check> make_reference_resubmitted_check() { return std::make_unique<ReferenceResubmittedCheck>(); }

}  // namespace kaudit::analyzer
