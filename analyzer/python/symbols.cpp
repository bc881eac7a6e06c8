// The symbol model: scopes (module, functions, classes, lambdas,
// comprehensions), the names each binds (imports, assignments, parameters,
// definitions, self attributes), and resolution of an expression to a
// qualified name through aliases, getattr with folded strings and
// sys.modules. Everything is iterative or depth-bounded: hostile files nest
// ten thousand deep and define names in cycles.
#include "analyzer/python/module_impl.h"

#include <algorithm>

namespace kaudit::analyzer::python {
namespace {

// Bounds the mutual recursion of resolution and folding on one thread,
// whatever path it takes (getattr of a folded string of a name of ...).

const std::unordered_set<std::string_view>& builtins() {
  static const std::unordered_set<std::string_view> names = {
      "abs", "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr",
      "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec",
      "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
      "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max",
      "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "range",
      "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
      "super", "tuple", "type", "vars", "zip", "__import__", "__build_class__", "__name__", "__file__",
      "__builtins__", "__spec__", "__loader__", "Exception", "BaseException", "RuntimeError",
      "ValueError", "TypeError", "NotImplementedError", "KeyError", "IndexError", "AttributeError",
      "ImportError", "AssertionError", "StopIteration", "OSError", "NotImplemented", "Ellipsis", "None",
      "True", "False", "self"};
  return names;
}

bool is_scope_type(std::string_view t) {
  return t == "list_comprehension" || t == "set_comprehension" || t == "dictionary_comprehension" ||
         t == "generator_expression";
}

}  // namespace

// ---- building ---------------------------------------------------------------

namespace {

struct Builder {
  Module::Impl& m;
  std::unordered_map<const void*, std::vector<TSNode>> decorators_of;  // definition -> decorator exprs
  std::vector<std::pair<TSNode, bool>> refs;                           // read names, bool: called
  bool in_except = false;                                              // walking an except clause

  explicit Builder(Module::Impl& impl) : m(impl) {}

  std::string ident(TSNode n) const { return nfkc(m.text(n)); }

  int new_scope(Scope::Kind kind, int parent, TSNode range, std::string prefix) {
    Scope s;
    s.kind = kind;
    s.parent = parent;
    s.start = ts_node_start_byte(range);
    s.end = ts_node_end_byte(range);
    s.prefix = std::move(prefix);
    m.scopes.push_back(std::move(s));
    return static_cast<int>(m.scopes.size()) - 1;
  }

  // The scope a name bound in `scope` lands in, after global/nonlocal.
  int target_scope(const std::string& name, int scope) const {
    const Scope& s = m.scopes[scope];
    if (s.globals.count(name)) return 0;
    if (s.nonlocals.count(name)) {
      for (int p = s.parent; p > 0; p = m.scopes[p].parent)
        if (m.scopes[p].kind == Scope::Kind::function && m.scopes[p].names.count(name)) return p;
      for (int p = s.parent; p > 0; p = m.scopes[p].parent)
        if (m.scopes[p].kind == Scope::Kind::function) return p;
    }
    return scope;
  }

  int bind(const std::string& name, int scope, Binding b) {
    if (name.empty()) return -1;
    b.fallback = in_except;
    int s = target_scope(name, scope);
    m.bindings.push_back(std::move(b));
    int idx = static_cast<int>(m.bindings.size()) - 1;
    m.scopes[s].names[name].push_back(idx);
    return idx;
  }

  void bind_unknown(TSNode id, int scope, uint32_t pos) {
    Binding b;
    b.kind = Binding::Kind::unknown;
    b.pos = pos;
    bind(ident(id), scope, std::move(b));
  }

  void bind_value(const std::string& name, TSNode value, int scope, uint32_t pos) {
    Binding b;
    b.kind = Binding::Kind::value;
    b.pos = pos;
    b.value = value;
    b.value_scope = scope;
    bind(name, scope, std::move(b));
  }

