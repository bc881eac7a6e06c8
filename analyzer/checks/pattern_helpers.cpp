#include "analyzer/checks/pattern_helpers.h"

#include "common/utf8.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kaudit::analyzer::patterns {

std::string one_line(std::string_view text, size_t max) {
  size_t nl = text.find('\n');
  std::string_view s = text.substr(0, nl);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  std::string out(s);
  if (out.size() > max) out = common::shorten_utf8(out, max, "...");
  else if (nl != std::string_view::npos) out += " ...";
  return out;
}

std::string root_identifier(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' ||
                             static_cast<unsigned char>(text[i]) >= 0x80))
    ++i;
  return std::string(text.substr(0, i));
}

bool is_under(std::string_view q, std::string_view prefix) {
  if (prefix.empty() || q.size() < prefix.size() || q.substr(0, prefix.size()) != prefix) return false;
  return q.size() == prefix.size() || q[prefix.size()] == '.';
}

std::string_view last_component(std::string_view q) {
  size_t dot = q.rfind('.');
  return dot == std::string_view::npos ? q : q.substr(dot + 1);
}

bool is_true_literal(const Node& n) {
  if (!n.valid()) return false;
  if (n.type() == "true") return true;
  if (n.type() == "integer") return n.text() != "0";
  return false;
}

namespace {

// The names an import statement binds, each with the statement.
bool import_binds(const Node& stmt, std::string_view name) {
  const bool from = stmt.type() == "import_from_statement";
  Node module_name = stmt.field("module_name");
  for (const Node& child : stmt.named_children()) {
    if (from && module_name.valid() && child == module_name) continue;
    if (child.type() == "aliased_import") {
      Node alias = child.field("alias");
      if (alias.valid() && python::nfkc(alias.text()) == name) return true;
    } else if (child.type() == "dotted_name") {
      std::string bound = from ? std::string(child.text()) : root_identifier(child.text());
      if (python::nfkc(bound) == name) return true;
    } else if (child.type() == "wildcard_import") {
      continue;
    }
  }
  return false;
}

bool assignment_binds(const Node& stmt, std::string_view name) {
  Node left = stmt.field("left");
  if (!left.valid()) return false;
  if (left.type() == "identifier") return python::nfkc(left.text()) == name;
  if (left.type() == "pattern_list" || left.type() == "tuple_pattern")
    for (const Node& c : left.named_children())
      if (c.type() == "identifier" && python::nfkc(c.text()) == name) return true;
  return false;
}

}  // namespace

std::string binding_of(const Module& m, std::string_view name) {
  std::string found;
  m.walk([&](Node n) {
    if (!found.empty()) return false;
    const auto t = n.type();
    if (t == "import_statement" || t == "import_from_statement") {
      if (import_binds(n, name)) {
        // A plain `import torch` says nothing a reader would not assume.
        if (!(t == "import_statement" && n.text().find(" as ") == std::string_view::npos)) found = one_line(n.text());
      }
      return false;
    }
    if (t == "assignment" && assignment_binds(n, name)) {
      Node parent = n.parent();
      found = one_line(parent.valid() && parent.type() == "expression_statement" ? parent.text() : n.text());
      return false;
    }
    return true;
  });
  return found;
}

std::string alias_path(const Module& m, Node callee, std::string_view qualified) {
  if (!callee.valid()) return {};
  std::string spelled = python::nfkc(callee.text());
  if (spelled == qualified) return {};
  std::string out = "reached through `" + one_line(callee.text(), 60) + "`";
  // The binding of the leading name explains the alias: `mm` from an import
  // or an assignment, `F` from `import torch.nn.functional as F`.
  const std::string root = python::nfkc(root_identifier(callee.text()));
  if (!root.empty() && root != "getattr") {
    std::string binding = binding_of(m, root);
    if (!binding.empty()) out += " (" + binding + ")";
  }
  return out;
}

std::string reach_note(Reach r) {
  switch (r) {
    case Reach::forward: return "";
    case Reach::construction: return " (in __init__: runs once when the model is built)";
    case Reach::module_level: return " (at module level: runs once at import)";
    case Reach::unreachable: return " (not reachable from forward)";
    case Reach::unknown: return "";
  }
  return "";
}

Node ancestor(const Node& n, std::string_view type) {
  for (Node p = n.parent(); p.valid(); p = p.parent())
    if (p.type() == type) return p;
  return {};
}

bool module_binds(const Module& m, std::string_view name) {
  for (const auto& f : m.functions())
    if (f.name == name) return true;
  for (const auto& c : m.classes())
    if (c.name == name) return true;
  bool bound = false;
  m.walk([&](Node n) {
    if (bound) return false;
    const auto t = n.type();
    if (t == "import_statement" || t == "import_from_statement") {
      if (import_binds(n, name)) bound = true;
      return false;
    }
    if (t == "assignment" && assignment_binds(n, name)) bound = true;
    return true;
  });
  return bound;
}

