// Internals of the Python front, shared by its .cpp files and by nothing
// else: the scope tree, the bindings, the resolution memo and the tables
// computed once at parse. Checks use module.h only.
#pragma once

#include "analyzer/python/module.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

namespace kaudit::analyzer::python {

// The front's own way between Node and tree-sitter's handle (Node keeps both private).
struct NodeAccess {
  static TSNode raw(const Node& n) { return n.raw(); }
  static Node make(TSNode n, const Module* m) { return Node(n, m); }
};
inline TSNode raw_of(const Node& n) { return NodeAccess::raw(n); }

// Limits that keep hostile input (deep nesting, cyclic or exponential
// definitions) from overflowing the stack or running for ever.
inline constexpr int kMaxResolveDepth = 64;
inline constexpr int kMaxFoldDepth = 96;
inline constexpr long kMaxFoldSteps = 2'000'000;
inline constexpr size_t kMaxFoldBytes = 8u << 20;  // no embedded source is near this
inline constexpr size_t kMaxMemoBytes = 1u << 20;
// A dotted name of more attributes than this names nothing kaudit knows
// (torch.nn.functional.softmax has four): it resolves to nothing, and the
// chain is not read further (a.b.b.b... 100,000 long was cubic: every link
// of it resolved again, each building the whole name).
inline constexpr size_t kMaxAttributeChain = 64;

// What an expression denotes, as far as the symbol model can tell.
struct Sym {
  enum class Kind : uint8_t { none, name, instance };
  Kind kind = Kind::none;
  std::string q;  // name: the qualified name ("torch.matmul", "helper", "ModelNew.forward")
  int fn = -1;    // name: the local function it names, if any
  int cls = -1;   // name: the local class it names, if any; instance: the instance's class
  bool is_self = false;  // instance: the `self`/`cls` parameter of a method

  static Sym name(std::string q, int fn = -1, int cls = -1) {
    Sym s;
    s.kind = Kind::name;
    s.q = std::move(q);
    s.fn = fn;
    s.cls = cls;
    return s;
  }
  static Sym instance(int cls, bool self) {
    Sym s;
    s.kind = Kind::instance;
    s.cls = cls;
    s.is_self = self;
    return s;
  }
};

struct Binding {
  enum class Kind : uint8_t { import_, value, augmented, function, klass, self_param, unknown };
  Kind kind = Kind::unknown;
  uint32_t pos = 0;      // byte from which the binding holds (end of its statement)
  TSNode value{};        // value, augmented: the expression assigned
  int value_scope = 0;   // the scope `value` is evaluated in
  std::string target;    // import_: the module path; function: the qualified name
  int index = -1;        // function: function index; klass, self_param: class index
  char op = 0;           // augmented: the operator's first character ('+', '*', ...)
  bool in_init = false;  // self attributes: assigned in __init__
  bool fallback = false; // made in an except clause: `except ImportError: triton = None`
  // Resolution memo, filled while the module is built.
  uint8_t state = 0;  // 0 not yet, 1 in progress, 2 done
  Sym resolved;
};

using NameTable = std::unordered_map<std::string, std::vector<int>>;  // name -> bindings, in text order

struct Scope {
  enum class Kind : uint8_t { module, function, klass, lambda, comprehension };
  Kind kind = Kind::module;
  int parent = -1;
  uint32_t start = 0, end = 0;  // bytes where names resolve here: the body
  int function_index = -1;
  int class_index = -1;
  std::string prefix;  // qualified-name prefix of definitions inside: "ModelNew.", "outer."
  NameTable names;
  std::unordered_set<std::string> globals, nonlocals;
  std::vector<std::string> wildcards;  // modules of `from M import *`
};

struct FunctionInfo {
  int scope = -1;
  int class_index = -1;  // methods: their class
  std::vector<TSNode> decorator_exprs;
  std::vector<std::pair<TSNode, bool>> refs;  // names and attributes read in the body; bool: called
};

struct ClassInfo {
  int scope = -1;
  std::vector<TSNode> base_exprs;
  std::vector<int> local_bases;  // classes of this file among the bases
  NameTable self_attrs;          // self.X = ... in its methods
  bool is_module = false;        // a torch.nn.Module subclass, directly or through local bases
};

// A string folded from constants, with the .py line of each of its lines.
struct Folded {
  std::string text;
  std::vector<int> lines;  // empty while text is empty; else count('\n') + 1 entries
  bool complete = true;

