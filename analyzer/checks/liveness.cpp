#include "analyzer/checks/liveness.h"

#include <map>
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

bool within(const std::vector<Node>& blocks, Node n) {
  for (const auto& b : blocks)
    if (b.valid() && b.contains(n)) return true;
  return false;
}

struct Sites {
  std::map<std::string, std::vector<int>> mentions;  // name -> where it is mentioned (def index, -1 running top level, -2 script)
};

class Reachability {
 public:
  explicit Reachability(const Module& m) : m_(m), scripts_(script_blocks(m)) {
    const auto& fns = m.functions();
    const python::ClassDef* model = m.model_class();
    std::vector<int> live_seeds;
    for (size_t i = 0; i < fns.size(); ++i) {
      const FunctionDef& f = fns[i];
      const bool dunder = f.name.size() > 4 && f.name.starts_with("__") && f.name.ends_with("__");
      const bool entry = f.class_name.empty() && (f.name == "get_inputs" || f.name == "get_init_inputs");
      const bool model_method = model && f.class_name == model->name;
      if (m.on_forward_path(static_cast<int>(i)) || dunder || entry || model_method) live_seeds.push_back(static_cast<int>(i));
    }
    collect_mentions();
    live_ = spread(live_seeds, -1);
    std::vector<int> script_seeds;
    script_ = spread(script_seeds, -2);
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
  // Each identifier outside a def's own name, by the def it stands in (or
  // the top level, running or script-only).
  void collect_mentions() {
    m_.walk([&](Node n) {
      if (n.type() != "identifier") return true;
      Node p = n.parent();
      if (p.valid() && (p.type() == "function_definition" || p.type() == "class_definition") && p.field("name") == n)
        return true;
      int site = -1;
      if (const FunctionDef* f = m_.enclosing_function(n)) site = static_cast<int>(f - m_.functions().data());
      else if (within(scripts_, n)) site = -2;
      sites_.mentions[std::string(n.text())].push_back(site);
      return true;
    });
  }

  // The defs reached from `seeds` and from mentions at `top` (the running
  // top level, or the script blocks), through mentions by name.
  std::set<int> spread(std::vector<int> work, int top) const {
    const auto& fns = m_.functions();
    std::set<int> reached(work.begin(), work.end());
    auto mentioned_from = [&](const std::string& name) {
      auto it = sites_.mentions.find(name);
      if (it == sites_.mentions.end()) return false;
      for (int s : it->second)
        if (s == top || (s >= 0 && reached.count(s))) return true;
      return false;
    };
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t i = 0; i < fns.size(); ++i) {
        if (reached.count(static_cast<int>(i)) || !mentioned_from(fns[i].name)) continue;
        reached.insert(static_cast<int>(i));
        grew = true;
      }
    }
    return reached;
  }

  const Module& m_;
  std::vector<Node> scripts_;
  Sites sites_;
  std::set<int> live_, script_;
};

}  // namespace

Liveness liveness_of(const Module& m, Node n) { return Reachability(m).of(n); }

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