  // The class whose instance `obj` names when it is a method's self.
  int self_class(TSNode obj, int scope, uint32_t pos) const {
    obj = unparen(obj);
    if (!is_type(obj, "identifier")) return -1;
    int found = -1;
    const Binding* b = m.lookup(ident(obj), scope, pos, &found);
    return b && b->kind == Binding::Kind::self_param ? b->index : -1;
  }

  // The class a name denotes, when it is a class defined here.
  int named_class(TSNode obj, int scope, uint32_t pos) const {
    obj = unparen(obj);
    if (!is_type(obj, "identifier")) return -1;
    const Binding* b = m.lookup(ident(obj), scope, pos, nullptr);
    return b && b->kind == Binding::Kind::klass ? b->index : -1;
  }

  // Binds every identifier of a target pattern as unknown, and self.X
  // attributes to nothing known.
  void bind_pattern_unknown(TSNode target, int scope, uint32_t pos) {
    preorder(target, [&](TSNode n, const char*, int) {
      std::string_view t = ts_node_type(n);
      if (t == "identifier") {
        bind_unknown(n, scope, pos);
        return false;
      }
      if (t == "attribute") {
        bind_attribute(n, TSNode{}, scope, pos);
        return false;
      }
      return t != "subscript";
    });
  }

  void bind_attribute(TSNode target, TSNode value, int scope, uint32_t pos) {
    int cls = self_class(field_of(target, "object"), scope, pos);
    if (cls < 0) cls = named_class(field_of(target, "object"), scope, pos);  // ModelNew.op = torch.mm
    if (cls < 0) return;
    Binding b;
    b.kind = ts_node_is_null(value) ? Binding::Kind::unknown : Binding::Kind::value;
    b.pos = pos;
    b.value = value;
    b.value_scope = scope;
    b.index = cls;
    for (int s = scope; s >= 0; s = m.scopes[s].parent)
      if (m.scopes[s].function_index >= 0) {
        b.in_init = m.functions[m.scopes[s].function_index].name == "__init__";
        break;
      }
    m.bindings.push_back(std::move(b));
    m.cinfo[cls].self_attrs[ident(field_of(target, "attribute"))].push_back(
        static_cast<int>(m.bindings.size()) - 1);
  }

  void bind_target(TSNode target, TSNode value, int scope, uint32_t pos, int depth = 0) {
    target = unparen(target);
    if (ts_node_is_null(target) || depth > 32) return;
    std::string_view t = ts_node_type(target);
    if (t == "identifier") {
      if (ts_node_is_null(value)) bind_unknown(target, scope, pos);
      else bind_value(ident(target), value, scope, pos);
    } else if (t == "attribute") {
      bind_attribute(target, value, scope, pos);
    } else if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "tuple" ||
               t == "list" || t == "expression_list") {
      std::vector<TSNode> items = named_children_of(target);
      std::vector<TSNode> values;
      TSNode v = unparen(value);
      if (is_type(v, "tuple") || is_type(v, "list") || is_type(v, "expression_list") ||
          is_type(v, "pattern_list"))
        values = named_children_of(v);
      bool pairwise = values.size() == items.size();
      for (TSNode x : values)
        if (is_type(x, "list_splat") || is_type(x, "parenthesized_list_splat")) pairwise = false;
      for (size_t i = 0; i < items.size(); ++i) {
        if (is_type(items[i], "list_splat_pattern") || is_type(items[i], "list_splat")) {
          bind_pattern_unknown(items[i], scope, pos);
          continue;
        }
        bind_target(items[i], pairwise ? values[i] : TSNode{}, scope, pos, depth + 1);
      }
    } else if (t != "subscript") {
      bind_pattern_unknown(target, scope, pos);
    }
  }

  static TSNode param_identifier(TSNode p) {
    std::string_view t = ts_node_type(p);
    if (t == "identifier") return p;
    if (t == "default_parameter" || t == "typed_default_parameter") return field_of(p, "name");
    if (t == "typed_parameter" || t == "list_splat_pattern" || t == "dictionary_splat_pattern") {
      for (TSNode c : named_children_of(p)) {
        if (is_type(c, "identifier")) return c;
        if (is_type(c, "list_splat_pattern") || is_type(c, "dictionary_splat_pattern")) return param_identifier(c);
      }
    }
    return TSNode{};
  }

