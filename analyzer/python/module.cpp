// The parse and the node view: tree-sitter with the tree-sitter-python
// grammar, an iterative walk, and the entry that builds the symbol model.
#include "analyzer/python/module_impl.h"

#include <algorithm>

namespace kaudit::analyzer::python {

// ---- Node -------------------------------------------------------------------

std::string_view Node::type() const { return valid() ? std::string_view(ts_node_type(node_)) : std::string_view(); }

std::string_view Node::text() const { return valid() ? module_->impl_->text(node_) : std::string_view(); }

int Node::line() const { return valid() ? line_of(node_) : 0; }

int Node::column() const { return valid() ? static_cast<int>(ts_node_start_point(node_).column) + 1 : 0; }

int Node::end_line() const { return valid() ? static_cast<int>(ts_node_end_point(node_).row) + 1 : 0; }

Node Node::parent() const {
  if (!valid()) return {};
  const auto& parents = module_->impl_->parents;
  const auto it = parents.find({node_.id, ts_node_start_byte(node_)});
  if (it != parents.end()) return Node(it->second, module_);
  if (!parents.empty()) return {};  // the root, or a node of no tree of this module
  TSNode p = ts_node_parent(node_);
  return ts_node_is_null(p) ? Node() : Node(p, module_);
}

void Module::Impl::build_parents() {
  if (!tree) return;
  std::vector<TSNode> stack;  // the path from the root to the cursor's node
  preorder(ts_tree_root_node(tree), [&](TSNode n, const char*, int depth) {
    stack.resize(depth);
    if (depth > 0) parents[{n.id, ts_node_start_byte(n)}] = stack.back();
    stack.push_back(n);
    return true;
  });
}

Node Node::field(const char* name) const {
  if (!valid()) return {};
  TSNode f = field_of(node_, name);
  return ts_node_is_null(f) ? Node() : Node(f, module_);
}

std::vector<Node> Node::named_children() const {
  std::vector<Node> out;
  if (!valid()) return out;
  for (TSNode c : named_children_of(node_)) out.push_back(Node(c, module_));
  return out;
}

std::vector<Node> Node::children() const {
  std::vector<Node> out;
  if (!valid()) return out;
  const uint32_t count = ts_node_child_count(node_);
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) out.push_back(Node(ts_node_child(node_, i), module_));
  return out;
}

uint32_t Node::start_byte() const { return valid() ? ts_node_start_byte(node_) : 0; }

uint32_t Node::end_byte() const { return valid() ? ts_node_end_byte(node_) : 0; }

bool Node::is_named() const { return valid() && ts_node_is_named(node_); }

bool Node::contains(const Node& inner) const {
  if (!valid() || !inner.valid()) return false;
  return start_byte() <= inner.start_byte() && inner.end_byte() <= end_byte();
}

std::vector<std::string> Node::operator_tokens() const {
  std::vector<std::string> ops;
  std::string pending;
  for (const Node& c : children()) {
    if (c.is_named()) {
      if (!pending.empty()) ops.push_back(pending);
      pending.clear();
      continue;
    }
    const std::string tok(c.type());
    if (tok == "(" || tok == ")" || tok == ",") continue;
    pending = pending.empty() ? tok : pending + " " + tok;
  }
  if (!pending.empty()) ops.push_back(pending);
  return ops;
}

std::vector<Node> Node::positional_args() const {
  std::vector<Node> out;
  Node args = field("arguments");
  if (!args.valid() || args.type() != "argument_list") return out;
  for (const Node& a : args.named_children()) {
    const auto t = a.type();
    if (t == "keyword_argument" || t == "comment" || t == "list_splat" || t == "dictionary_splat") continue;
    out.push_back(a);
  }
  return out;
}

Node Node::keyword_arg(std::string_view name) const {
  Node args = field("arguments");
  if (!args.valid() || args.type() != "argument_list") return {};
  for (const Node& a : args.named_children()) {
    if (a.type() != "keyword_argument") continue;
    Node k = a.field("name");
    if (k.valid() && k.text() == name) return a.field("value");
  }
  return {};
}

bool Node::is_error() const {
  return valid() && (ts_node_is_missing(node_) || std::string_view(ts_node_type(node_)) == "ERROR");
}

// ---- helpers ----------------------------------------------------------------

std::vector<TSNode> named_children_of(TSNode n) {
  std::vector<TSNode> out;
  if (ts_node_is_null(n)) return out;
  TSTreeCursor c = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&c)) {
    do {
      TSNode k = ts_tree_cursor_current_node(&c);
      if (ts_node_is_named(k)) out.push_back(k);
    } while (ts_tree_cursor_goto_next_sibling(&c));
  }
  ts_tree_cursor_delete(&c);
  return out;
}

TSNode unparen(TSNode n) {
  while (is_type(n, "parenthesized_expression")) {
    TSNode inner = ts_node_named_child(n, 0);
    if (ts_node_is_null(inner)) break;
    // `(a, b)` is a tuple, `(yield)` a yield: only a lone expression unwraps.
    if (ts_node_named_child_count(n) != 1) break;
    n = inner;
  }
  return n;
}

// ---- Module -----------------------------------------------------------------

Module::Impl::~Impl() {
  if (tree) ts_tree_delete(tree);
  if (parser) ts_parser_delete(parser);
}