  void put(char c, int line_here, int line_next);
  void append(const Folded& b);
  void append_text(std::string_view s, int line);  // text without newlines mapped to `line`, or the
                                                   // newlines mapped to `line` as well
  void fix_lines();                                // makes lines match the text after a rewrite
};

// What the sub-contexts of one fold share: the step budget and the folded
// values of names (a = b + b; b = c + c; ... would be exponential without).
struct FoldShared {
  long steps = 0;
  bool mutated_list = false;  // a list read was appended to somewhere: its items are not all known
  std::unordered_map<long long, Folded> memo;  // binding * 2 + lenient -> its value
};

struct FoldContext {
  bool lenient = false;  // put placeholders for non-constant parts instead of failing
  std::shared_ptr<FoldShared> sh = std::make_shared<FoldShared>();
  int depth = 0;
  std::vector<int> active;  // bindings being folded (cycles)

  FoldContext() = default;
  explicit FoldContext(bool lenient_) : lenient(lenient_) {}
  FoldContext(const FoldContext&) = default;
  FoldContext& operator=(const FoldContext&) = delete;
  bool exhausted() const { return sh->steps > kMaxFoldSteps; }
  FoldContext strict() const {
    FoldContext c(*this);
    c.lenient = false;
    return c;
  }
};

struct Module::Impl {
  const Module* self = nullptr;
  std::string_view src;
  TSParser* parser = nullptr;
  TSTree* tree = nullptr;
  std::vector<int> error_lines;
  std::vector<std::pair<int, int>> unparsed;  // line ranges left out of the tree

  // Every node's parent, filled once after the parse: tree-sitter 0.20's
  // ts_node_parent walks down from the root, which made checks that climb
  // parents quadratic (cubic on deeply nested hostile input).
  struct NodeKey {
    const void* id;
    uint32_t start;
    bool operator==(const NodeKey& o) const { return id == o.id && start == o.start; }
  };
  struct NodeKeyHash {
    size_t operator()(const NodeKey& k) const { return std::hash<const void*>()(k.id) ^ (size_t{k.start} << 1); }
  };
  std::unordered_map<NodeKey, TSNode, NodeKeyHash> parents;
  void build_parents();

  // module.cpp: the time-bounded parse.
  void parse_bounded(const ParseLimits& limits);

  std::vector<Scope> scopes;       // 0 is the module
  std::vector<int> scopes_by_start;
  std::vector<Binding> bindings;
  std::vector<FunctionDef> functions;
  std::vector<FunctionInfo> finfo;
  std::vector<ClassDef> classes;
  std::vector<ClassInfo> cinfo;
  std::vector<Call> calls;
  std::unordered_set<std::string> mutated_names;  // receivers of .append/.extend/.insert/...
  std::vector<EmbeddedSource> embedded;
  std::unordered_map<std::string, int> function_by_qualified;
  int model = -1;
  bool building = true;  // memo writes are allowed only while building

  ~Impl();

  // module.cpp
  std::string_view text(TSNode n) const;
  Node node(TSNode n) const { return NodeAccess::make(n, self); }

  // symbols.cpp: the scope tree and the bindings (one walk), then resolution.
  void build_scopes();
  int scope_at(uint32_t byte) const;
  Sym resolve(TSNode expr, int depth = 0) const;
  Sym resolve_in(TSNode expr, int scope, uint32_t pos, int depth) const;
  Sym resolve_name(const std::string& name, int scope, uint32_t pos, int depth) const;
  Sym binding_sym(int b, int depth) const;
  Sym member(int cls, const std::string& attr, int depth) const;
  // The binding that gives class `cls` (or a local base) its attribute `attr`; -1 if none.
  int member_binding(int cls, const std::string& attr) const;
  // The binding a name or a self.X/Class.X attribute reads; -1 if none.
  int binding_of(TSNode ref) const;
  const Binding* lookup(const std::string& name, int scope, uint32_t pos, int* found_scope) const;
  void resolve_all_bindings();