  void bind_parameters(TSNode params, int scope, int self_cls) {
    uint32_t pos = m.scopes[scope].start;
    bool first = true;
    for (TSNode p : named_children_of(params)) {
      TSNode id = param_identifier(p);
      if (ts_node_is_null(id)) continue;
      if (first && self_cls >= 0 && (is_type(p, "identifier") || is_type(p, "typed_parameter"))) {
        Binding b;
        b.kind = Binding::Kind::self_param;
        b.pos = 0;
        b.index = self_cls;
        bind(ident(id), scope, std::move(b));
      } else {
        bind_unknown(id, scope, 0);
      }
      first = false;
    }
    (void)pos;
  }

  void on_function(TSNode n, int cur) {
    TSNode name = field_of(n, "name");
    TSNode body = field_of(n, "body");
    const Scope& parent = m.scopes[cur];
    FunctionDef f;
    f.name = ident(name);
    f.qualified_name = parent.prefix + f.name;
    f.node = m.node(n);
    FunctionInfo info;
    int parent_class = parent.kind == Scope::Kind::klass ? parent.class_index : -1;
    if (parent_class >= 0) {
      f.class_name = m.classes[parent_class].name;
      info.class_index = parent_class;
    }
    auto dec = decorators_of.find(node_key(n));
    bool is_static = false;
    if (dec != decorators_of.end()) {
      info.decorator_exprs = dec->second;
      for (TSNode d : dec->second) {
        std::string_view dt = m.text(d);
        if (dt == "staticmethod" || dt == "builtins.staticmethod") is_static = true;
      }
    }
    int fi = static_cast<int>(m.functions.size());
    Binding b;
    b.kind = Binding::Kind::function;
    b.pos = ts_node_start_byte(n);
    b.target = f.qualified_name;
    b.index = fi;
    bind(f.name, cur, std::move(b));
    int s = new_scope(Scope::Kind::function, cur, ts_node_is_null(body) ? n : body, f.qualified_name + ".");
    // Parameters resolve in the function: let its range begin at them.
    TSNode params = field_of(n, "parameters");
    if (!ts_node_is_null(params)) m.scopes[s].start = ts_node_start_byte(params);
    m.scopes[s].function_index = fi;
    info.scope = s;
    m.functions.push_back(std::move(f));
    m.finfo.push_back(std::move(info));
    bind_parameters(params, s, is_static ? -1 : parent_class);
  }

  void on_class(TSNode n, int cur) {
    TSNode name = field_of(n, "name");
    TSNode body = field_of(n, "body");
    ClassDef c;
    c.name = ident(name);
    c.node = m.node(n);
    ClassInfo info;
    for (TSNode a : named_children_of(field_of(n, "superclasses")))
      if (!is_type(a, "keyword_argument") && !is_type(a, "list_splat") && !is_type(a, "dictionary_splat"))
        info.base_exprs.push_back(a);
    int ci = static_cast<int>(m.classes.size());
    Binding b;
    b.kind = Binding::Kind::klass;
    b.pos = ts_node_start_byte(n);
    b.index = ci;
    bind(c.name, cur, std::move(b));
    int s = new_scope(Scope::Kind::klass, cur, ts_node_is_null(body) ? n : body,
                      m.scopes[cur].prefix + c.name + ".");
    m.scopes[s].class_index = ci;
    info.scope = s;
    m.classes.push_back(std::move(c));
    m.cinfo.push_back(std::move(info));
  }

  std::string dotted(TSNode n) const {
    if (is_type(n, "relative_import")) {
      std::string out;
      for (TSNode c : named_children_of(n)) out += is_type(c, "import_prefix") ? std::string(m.text(c)) : dotted(c);
      return out;
    }
    std::string out;
    for (TSNode c : named_children_of(n)) {
      if (!is_type(c, "identifier")) continue;
      if (!out.empty()) out += '.';
      out += ident(c);
    }
    return out;
  }