std::string_view Module::Impl::text(TSNode n) const {
  if (ts_node_is_null(n)) return {};
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (b > src.size()) return {};
  e = std::min<uint32_t>(e, static_cast<uint32_t>(src.size()));
  return src.substr(b, e - b);
}

Module::Module(SourceFile file) : file_(std::move(file)), impl_(std::make_unique<Impl>()) {}
Module::~Module() = default;

std::unique_ptr<Module> Module::parse(SourceFile file) { return parse(std::move(file), ParseLimits{}); }

std::unique_ptr<Module> Module::parse(SourceFile file, const ParseLimits& limits) {
  std::unique_ptr<Module> m(new Module(std::move(file)));
  Impl& im = *m->impl_;
  im.self = m.get();
  // tree-sitter takes a 32-bit length; nothing that large is a submission.
  if (m->file_.text.size() > 0x7fffffffu) m->file_.text.resize(0x7fffffffu);
  im.src = m->file_.text;
  im.parser = ts_parser_new();
  ts_parser_set_language(im.parser, tree_sitter_python());
  im.parse_bounded(limits);
  im.build_parents();
  im.build_scopes();
  // Unparsed ranges count as syntax errors at their first line.
  for (const auto& r : im.unparsed) im.error_lines.push_back(r.first);
  std::sort(im.error_lines.begin(), im.error_lines.end());
  im.error_lines.erase(std::unique(im.error_lines.begin(), im.error_lines.end()), im.error_lines.end());
  im.resolve_all_bindings();
  im.build_model();
  im.build_embedded();
  im.building = false;
  return m;
}

Node Module::root() const { return Node(ts_tree_root_node(impl_->tree), this); }

const std::vector<int>& Module::syntax_error_lines() const { return impl_->error_lines; }

const std::vector<std::pair<int, int>>& Module::unparsed_line_ranges() const { return impl_->unparsed; }

std::optional<std::string> Module::qualified_name(Node expr) const {
  if (!expr.valid()) return std::nullopt;
  Sym s = impl_->resolve(raw_of(expr));
  if (s.kind != Sym::Kind::name || s.q.empty()) return std::nullopt;
  return s.q;
}

std::optional<std::string> Module::constant_string(Node expr) const {
  if (!expr.valid()) return std::nullopt;
  FoldContext ctx;
  Folded f;
  if (!impl_->fold_string(raw_of(expr), ctx, f) || !f.complete) return std::nullopt;
  return std::move(f.text);
}

std::optional<long long> Module::constant_int(Node expr) const {
  if (!expr.valid()) return std::nullopt;
  FoldContext ctx;
  return impl_->fold_int(raw_of(expr), ctx);
}

const std::vector<FunctionDef>& Module::functions() const { return impl_->functions; }
const std::vector<ClassDef>& Module::classes() const { return impl_->classes; }
const std::vector<Call>& Module::calls() const { return impl_->calls; }
const std::vector<EmbeddedSource>& Module::embedded_sources() const { return impl_->embedded; }

const ClassDef* Module::model_class() const {
  return impl_->model >= 0 ? &impl_->classes[impl_->model] : nullptr;
}

const FunctionDef* Module::model_forward() const {
  const ClassDef* model = model_class();
  if (!model) return nullptr;
  for (const auto& f : impl_->functions)
    if (f.class_name == model->name && f.name == "forward") return &f;
  return nullptr;
}

bool Module::on_forward_path(int function_index) const {
  const auto& fns = impl_->functions;
  if (function_index < 0 || static_cast<size_t>(function_index) >= fns.size()) return false;
  const FunctionDef& f = fns[function_index];
  if (!model_class()) return true;
  if (f.reachable_from_forward) return true;
  const FunctionDef* fwd = model_forward();
  if (!fwd) {
    // forward inherited: what the front reached from it, or, when it comes
    // from outside the file (nothing reached), every function.
    return std::none_of(fns.begin(), fns.end(), [](const FunctionDef& g) { return g.reachable_from_forward; });
  }
  if (&f == fwd) return true;
  // A def nested inside forward (a closure, a local helper) runs on the path
  // when forward calls it; the front marks that as reachable, but a nested
  // def inside forward itself is conservative to include.
  return fwd->node.valid() && f.node.valid() && !(f.node == fwd->node) && fwd->node.contains(f.node);
}

Reach Module::reach_of(Node n) const {
  const FunctionDef* f = enclosing_function(n);
  if (!f) return Reach::module_level;
  const ClassDef* model = model_class();
  if (!model) return Reach::unknown;
  if (on_forward_path(static_cast<int>(f - impl_->functions.data()))) return Reach::forward;
  if (f->class_name == model->name && f->name == "__init__") return Reach::construction;
  return Reach::unreachable;
}

const FunctionDef* Module::enclosing_function(Node n) const {
  if (!n.valid()) return nullptr;
  uint32_t b = ts_node_start_byte(raw_of(n));
  for (int s = impl_->scope_at(b); s >= 0; s = impl_->scopes[s].parent)
    if (impl_->scopes[s].function_index >= 0) return &impl_->functions[impl_->scopes[s].function_index];
  return nullptr;
}

void Module::walk(const std::function<bool(Node)>& visit) const { walk(root(), visit); }

void Module::walk(Node from, const std::function<bool(Node)>& visit) const {
  if (!from.valid()) return;
  preorder(raw_of(from), [&](TSNode n, const char*, int) { return visit(Node(n, this)); });
}

}  // namespace kaudit::analyzer::python
