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
  for (TSNode c : named_children_of(node_)) out.emplace_back(c, module_);
  return out;
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
  Sym s = impl_->resolve(expr.raw());
  if (s.kind != Sym::Kind::name || s.q.empty()) return std::nullopt;
  return s.q;
}

std::optional<std::string> Module::constant_string(Node expr) const {
  if (!expr.valid()) return std::nullopt;
  FoldContext ctx;
  Folded f;
  if (!impl_->fold_string(expr.raw(), ctx, f) || !f.complete) return std::nullopt;
  return std::move(f.text);
}

std::optional<long long> Module::constant_int(Node expr) const {
  if (!expr.valid()) return std::nullopt;
  FoldContext ctx;
  return impl_->fold_int(expr.raw(), ctx);
}

const std::vector<FunctionDef>& Module::functions() const { return impl_->functions; }
const std::vector<ClassDef>& Module::classes() const { return impl_->classes; }
const std::vector<Call>& Module::calls() const { return impl_->calls; }
const std::vector<EmbeddedSource>& Module::embedded_sources() const { return impl_->embedded; }

const ClassDef* Module::model_class() const {
  return impl_->model >= 0 ? &impl_->classes[impl_->model] : nullptr;
}

const FunctionDef* Module::enclosing_function(Node n) const {
  if (!n.valid()) return nullptr;
  uint32_t b = ts_node_start_byte(n.raw());
  for (int s = impl_->scope_at(b); s >= 0; s = impl_->scopes[s].parent)
    if (impl_->scopes[s].function_index >= 0) return &impl_->functions[impl_->scopes[s].function_index];
  return nullptr;
}

void Module::walk(const std::function<bool(Node)>& visit) const { walk(root(), visit); }

void Module::walk(Node from, const std::function<bool(Node)>& visit) const {
  if (!from.valid()) return;
  preorder(from.raw(), [&](TSNode n, const char*, int) { return visit(Node(n, this)); });
}

}  // namespace kaudit::analyzer::python