  void on_import(TSNode n, int cur) {
    uint32_t pos = ts_node_end_byte(n);
    for (TSNode c : named_children_of(n)) {
      Binding b;
      b.kind = Binding::Kind::import_;
      b.pos = pos;
      if (is_type(c, "aliased_import")) {
        b.target = dotted(field_of(c, "name"));
        bind(ident(field_of(c, "alias")), cur, std::move(b));
      } else if (is_type(c, "dotted_name")) {
        std::string full = dotted(c);
        std::string first = full.substr(0, full.find('.'));
        b.target = first;
        bind(first, cur, std::move(b));
      }
    }
  }

  void on_import_from(TSNode n, int cur) {
    uint32_t pos = ts_node_end_byte(n);
    TSNode mod = field_of(n, "module_name");
    std::string base = dotted(mod);
    for (TSNode c : named_children_of(n)) {
      if (ts_node_eq(c, mod)) continue;
      Binding b;
      b.kind = Binding::Kind::import_;
      b.pos = pos;
      auto join = [&](const std::string& x) { return base.empty() || base.back() == '.' ? base + x : base + "." + x; };
      if (is_type(c, "aliased_import")) {
        b.target = join(dotted(field_of(c, "name")));
        bind(ident(field_of(c, "alias")), cur, std::move(b));
      } else if (is_type(c, "dotted_name")) {
        std::string name = dotted(c);
        b.target = join(name);
        bind(name, cur, std::move(b));
      } else if (is_type(c, "wildcard_import")) {
        m.scopes[target_scope("*", cur)].wildcards.push_back(base);
      }
    }
  }

  void on_assignment(TSNode n, int cur) {
    // a = b = value: every target gets the innermost value.
    TSNode value = field_of(n, "right");
    for (int guard = 0; is_type(value, "assignment") && guard < 1000; ++guard) value = field_of(value, "right");
    if (is_type(value, "augmented_assignment") || is_type(value, "yield")) value = TSNode{};
    TSNode left = field_of(n, "left");
    if (ts_node_is_null(field_of(n, "right"))) return;  // `x: int` binds nothing
    bind_target(left, value, cur, ts_node_end_byte(n));
  }

  void on_augmented(TSNode n, int cur) {
    TSNode left = unparen(field_of(n, "left"));
    TSNode op = field_of(n, "operator");
    uint32_t pos = ts_node_end_byte(n);
    if (is_type(left, "identifier")) {
      Binding b;
      b.kind = Binding::Kind::augmented;
      b.pos = pos;
      b.value = field_of(n, "right");
      b.value_scope = cur;
      std::string_view o = m.text(op);
      b.op = o.empty() ? '?' : o[0];
      bind(ident(left), cur, std::move(b));
    } else if (is_type(left, "attribute")) {
      bind_attribute(left, TSNode{}, cur, pos);
    }
  }

  // Named expressions in a comprehension bind in the enclosing function (PEP 572).
  int walrus_scope(int cur) const {
    while (cur > 0 && m.scopes[cur].kind == Scope::Kind::comprehension) cur = m.scopes[cur].parent;
    return cur;
  }