  // folding.cpp
  bool fold_string(TSNode n, FoldContext& ctx, Folded& out) const;
  // fold_string's steps, one a node type (or string method).
  bool fold_string_literal(TSNode n, FoldContext& ctx, Folded& out) const;
  bool fold_concatenated(TSNode n, FoldContext& ctx, Folded& out) const;
  bool fold_sum(TSNode n, FoldContext& ctx, Folded& out) const;
  bool fold_percent_format(TSNode n, int line, FoldContext& ctx, Folded& out) const;
  bool fold_bound_name(TSNode n, int line, FoldContext& ctx, Folded& out) const;
  bool fold_call(TSNode n, int line, FoldContext& ctx, Folded& out) const;
  std::optional<bool> fold_string_method(TSNode fn, const std::vector<TSNode>& args, const std::vector<TSNode>& kwargs,
                                         int line, FoldContext& ctx, Folded& out) const;
  bool fold_join(TSNode obj, TSNode seq_expr, int line, FoldContext& ctx, Folded& out) const;
  bool fold_format(TSNode obj, const std::vector<TSNode>& args, const std::vector<TSNode>& kwargs, int line,
                   FoldContext& ctx, Folded& out) const;
  bool fold_strip_or_case(TSNode obj, std::string_view method, int line, FoldContext& ctx, Folded& out) const;
  bool fold_replace(TSNode obj, const std::vector<TSNode>& args, int line, FoldContext& ctx, Folded& out) const;
  bool fold_builtin_call(TSNode fn, const std::vector<TSNode>& args, int line, FoldContext& ctx, Folded& out) const;
  bool fold_subscript(TSNode n, int line, FoldContext& ctx, Folded& out) const;
  std::optional<long long> fold_int(TSNode n, FoldContext& ctx) const;
  // The bindings that give a name (or self.X, Class.X) its value where it
  // is read: one assignment, then augmented assignments. False otherwise.
  bool value_chain(TSNode expr, std::vector<int>& chain) const;
  // Items of a list or tuple (followed through a name bound once), or the node itself.
  std::vector<TSNode> sequence_items(TSNode n, FoldContext& ctx) const;

  // model.cpp
  void build_model();
  void mark_reachable_from_forward();  // FunctionDef::reachable_from_forward, once `model` is known
  // embedded.cpp
  void build_embedded();
};

// Bounds the mutual recursion of resolution and folding on one thread,
// whatever path it takes (getattr of a folded string of a name of ...).
inline thread_local int g_nesting = 0;
inline thread_local bool g_truncated = false;  // a depth limit was hit
struct NestGuard {
  bool ok;
  NestGuard() : ok(++g_nesting <= 160) {
    if (!ok) g_truncated = true;
  }
  ~NestGuard() { --g_nesting; }
  NestGuard(const NestGuard&) = delete;
  NestGuard& operator=(const NestGuard&) = delete;
};

// Iterative preorder over the subtree at `root`, named and anonymous nodes.
// enter(node, field name or nullptr, depth) returns whether to descend.
template <class F>
void preorder(TSNode root, F&& enter) {
  if (ts_node_is_null(root)) return;
  TSTreeCursor c = ts_tree_cursor_new(root);
  int depth = 0;
  bool descend = enter(root, static_cast<const char*>(nullptr), 0);
  for (;;) {
    if (descend && ts_tree_cursor_goto_first_child(&c)) {
      ++depth;
    } else {
      for (;;) {
        if (depth == 0) {
          ts_tree_cursor_delete(&c);
          return;
        }
        if (ts_tree_cursor_goto_next_sibling(&c)) break;
        ts_tree_cursor_goto_parent(&c);
        --depth;
      }
    }
    descend = enter(ts_tree_cursor_current_node(&c), ts_tree_cursor_current_field_name(&c), depth);
  }
}

// Named children through a cursor (ts_node_named_child(i) is linear in i).
std::vector<TSNode> named_children_of(TSNode n);
// Strips parentheses around an expression, iteratively.
TSNode unparen(TSNode n);
inline bool is_type(TSNode n, std::string_view t) { return !ts_node_is_null(n) && t == ts_node_type(n); }
inline TSNode field_of(TSNode n, const char* f) {
  return ts_node_is_null(n) ? n : ts_node_child_by_field_name(n, f, static_cast<uint32_t>(std::strlen(f)));
}
inline int line_of(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
inline const void* node_key(TSNode n) { return n.id; }

}  // namespace kaudit::analyzer::python
