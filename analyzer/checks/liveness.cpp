#include "analyzer/checks/liveness.h"

#include "analyzer/checks/pattern_helpers.h"

#include <map>
#include <memory>
#include <set>
#include <vector>

namespace kaudit::analyzer::patterns {
namespace {

using python::FunctionDef;
using python::Module;
using python::Node;

std::string squeezed(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '(' && c != ')') out += c == '\'' ? '"' : c;
  return out;
}

bool assigns_dunder_name(const Module& m) {
  bool found = false;
  m.walk([&](Node n) {
    if (found) return false;
    if (n.type() == "assignment" || n.type() == "augmented_assignment") {
      Node left = n.field("left");
      if (left.valid() && left.text() == "__name__") found = true;
    }
    return true;
  });
  return found;
}

// The blocks of top-level `if __name__ == "__main__":` statements.
std::vector<Node> script_blocks(const Module& m) {
  std::vector<Node> out;
  if (assigns_dunder_name(m)) return out;
  for (const auto& stmt : m.root().named_children()) {
    if (stmt.type() != "if_statement") continue;
    const std::string cond = squeezed(stmt.field("condition").valid() ? stmt.field("condition").text() : "");
    if (cond == "__name__==\"__main__\"" || cond == "\"__main__\"==__name__") out.push_back(stmt.field("consequence"));
  }
  return out;
}

// Whether the file can reach its own defs by a name it computes: through its
// namespace (globals(), locals(), vars(), a function's __globals__, a frame's
// f_globals, a module's __dict__, sys.modules, the module imported by name),
// through eval or exec, or through getattr with a computed name (on the
// module as on an object). No def of such a file is provably uncalled: a
// name built at run time leaves no mention to follow.
bool looks_names_up_at_run_time(const Module& m) {
  for (const auto& c : m.calls()) {
    for (const char* b : {"globals", "locals", "vars", "eval", "exec", "__import__"})
      if (is_builtin_call(m, c, b)) return true;
    if (c.qualified == "importlib.import_module" || c.qualified == "operator.attrgetter" ||
        c.qualified == "operator.methodcaller")
      return true;
    const auto args = c.node.positional_args();
    if ((is_builtin_call(m, c, "getattr") || is_builtin_call(m, c, "hasattr")) && args.size() >= 2 &&
        !m.constant_string(args[1]))
      return true;
  }
  bool found = false;
  m.walk([&](Node n) {
    if (found) return false;
    if (n.type() != "attribute") return true;
    const Node attr = n.field("attribute");
    const std::string_view name = attr.valid() ? attr.text() : std::string_view();
    const auto q = m.qualified_name(n);
    found = name == "__globals__" || name == "f_globals" || name == "f_locals" || name == "__dict__" ||
            name == "__builtins__" || (q && *q == "sys.modules");
    return !found;
  });
  return found;
}

bool within(const std::vector<Node>& blocks, Node n) {
  for (const auto& b : blocks)
    if (b.valid() && b.contains(n)) return true;
  return false;
}

class Reachability {
 public:
  explicit Reachability(const Module& m) : m_(m), scripts_(script_blocks(m)) {
    const bool hidden_calls = looks_names_up_at_run_time(m);
    const auto& fns = m.functions();
    const python::ClassDef* model = m.model_class();
    for (size_t i = 0; i < fns.size(); ++i) by_name_[fns[i].name].push_back(static_cast<int>(i));
    collect_mentions();
    std::vector<int> seeds;
    for (size_t i = 0; i < fns.size(); ++i) {
      const FunctionDef& f = fns[i];
      const bool dunder = f.name.size() > 4 && f.name.starts_with("__") && f.name.ends_with("__");
      const bool entry = f.class_name.empty() && (f.name == "get_inputs" || f.name == "get_init_inputs");
      const bool model_method = model && f.class_name == model->name;
      if (m.on_forward_path(static_cast<int>(i)) || dunder || entry || model_method || hidden_calls)
        seeds.push_back(static_cast<int>(i));
    }
    live_ = spread(seeds, kRunningTop, {});
    script_ = spread({}, kScriptTop, live_);
  }

  Liveness of(Node n) const {
    if (within(scripts_, n)) return Liveness::script_only;
    const FunctionDef* f = m_.enclosing_function(n);
    if (!f) return Liveness::runs;
    const int i = static_cast<int>(f - m_.functions().data());
    if (live_.count(i)) return Liveness::runs;
    return script_.count(i) ? Liveness::script_only : Liveness::never_called;
  }

 private:
  static constexpr int kRunningTop = -1;  // module level and class bodies, outside script blocks
  static constexpr int kScriptTop = -2;   // inside `if __name__ == "__main__":`

  // The names each site mentions (a def's index, or one of the tops), a
  // def's own name left out.
  void collect_mentions() {
    m_.walk([&](Node n) {
      if (n.type() != "identifier") return true;
      Node p = n.parent();
      if (p.valid() && (p.type() == "function_definition" || p.type() == "class_definition") && p.field("name") == n)
        return true;
      if (!by_name_.count(std::string(n.text()))) return true;  // names no def: irrelevant
      int site = kRunningTop;
      if (const FunctionDef* f = m_.enclosing_function(n)) site = static_cast<int>(f - m_.functions().data());
      else if (within(scripts_, n)) site = kScriptTop;
      names_at_[site].insert(std::string(n.text()));
      return true;
    });
  }

  // The defs reached from `seeds` and from what `top` mentions, through
  // mentions by name, past the defs in `skip`: linear in the mentions.
  std::set<int> spread(std::vector<int> work, int top, const std::set<int>& skip) const {
    std::set<int> reached(work.begin(), work.end());
    auto visit = [&](int site) {
      const auto it = names_at_.find(site);
      if (it == names_at_.end()) return;
      for (const auto& name : it->second)
        for (int f : by_name_.at(name))
          if (!skip.count(f) && reached.insert(f).second) work.push_back(f);
    };
    visit(top);
    while (!work.empty()) {
      const int f = work.back();
      work.pop_back();
      visit(f);
    }
    return reached;
  }

  const Module& m_;
  std::vector<Node> scripts_;
  std::map<std::string, std::vector<int>> by_name_;  // def name -> its defs
  std::map<int, std::set<std::string>> names_at_;    // site -> def names it mentions
  std::set<int> live_, script_;
};

}  // namespace

Liveness liveness_of(const Module& m, Node n) {
  return per_module<Reachability>(m, [](const Module& mod) { return Reachability(mod); }).of(n);
}

std::string liveness_note(Liveness l) {
  switch (l) {
    case Liveness::runs: return "";
    case Liveness::script_only:
      return " (only under `if __name__ == \"__main__\"`: it never runs when a harness imports the file)";
    case Liveness::never_called:
      return " (in a def that nothing the harness runs refers to: it runs only if called in a way the file does "
             "not show)";
  }
  return "";
}

}  // namespace kaudit::analyzer::patterns