  void run() {
    TSNode root = ts_tree_root_node(m.tree);
    Scope mod;
    mod.kind = Scope::Kind::module;
    mod.start = 0;
    mod.end = std::max<uint32_t>(ts_node_end_byte(root), static_cast<uint32_t>(m.src.size())) + 1;
    m.scopes.push_back(std::move(mod));

    struct Frame {
      int depth;
      int scope;
    };
    std::vector<Frame> stack{{-1, 0}};
    std::vector<int> except_depths;  // depths of the except clauses around the node
    std::vector<TSNode> ancestors;
    int last_error_line = -1;

    preorder(root, [&](TSNode n, const char* field, int depth) -> bool {
      while (stack.size() > 1 && stack.back().depth >= depth) stack.pop_back();
      while (!except_depths.empty() && except_depths.back() >= depth) except_depths.pop_back();
      in_except = !except_depths.empty();
      ancestors.resize(depth);
      ancestors.push_back(n);
      int cur = stack.back().scope;
      if (ts_node_is_missing(n) || (ts_node_is_named(n) && std::string_view(ts_node_type(n)) == "ERROR")) {
        int line = line_of(n);
        if (line != last_error_line) m.error_lines.push_back(line);
        last_error_line = line;
      }
      if (!ts_node_is_named(n)) return false;
      std::string_view t = ts_node_type(n);
      std::string_view f = field ? std::string_view(field) : std::string_view();
      if (t == "identifier") {
        std::string_view pt = depth > 0 ? ts_node_type(ancestors[depth - 1]) : "";
        if (cur != 0 && f != "attribute" && f != "object" && f != "name" && f != "alias" && pt != "parameters" &&
            pt != "lambda_parameters" && pt != "dotted_name" && pt != "global_statement" &&
            pt != "nonlocal_statement" && pt != "typed_parameter")
          refs.emplace_back(n, f == "function");
        return false;
      }
      if (t == "attribute") {
        if (cur != 0 && f != "object") refs.emplace_back(n, f == "function");
        return true;
      }
      if (t == "call") {
        Call c;
        c.node = m.node(n);
        c.callee = m.node(field_of(n, "function"));
        m.calls.push_back(std::move(c));
        return true;
      }
      if (t == "except_clause" || t == "except_group_clause") {
        except_depths.push_back(depth);
        return true;
      }
      if (t == "import_statement") {
        on_import(n, cur);
        return false;
      }
      if (t == "import_from_statement") {
        on_import_from(n, cur);
        return false;
      }
      if (t == "decorated_definition") {
        record_decorators(n);
        return true;
      }
      if (const int s = open_scope(n, t, cur); s >= 0) {
        stack.push_back({depth, s});
        return true;
      }
      return on_binding(n, t, cur);
    });
    index_scopes();
  }

  void record_decorators(TSNode n) {
    std::vector<TSNode> decs;
    for (TSNode c : named_children_of(n))
      if (is_type(c, "decorator")) {
        TSNode e = ts_node_named_child(c, 0);
        if (!ts_node_is_null(e)) decs.push_back(e);
      }
    TSNode def = field_of(n, "definition");
    if (!ts_node_is_null(def)) decorators_of[node_key(def)] = std::move(decs);
  }

  // The scope a def, class, lambda or comprehension opens (its parameters
  // and loop targets bound), or -1 for any other node.
  int open_scope(TSNode n, std::string_view t, int cur) {
    if (t == "function_definition") {
      on_function(n, cur);
      return m.finfo.back().scope;
    }
    if (t == "class_definition") {
      on_class(n, cur);
      return m.cinfo.back().scope;
    }
    if (t == "lambda") {
      int s = new_scope(Scope::Kind::lambda, cur, n, m.scopes[cur].prefix);
      for (TSNode p : named_children_of(field_of(n, "parameters"))) {
        TSNode id = param_identifier(p);
        if (!ts_node_is_null(id)) bind_unknown(id, s, 0);
      }
      return s;
    }
    if (is_scope_type(t)) {
      int s = new_scope(Scope::Kind::comprehension, cur, n, m.scopes[cur].prefix);
      for (TSNode c : named_children_of(n))
        if (is_type(c, "for_in_clause")) bind_pattern_unknown(field_of(c, "left"), s, 0);
      return s;
    }
    return -1;
  }

  // Binds what a statement binds in scope `cur`; whether to walk its children.
  bool on_binding(TSNode n, std::string_view t, int cur) {
    if (t == "assignment") {
      on_assignment(n, cur);
    } else if (t == "augmented_assignment") {
      on_augmented(n, cur);
    } else if (t == "named_expression") {
      TSNode name = field_of(n, "name");
      if (!ts_node_is_null(name)) bind_value(ident(name), field_of(n, "value"), walrus_scope(cur), ts_node_end_byte(n));
    } else if (t == "for_statement") {
      bind_pattern_unknown(field_of(n, "left"), cur, ts_node_start_byte(n));
    } else if (t == "as_pattern") {
      bind_pattern_unknown(field_of(n, "alias"), cur, ts_node_end_byte(n));
    } else if (t == "global_statement" || t == "nonlocal_statement") {
      for (TSNode c : named_children_of(n))
        if (is_type(c, "identifier"))
          (t == "global_statement" ? m.scopes[cur].globals : m.scopes[cur].nonlocals).insert(ident(c));
      return false;
    }
    return true;
  }

