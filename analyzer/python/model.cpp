// What the checks ask of the whole file: functions with their resolved
// decorators (Triton kernels), classes with their resolved bases, every
// call with its qualified callee, the model class, and which functions the
// model's forward reaches.
#include "analyzer/python/module_impl.h"

#include <algorithm>

namespace kaudit::analyzer::python {
namespace {

bool is_triton_jit(std::string_view q) {
  return q == "triton.jit" || q == "triton.runtime.jit" || q == "triton.runtime.jit.jit" ||
         q == "triton.runtime.jit.JITFunction" || q == "triton.JITFunction";
}

bool is_nn_module(std::string_view q) {
  return q == "torch.nn.Module" || q == "torch.nn.modules.module.Module" || q == "torch.nn.modules.Module";
}

}  // namespace

void Module::Impl::build_model() {
  // Classes: bases, then nn.Module-ness through local bases (a fixed point).
  for (size_t c = 0; c < classes.size(); ++c) {
    for (TSNode b : cinfo[c].base_exprs) {
      Sym s = resolve(b);
      classes[c].bases.push_back(s.kind == Sym::Kind::name ? s.q : std::string(text(b)));
      if (s.kind == Sym::Kind::name && s.cls >= 0 && s.fn < 0 && s.cls != static_cast<int>(c))
        cinfo[c].local_bases.push_back(s.cls);
      if (s.kind == Sym::Kind::name && is_nn_module(s.q)) cinfo[c].is_module = true;
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& ci : cinfo)
      if (!ci.is_module)
        for (int b : ci.local_bases)
          if (cinfo[b].is_module) {
            ci.is_module = changed = true;
            break;
          }
  }

  // Functions: decorators.
  for (size_t f = 0; f < functions.size(); ++f) {
    for (TSNode d : finfo[f].decorator_exprs) {
      TSNode target = is_type(d, "call") ? field_of(d, "function") : d;
      Sym s = resolve(target);
      std::string q = s.kind == Sym::Kind::name ? s.q : std::string(text(target));
      if (is_triton_jit(q)) functions[f].is_triton_kernel = true;
      functions[f].decorators.push_back(std::move(q));
    }
  }

  // Calls: enclosing function, qualified callee, method name.
  for (Call& c : calls) {
    TSNode n = raw_of(c.node);
    for (int s = scope_at(ts_node_start_byte(n)); s >= 0; s = scopes[s].parent)
      if (scopes[s].function_index >= 0) {
        c.function_index = scopes[s].function_index;
        break;
      }
    TSNode callee = unparen(raw_of(c.callee));
    if (is_type(callee, "attribute")) {
      c.method = nfkc(text(field_of(callee, "attribute")));
      if (c.method == "append" || c.method == "extend" || c.method == "insert" || c.method == "__iadd__")
        mutated_names.insert(std::string(text(field_of(callee, "object"))));
    }
    if (is_type(callee, "subscript")) {
      // kernel[grid](...): a launch of the function that `kernel` names.
      Sym k = resolve(field_of(callee, "value"));
      if (k.kind == Sym::Kind::name && k.fn >= 0) {
        c.qualified = functions[k.fn].qualified_name;
        continue;
      }
    }
    Sym s = resolve(callee);
    if (s.kind == Sym::Kind::name) c.qualified = s.q;
    // kernel = triton.jit(fn): fn becomes a Triton kernel.
    if (is_triton_jit(c.qualified)) {
      for (TSNode a : named_children_of(field_of(n, "arguments"))) {
        Sym fs = resolve(a);
        if (fs.kind == Sym::Kind::name && fs.fn >= 0) functions[fs.fn].is_triton_kernel = true;
        break;
      }
    }
  }

  // The model class: ModelNew, else Model (the last definition wins, as in
  // Python), else the nn.Module subclass that defines forward.
  auto defines = [&](int c, const char* name) {
    auto it = scopes[cinfo[c].scope].names.find(name);
    return it != scopes[cinfo[c].scope].names.end();
  };
  for (const char* wanted : {"ModelNew", "Model"}) {
    for (int c = static_cast<int>(classes.size()) - 1; c >= 0 && model < 0; --c)
      if (classes[c].name == wanted) model = c;
    if (model >= 0) break;
  }
  if (model < 0) {
    std::vector<int> candidates;
    for (size_t c = 0; c < classes.size(); ++c)
      if (cinfo[c].is_module && defines(static_cast<int>(c), "forward")) candidates.push_back(static_cast<int>(c));
    if (!candidates.empty()) model = candidates.back();
  }
  if (model < 0) return;
  mark_reachable_from_forward();
}

// Reachability from forward (and __call__), through calls, launches and
// references to local functions; classes referenced bring their methods.
void Module::Impl::mark_reachable_from_forward() {
  std::vector<char> reached(functions.size(), 0), class_done(classes.size(), 0);
  std::vector<int> work;
  auto reach = [&](int f) {
    if (f >= 0 && !reached[f]) {
      reached[f] = 1;
      work.push_back(f);
    }
  };
  auto reach_methods = [&](int cls, bool only_call) {
    if (!only_call && class_done[cls]) return;
    if (!only_call) class_done[cls] = 1;
    for (const char* entry : {"forward", "__call__"}) {
      Sym m = member(cls, entry, 0);
      if (m.kind == Sym::Kind::name) reach(m.fn);
    }
    if (only_call) return;
    for (size_t f = 0; f < functions.size(); ++f)
      if (finfo[f].class_index == cls) reach(static_cast<int>(f));
  };
  // A name bound to an expression that mentions local functions
  // (compiled = torch.compile(helper), self.fn = partial(kernel[grid], ...))
  // reaches them too: its value is scanned once.
  std::vector<char> scanned(bindings.size(), 0);
  std::vector<std::pair<TSNode, bool>> pending;
  auto follow = [&](TSNode ref, bool called) {
    if (is_type(ref, "attribute")) {
      const std::string attr(text(field_of(ref, "attribute")));
      Sym owner = resolve(field_of(ref, "object"));
      // An attribute of a local class that it does not define itself
      // (Function.apply, inherited from torch): the class's methods run.
      if (owner.kind == Sym::Kind::name && owner.cls >= 0 && member(owner.cls, attr, 0).fn < 0)
        reach_methods(owner.cls, false);
      // self.X in a method the model inherits: on the model, X is the
      // model's own when it overrides it.
      if (owner.kind == Sym::Kind::instance && owner.is_self) reach(member(model, attr, 0).fn);
    }
    Sym s = resolve(ref);
    if (s.kind == Sym::Kind::name) {
      if (s.fn >= 0) return reach(s.fn);
      if (s.cls >= 0) return reach_methods(s.cls, false);
    } else if (s.kind == Sym::Kind::instance) {
      if (called && !s.is_self) reach_methods(s.cls, true);
      if (s.is_self) return;
    }
    int b = binding_of(ref);
    if (b < 0 || scanned[b] || ts_node_is_null(bindings[b].value)) return;
    scanned[b] = 1;
    preorder(bindings[b].value, [&](TSNode n, const char* field, int) {
      std::string_view t = ts_node_type(n);
      std::string_view fld = field ? field : "";
      if (t == "identifier" || t == "attribute") {
        if (fld != "object" && fld != "attribute" && fld != "name") pending.emplace_back(n, false);
        return t == "attribute";
      }
      return t != "lambda" && t != "function_definition";
    });
  };
  reach_methods(model, true);
  while (!work.empty() || !pending.empty()) {
    if (!pending.empty()) {
      auto [ref, called] = pending.back();
      pending.pop_back();
      follow(ref, called);
      continue;
    }
    int f = work.back();
    work.pop_back();
    for (auto& [ref, called] : finfo[f].refs) follow(ref, called);
  }
  for (size_t f = 0; f < functions.size(); ++f) functions[f].reachable_from_forward = reached[f] != 0;
}

}  // namespace kaudit::analyzer::python