bool is_builtin_call(const Module& m, const python::Call& c, std::string_view name) {
  if (c.qualified == name || c.qualified == "builtins." + std::string(name) ||
      c.qualified == "__builtins__." + std::string(name))
    return true;
  if (!c.qualified.empty()) return false;
  if (!c.callee.valid() || c.callee.type() != "identifier" || python::nfkc(c.callee.text()) != name) return false;
  return !module_binds(m, name);
}

namespace {

bool is_literal_operand(const Node& n) {
  const auto t = n.type();
  return t == "none" || t == "true" || t == "false" || t == "integer" || t == "float" || t == "string" ||
         t == "ellipsis";
}

// dtype, device and type comparisons (`x.dtype is torch.float16`) are not identity keys.
bool is_type_like(const Module& m, const Node& n) {
  const std::string_view s = n.text();
  if (s.find("dtype") != std::string_view::npos || s.find("device") != std::string_view::npos ||
      s.find("type(") != std::string_view::npos || s.find("layout") != std::string_view::npos)
    return true;
  return m.qualified_name(n).has_value();
}

}  // namespace

std::vector<IdentityUse> identity_uses(const Module& m, Node scope) {
  std::vector<IdentityUse> out;
  if (!scope.valid()) return out;
    for (const auto& c : m.calls()) {
    if (!scope.contains(c.node)) continue;
    if (c.method == "data_ptr" || c.method == "__hash__" || c.method == "_cdata")
      out.push_back({c.node, c.method + "()"});
    else if (is_builtin_call(m, c, "id"))
      out.push_back({c.node, "id()"});
    else if (is_builtin_call(m, c, "hash"))
      out.push_back({c.node, "hash()"});
  }
  m.walk(scope, [&](Node n) {
    const auto t = n.type();
    if (t == "attribute") {
      Node attr = n.field("attribute");
      if (attr.valid() && (attr.text() == "_version" || attr.text() == "_cdata")) out.push_back({n, std::string(attr.text())});
    } else if (t == "comparison_operator") {
      auto ops = n.operator_tokens();
      auto operands = n.named_children();
      if (ops.size() == 1 && (ops[0] == "is" || ops[0] == "is not") && operands.size() == 2) {
        const Node& a = operands[0];
        const Node& b = operands[1];
        const bool stored = a.text().starts_with("self.") || b.text().starts_with("self.") ||
                            a.type() == "subscript" || b.type() == "subscript";
        if (!is_literal_operand(a) && !is_literal_operand(b) && !is_type_like(m, a) && !is_type_like(m, b) && stored)
          out.push_back({n, "`is` comparison"});
      }
    }
    return true;
  });
  std::sort(out.begin(), out.end(), [](const IdentityUse& x, const IdentityUse& y) {
    return std::pair(x.node.line(), x.node.column()) < std::pair(y.node.line(), y.node.column());
  });
  return out;
}

std::string file_operation(std::string_view q, std::string_view method) {
  static const std::pair<const char*, const char*> kOps[] = {
      {"open", "opens"}, {"builtins.open", "opens"}, {"io.open", "opens"}, {"codecs.open", "opens"},
      {"os.open", "opens"}, {"os.remove", "deletes"}, {"os.unlink", "deletes"}, {"os.rmdir", "deletes"},
      {"os.removedirs", "deletes"}, {"os.rename", "renames"}, {"os.replace", "replaces"}, {"os.truncate", "truncates"},
      {"os.chmod", "changes"}, {"os.utime", "touches"}, {"os.listdir", "lists"}, {"os.scandir", "lists"},
      {"os.walk", "walks"}, {"os.path.exists", "probes"}, {"os.path.isfile", "probes"}, {"os.path.getmtime", "probes"},
      {"glob.glob", "lists"}, {"glob.iglob", "lists"}, {"shutil.copy", "copies"}, {"shutil.copy2", "copies"},
      {"shutil.copyfile", "copies"}, {"shutil.copytree", "copies"}, {"shutil.move", "moves"},
      {"shutil.rmtree", "deletes"}, {"torch.load", "loads"}, {"torch.save", "writes"}, {"numpy.load", "loads"},
      {"numpy.save", "writes"}, {"numpy.fromfile", "loads"}, {"numpy.loadtxt", "loads"}, {"pickle.load", "loads"},
      {"json.load", "loads"}, {"yaml.safe_load", "loads"}, {"safetensors.torch.load_file", "loads"},
      {"linecache.getline", "reads"}, {"linecache.getlines", "reads"}, {"fileinput.input", "reads"},
  };
  for (const auto& [name, what] : kOps)
    if (q == name) return what;
  if (q.starts_with("pathlib.Path.") || q.starts_with("pathlib.PurePath.")) method = q.substr(q.rfind('.') + 1);
  static const std::pair<const char*, const char*> kPathMethods[] = {
      {"read_text", "reads"}, {"read_bytes", "reads"}, {"write_text", "writes"}, {"write_bytes", "writes"},
      {"unlink", "deletes"}, {"rmdir", "deletes"}, {"rename", "renames"}, {"touch", "touches"},
      {"iterdir", "lists"}, {"glob", "lists"}, {"rglob", "lists"}};
  for (const auto& [name, what] : kPathMethods)
    if (method == name) return what;
  return {};
}

}  // namespace kaudit::analyzer::patterns