  // Scopes in source order, functions by qualified name, and the names read
  // inside each function (for reachability).
  void index_scopes() {
    m.scopes_by_start.resize(m.scopes.size());
    for (size_t i = 0; i < m.scopes.size(); ++i) m.scopes_by_start[i] = static_cast<int>(i);
    std::stable_sort(m.scopes_by_start.begin(), m.scopes_by_start.end(),
                     [&](int a, int b) { return m.scopes[a].start < m.scopes[b].start; });
    for (size_t i = 0; i < m.functions.size(); ++i) m.function_by_qualified.emplace(m.functions[i].qualified_name, i);
    for (auto& [n, called] : refs) {
      for (int s = m.scope_at(ts_node_start_byte(n)); s >= 0; s = m.scopes[s].parent)
        if (m.scopes[s].function_index >= 0) {
          m.finfo[m.scopes[s].function_index].refs.emplace_back(n, called);
          break;
        }
    }
  }
};

}  // namespace

void Module::Impl::build_scopes() {
  Builder b(*this);
  b.run();
}

int Module::Impl::scope_at(uint32_t byte) const {
  auto it = std::upper_bound(scopes_by_start.begin(), scopes_by_start.end(), byte,
                             [&](uint32_t v, int s) { return v < scopes[s].start; });
  if (it == scopes_by_start.begin()) return 0;
  for (int s = *(it - 1); s >= 0; s = scopes[s].parent)
    if (scopes[s].start <= byte && byte < scopes[s].end) return s;
  return 0;
}

// ---- resolution -------------------------------------------------------------

const Binding* Module::Impl::lookup(const std::string& name, int scope, uint32_t pos, int* found_scope) const {
  bool first = true;
  for (int s = scope; s >= 0;) {
    const Scope& sc = scopes[s];
    if (!first && sc.kind == Scope::Kind::klass) {
      s = sc.parent;
      continue;
    }
    if (s != 0 && sc.globals.count(name)) {
      s = 0;
      first = false;
      continue;
    }
    auto it = sc.names.find(name);
    if (it != sc.names.end() && !it->second.empty()) {
      const std::vector<int>& v = it->second;
      int pick = v.back();
      if (s == scope) {
        // The last binding in effect at `pos`; a use before any (a loop,
        // a function called later) sees the last one.
        auto up = std::upper_bound(v.begin(), v.end(), pos, [&](uint32_t p, int b) { return p < bindings[b].pos; });
        if (up != v.begin()) pick = *(up - 1);
      }
      // `try: import triton` / `except ImportError: triton = None`: the
      // binding of the path that normally runs wins over the fallback.
      if (bindings[pick].fallback)
        for (auto rit = std::make_reverse_iterator(std::find(v.begin(), v.end(), pick)); rit != v.rend(); ++rit)
          if (!bindings[*rit].fallback) {
            pick = *rit;
            break;
          }
      if (found_scope) *found_scope = s;
      return &bindings[pick];
    }
    first = false;
    s = sc.parent;
  }
  return nullptr;
}

Sym Module::Impl::binding_sym(int bi, int depth) const {
  auto& b = const_cast<Binding&>(bindings[bi]);
  switch (b.kind) {
    case Binding::Kind::import_: return Sym::name(b.target);
    case Binding::Kind::function: return Sym::name(b.target, b.index);
    case Binding::Kind::klass: return Sym::name(classes[b.index].name, -1, b.index);
    case Binding::Kind::self_param: return Sym::instance(b.index, true);
    case Binding::Kind::unknown:
    case Binding::Kind::augmented: return {};
    case Binding::Kind::value: break;
  }
  if (b.state == 2) return b.resolved;
  if (b.state == 1) return {};  // a cycle: a = b; b = a
  if (!building) return resolve_in(b.value, b.value_scope, ts_node_start_byte(b.value), depth + 1);
  b.state = 1;
  bool outer_truncated = g_truncated;
  g_truncated = false;
  Sym s = resolve_in(b.value, b.value_scope, ts_node_start_byte(b.value), depth + 1);
  // A result cut short by a depth limit is not memoised: a later,
  // shallower request computes it in full.
  if (g_truncated) {
    b.state = 0;
  } else {
    b.state = 2;
    b.resolved = s;
  }
  g_truncated = outer_truncated || g_truncated;
  return s;
}

