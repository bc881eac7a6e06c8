#include "analyzer/checks/fallback_path.h"

#include "analyzer/checks/pattern_helpers.h"

#include <set>
#include <string>

namespace kaudit::analyzer::patterns {
namespace {

using python::Module;
using python::Node;

bool is_except(Node n) { return n.type() == "except_clause" || n.type() == "except_group_clause"; }

Node last_statement(Node block) {
  auto kids = block.valid() ? block.named_children() : std::vector<Node>{};
  for (auto it = kids.rbegin(); it != kids.rend(); ++it)
    if (it->type() != "comment") return *it;
  return {};
}

// A block that never falls through to the statement after it when nothing
// fails: it ends in a return, or in a try whose own block does.
bool returns_unless_failing(Node block) {
  Node last = last_statement(block);
  if (!last.valid()) return false;
  if (last.type() == "return_statement") return true;
  if (last.type() == "try_statement") return returns_unless_failing(last.field("body"));
  return false;
}

// Names assigned in an except handler: `self.use_fast = False`, `_ext = None`.
struct HandlerFlags {
  std::set<std::string> names;
};

HandlerFlags names_set_in_handlers(const Module& m) {
  HandlerFlags flags;
  std::set<std::string>& names = flags.names;
  m.walk([&](Node n) {
    if (n.type() != "assignment") return true;
    Node left = n.field("left");
    for (Node p = n.parent(); p.valid() && left.valid(); p = p.parent()) {
      if (is_except(p)) {
        names.insert(std::string(left.text()));
        break;
      }
      if (p.type() == "function_definition" || p.type() == "class_definition") break;
    }
    return true;
  });
  return flags;
}

bool mentions_any(const Module& m, Node cond, const std::set<std::string>& names) {
  bool hit = false;
  m.walk(cond, [&](Node n) {
    if (hit) return false;
    if ((n.type() == "identifier" || n.type() == "attribute") && names.count(std::string(n.text()))) hit = true;
    return true;
  });
  return hit;
}

// Within n's own function: an enclosing except handler, or an earlier
// sibling `if <flag set in a handler>:` whose body returns unless it fails.
Node local_guard(const Module& m, Node n, const std::set<std::string>& flags) {
  for (Node cur = n, p = n.parent(); p.valid(); cur = p, p = p.parent()) {
    const auto t = p.type();
    if (t == "function_definition" || t == "class_definition" || t == "lambda") break;
    if (is_except(p)) return try_raises_itself(m, p) ? Node{} : p;  // the submission's own raise: no fallback
    if (t != "block" || flags.empty()) continue;
    for (const auto& stmt : p.named_children()) {
      if (stmt == cur || stmt.contains(cur)) break;
      if (stmt.type() != "if_statement" || stmt.field("alternative").valid()) continue;
      Node cond = stmt.field("condition");
      if (cond.valid() && mentions_any(m, cond, flags) && returns_unless_failing(stmt.field("consequence")))
        return stmt;
    }
  }
  return {};
}

}  // namespace

bool try_raises_itself(const Module& m, Node except_clause) {
  Node owner = except_clause.valid() ? except_clause.parent() : Node{};
  if (!owner.valid() || owner.type() != "try_statement") return false;
  // A raise of the submission's own in `scope`, outside nested defs and
  // outside handlers (a re-raise is not a new failure).
  auto raises_in = [&](Node scope) {
    bool found = false;
    m.walk(scope, [&](Node n) {
      if (found) return false;
      const auto t = n.type();
      if ((t == "function_definition" && !(n == scope)) || is_except(n)) return false;
      if (t == "raise_statement") found = true;
      if (t == "assert_statement") {
        auto kids = n.named_children();
        if (!kids.empty() && (kids[0].text() == "False" || kids[0].text() == "0")) found = true;
      }
      return !found;
    });
    return found;
  };
  Node body = owner.field("body");
  if (raises_in(body)) return true;
  bool found = false;
  for (const auto& c : m.calls()) {
    if (found || !body.contains(c.node) || !c.callee.valid()) continue;
    std::string name(c.callee.text());
    if (name.starts_with("self.")) name = name.substr(5);
    for (const auto& f : m.functions())
      if (!f.is_triton_kernel && f.name == name && raises_in(f.node)) found = true;
  }
  return found;
}

namespace {

// +1: the condition is true on the GPU (`x.is_cuda`, `torch.cuda.is_available()`,
// `x.device.type == "cuda"`), -1: true off it (their negation, `== "cpu"`), 0: neither.
int gpu_condition(Node cond) {
  std::string t;
  for (char c : cond.text())
    if (c != ' ' && c != '\n' && c != '(' && c != ')') t += c == '\'' ? '"' : c;
  const bool negated = t.starts_with("not");
  if (negated) t = t.substr(3);
  int sense = 0;
  if (t.ends_with(".is_cuda") || t == "torch.cuda.is_available") sense = 1;
  if (t.ends_with(".device.type==\"cuda\"") || t.ends_with(".device.type!=\"cpu\"")) sense = 1;
  if (t.ends_with(".device.type==\"cpu\"") || t.ends_with(".device.type!=\"cuda\"")) sense = -1;
  return negated ? -sense : sense;
}

}  // namespace

Node cpu_only_guard(const Module&, Node n) {
  for (Node cur = n, p = n.parent(); p.valid(); cur = p, p = p.parent()) {
    const auto t = p.type();
    if (t == "function_definition" || t == "class_definition" || t == "lambda") break;
    if (t == "if_statement" && p.field("consequence") == cur && gpu_condition(p.field("condition")) < 0)
      return p;
    if (t == "else_clause") {
      Node owner = p.parent();
      if (owner.valid() && owner.type() == "if_statement" && gpu_condition(owner.field("condition")) > 0) return owner;
    }
  }
  return {};
}

Node fallback_guard(const Module& m, Node n) {
  const std::set<std::string>& flags = per_module<HandlerFlags>(m, names_set_in_handlers).names;
  if (Node g = local_guard(m, n, flags); g.valid()) return g;
  // A helper whose every call is itself a fallback (one level: the helper
  // and its callers in the same file).
  const python::FunctionDef* f = m.enclosing_function(n);
  if (!f || f->name == "forward") return {};
  Node guard;
  size_t calls = 0;
  for (const auto& c : m.calls()) {
    if (!c.callee.valid()) continue;
    const std::string callee(c.callee.text());
    if (callee != f->name && callee != "self." + f->name) continue;
    if (f->node.contains(c.node)) continue;  // recursion
    ++calls;
    Node g = local_guard(m, c.node, flags);
    if (!g.valid()) return {};
    guard = g;
  }
  return calls > 0 ? guard : Node{};
}

}  // namespace kaudit::analyzer::patterns