void Module::Impl::resolve_all_bindings() {
  for (size_t i = 0; i < bindings.size(); ++i)
    if (bindings[i].kind == Binding::Kind::value && bindings[i].state == 0) binding_sym(static_cast<int>(i), 0);
}

int Module::Impl::member_binding(int cls, const std::string& attr) const {
  std::vector<int> order{cls};
  std::vector<char> seen(classes.size(), 0);
  seen[cls] = 1;
  for (size_t i = 0; i < order.size(); ++i) {
    const ClassInfo& ci = cinfo[order[i]];
    auto it = ci.self_attrs.find(attr);
    if (it != ci.self_attrs.end() && !it->second.empty()) {
      // Several assignments: the one __init__ makes last, else the last.
      int pick = it->second.back();
      for (int b : it->second)
        if (bindings[b].in_init) pick = b;
      return pick;
    }
    const Scope& sc = scopes[ci.scope];
    auto jt = sc.names.find(attr);
    if (jt != sc.names.end() && !jt->second.empty()) return jt->second.back();
    for (int b : ci.local_bases)
      if (!seen[b]) {
        seen[b] = 1;
        order.push_back(b);
      }
  }
  return -1;
}

Sym Module::Impl::member(int cls, const std::string& attr, int depth) const {
  int b = member_binding(cls, attr);
  return b < 0 ? Sym{} : binding_sym(b, depth);
}

int Module::Impl::binding_of(TSNode ref) const {
  ref = unparen(ref);
  if (is_type(ref, "identifier")) {
    uint32_t pos = ts_node_start_byte(ref);
    const Binding* b = lookup(nfkc(text(ref)), scope_at(pos), pos, nullptr);
    return b ? static_cast<int>(b - bindings.data()) : -1;
  }
  if (is_type(ref, "attribute")) {
    Sym obj = resolve(field_of(ref, "object"));
    int cls = obj.kind == Sym::Kind::instance || (obj.kind == Sym::Kind::name && obj.fn < 0) ? obj.cls : -1;
    if (cls >= 0) return member_binding(cls, nfkc(text(field_of(ref, "attribute"))));
  }
  return -1;
}

Sym Module::Impl::resolve(TSNode expr, int depth) const {
  uint32_t pos = ts_node_start_byte(expr);
  return resolve_in(expr, scope_at(pos), pos, depth);
}

Sym Module::Impl::resolve_name(const std::string& name, int scope, uint32_t pos, int depth) const {
  int found = -1;
  const Binding* b = lookup(name, scope, pos, &found);
  if (b) return binding_sym(static_cast<int>(b - bindings.data()), depth);
  if (!builtins().count(name) && !scopes[0].wildcards.empty()) return Sym::name(scopes[0].wildcards.back() + "." + name);
  return Sym::name(name);
}

namespace {

Sym apply_attribute(const Module::Impl& m, Sym s, const std::string& attr, int depth) {
  switch (s.kind) {
    case Sym::Kind::none: return {};
    case Sym::Kind::instance: return m.member(s.cls, attr, depth);
    case Sym::Kind::name:
      if (s.cls >= 0) {
        Sym member = m.member(s.cls, attr, depth);
        if (member.kind != Sym::Kind::none) return member;
      }
      return Sym::name(s.q + "." + attr);
  }
  return {};
}

}  // namespace

Sym Module::Impl::resolve_in(TSNode n, int scope, uint32_t pos, int depth) const {
  NestGuard guard;
  if (!guard.ok || depth >= kMaxResolveDepth) {
    g_truncated = true;
    return {};
  }
  if (ts_node_is_null(n)) return {};
  std::vector<std::string> attrs;  // innermost last
  n = unparen(n);
  while (is_type(n, "attribute")) {
    if (attrs.size() >= kMaxAttributeChain) return {};
    attrs.push_back(nfkc(text(field_of(n, "attribute"))));
    n = unparen(field_of(n, "object"));
  }
  Sym s;
  std::string_view t = ts_node_is_null(n) ? "" : ts_node_type(n);
  if (t == "identifier") {
    s = resolve_name(nfkc(text(n)), scope, pos, depth);
  } else if (t == "call") {
    TSNode fn = field_of(n, "function");
    Sym f = resolve_in(fn, scope, pos, depth + 1);
    std::vector<TSNode> args;
    bool has_fromlist = false;
    for (TSNode a : named_children_of(field_of(n, "arguments"))) {
      if (is_type(a, "keyword_argument")) {
        has_fromlist |= text(field_of(a, "name")) == "fromlist";
        continue;
      }
      if (is_type(a, "comment")) continue;
      args.push_back(a);
    }
    if (f.kind == Sym::Kind::name) {
      auto folded = [&](TSNode a) -> std::optional<std::string> {
        FoldContext ctx;
        Folded out;
        if (!fold_string(a, ctx, out) || !out.complete) return std::nullopt;
        return std::move(out.text);
      };
      if (f.q == "getattr" && args.size() >= 2) {
        if (auto name = folded(args[1])) s = apply_attribute(*this, resolve_in(args[0], scope, pos, depth + 1), *name, depth + 1);
      } else if ((f.q == "importlib.import_module" || f.q == "importlib.__import__") && !args.empty()) {
        if (auto name = folded(args[0]); name && !name->empty() && name->front() != '.') s = Sym::name(*name);
      } else if (f.q == "__import__" && !args.empty()) {
        if (auto name = folded(args[0]); name && !name->empty()) {
          if (has_fromlist || args.size() >= 4) s = Sym::name(*name);
          else s = Sym::name(name->substr(0, name->find('.')));
        }
      } else if (f.q == "super" && classes.size() > 0) {
        // super() in a method: the first base of its class defined here.
        for (int sc = scope; sc >= 0; sc = scopes[sc].parent) {
          int fi = scopes[sc].function_index;
          if (fi < 0) continue;
          int cls = finfo[fi].class_index;
          if (cls >= 0 && !cinfo[cls].local_bases.empty()) s = Sym::instance(cinfo[cls].local_bases.front(), true);
          break;
        }
      } else if (f.cls >= 0 && f.fn < 0) {
        s = Sym::instance(f.cls, false);
      }
    }
  } else if (t == "subscript") {
    TSNode value = unparen(field_of(n, "value"));
    TSNode key = field_of(n, "subscript");
    FoldContext ctx;
    Folded k;
    if (!ts_node_is_null(key) && fold_string(key, ctx, k) && k.complete) {
      if (is_type(value, "attribute") && text(field_of(value, "attribute")) == "__dict__") {
        s = apply_attribute(*this, resolve_in(field_of(value, "object"), scope, pos, depth + 1), k.text, depth + 1);
      } else if (is_type(value, "call")) {
        Sym f = resolve_in(field_of(value, "function"), scope, pos, depth + 1);
        std::vector<TSNode> args = named_children_of(field_of(value, "arguments"));
        if (f.kind == Sym::Kind::name && f.q == "vars" && args.size() == 1)
          s = apply_attribute(*this, resolve_in(args[0], scope, pos, depth + 1), k.text, depth + 1);
        else if (f.kind == Sym::Kind::name && f.q == "globals" && args.empty())
          s = resolve_name(k.text, 0, UINT32_MAX, depth + 1);
      } else {
        Sym v = resolve_in(value, scope, pos, depth + 1);
        if (v.kind == Sym::Kind::name && v.q == "sys.modules") s = Sym::name(k.text);
      }
    }
  }
  for (auto it = attrs.rbegin(); it != attrs.rend() && s.kind != Sym::Kind::none; ++it)
    s = apply_attribute(*this, std::move(s), *it, depth + 1);
  return s;
}

}  // namespace kaudit::analyzer::python
