// monkeypatching: assignments to attributes of torch, triton, time,
// builtins, numpy or the harness's modules and their classes, by `=`,
// setattr, __dict__ writes or mock.patch.
#include "analyzer/checks/factories.h"
#include "analyzer/checks/liveness.h"
#include "analyzer/checks/pattern_helpers.h"

#include <regex>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "monkeypatching",
    rules::Category::cheat,
    rules::Confidence::high,
    kPython,
    "the submission replaces a function of torch, the timer or the harness",
    "The submission assigns to an attribute of a module or class it does not own: torch.allclose = ..., "
    "time.perf_counter = ..., torch.cuda.Event.elapsed_time = ..., torch.Tensor.__eq__ = ..., builtins, "
    "numpy, triton, or the harness's own modules (setattr, __dict__ writes and mock.patch count too). "
    "The harness runs in the same interpreter and calls these very functions to check results and to "
    "time, so a replaced one makes any answer pass or any time look short. Global precision and backend "
    "switches (torch.backends.*, dynamo and inductor config) are another check's business and are not "
    "reported here."
    "\n\n**Confidence.** High: an attribute of torch, the timer, a harness module (reference, "
    "shapes) or a builtin is replaced, by assignment, setattr or a __dict__ write, anywhere in "
    "the file that runs when a harness imports it: at import, in the model's methods, in get_inputs or "
    "get_init_inputs, or in a def any of them refers to (the replacement acts even off forward's path). "
    "Medium: in a def that nothing running refers to. Low: only under `if __name__ == \"__main__\":`, "
    "which never runs on import (a local self-test that sets the reference's sizes). Clean counter-example: `torch.backends.cuda.matmul.allow_tf32 = "
    "False` and dynamo or inductor config settings are switches, not replaced functions, and are "
    "not reported.",
    "Open the line and see which function is replaced and by what; `kaudit run` compares results outside "
    "the submission's process and times with its own events, so a patched comparison or timer shows up "
    "there as a mismatch between the submission's claims and the runner's measurements."};

const char* kProtectedRoots[] = {"torch",  "triton",    "time",      "builtins", "__builtins__", "numpy",
                                 "timeit", "benchmark", "check",     "eval",     "harness",      "reference",
                                 "shapes", "__main__",  "kernelbench", "cupy",   "gc",           "inspect",
                                 "random", "math",      "operator",  "functools", "unittest",    "pytest"};

// Configuration namespaces whose assignment is a setting, not a patch.
bool is_configuration(const std::string& q) {
  return is_under(q, "torch.backends") || q.find(".config") != std::string::npos ||
         is_under(q, "torch._dynamo.config") || is_under(q, "torch._inductor.config") ||
         is_under(q, "numpy.random.seed") || q.find("._config") != std::string::npos;
}

std::string protected_root(const std::string& q) {
  const std::string root = q.substr(0, q.find('.'));
  for (const char* r : kProtectedRoots)
    if (root == r) return root;
  return {};
}

// The harness's modules count only when this file imports them: a local
// named `check` is not the harness's check.py.
bool owner_is_protected(const Module& m, const std::string& owner) {
  if (owner == "sys.modules[...]") return true;
  const std::string root = protected_root(owner);
  if (root.empty()) return false;
  static const char* kHarness[] = {"benchmark", "check", "eval", "harness", "reference", "shapes", "kernelbench"};
  bool harness = false;
  for (const char* h : kHarness) harness = harness || root == h;
  if (!harness) return true;
  bool imported = false;
  const std::regex re("(^|\\s)(import|from)\\s+" + root + "\\b");
  m.walk([&](Node n) {
    if (imported) return false;
    const auto t = n.type();
    if (t == "import_statement" || t == "import_from_statement") {
      const std::string text(n.text());
      if (std::regex_search(text, re)) imported = true;
      return false;
    }
    return true;
  });
  return imported;
}

class MonkeypatchingCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (!s.python) return;
    const Module& m = *s.python;
    // A replacement acts wherever its code runs, on forward's path or not;
    // code a harness's import never runs (a `__main__` block, a def nothing
    // calls) would need an assumption about what runs, and is rated lower.
    auto report = [&](Node at, const std::string& msg, const std::string& symbol) {
      const Liveness live = liveness_of(m, at);
      const rules::Confidence conf = live == Liveness::runs           ? rules::Confidence::high
                                     : live == Liveness::never_called ? rules::Confidence::medium
                                                                      : rules::Confidence::low;
      const std::string where = live == Liveness::runs ? reach_note(m.reach_of(at)) : liveness_note(live);
      sink.report(kInfo, m.file(), at.line(), at.column(), msg + where + ".", symbol, conf);
    };

    // x.attr = ..., x[...] = ..., del x.attr on a protected module or class.
    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "class_definition") {
        // class bodies assign their own attributes; only look at methods inside.
        return true;
      }
      if (t != "assignment" && t != "augmented_assignment" && t != "delete_statement") return true;
      Node left = t == "delete_statement" ? n : n.field("left");
      if (!left.valid()) return true;
      std::vector<Node> targets;
      if (left.type() == "pattern_list" || left.type() == "tuple_pattern" || left.type() == "delete_statement" ||
          left.type() == "expression_list")
        targets = left.named_children();
      else
        targets.push_back(left);
      for (const Node& target : targets) check_target(m, n, target, t == "delete_statement", report);
      return true;
    });

    for (const auto& c : m.calls()) {
      auto args = c.node.positional_args();
      const bool set = is_builtin_call(m, c, "setattr") || is_builtin_call(m, c, "delattr") ||
                       c.qualified == "object.__setattr__" || c.qualified == "type.__setattr__" ||
                       c.qualified == "mock.patch.object" || c.qualified == "unittest.mock.patch.object";
      if (set && !args.empty()) {
        auto target = m.qualified_name(args[0]);
        if (!target) continue;
        auto name = args.size() >= 2 ? m.constant_string(args[1]) : std::nullopt;
        const std::string full = *target + "." + (name ? *name : std::string("<computed>"));
        if (!owner_is_protected(m, *target) || is_configuration(full)) continue;
        report(c.node, one_line(c.callee.text(), 30) + " replaces " + full + ", which the harness may call", full);
        continue;
      }
      if ((c.qualified == "mock.patch" || c.qualified == "unittest.mock.patch") && !args.empty()) {
        auto name = m.constant_string(args[0]);
        if (name && owner_is_protected(m, *name) && !is_configuration(*name))
          report(c.node, "mock.patch replaces " + *name + ", which the harness may call", *name);
        continue;
      }
      // torch.__dict__.update({...}), vars(torch).update(...)
      if (c.method == "update" || c.method == "__setitem__" || c.method == "setdefault") {
        Node recv = c.callee.field("object");
        if (!recv.valid()) continue;
        std::optional<std::string> owner;
        if (recv.type() == "attribute" && recv.field("attribute").text() == "__dict__")
          owner = m.qualified_name(recv.field("object"));
        if (recv.type() == "call" && recv.field("function").text() == "vars") {
          auto a = recv.positional_args();
          if (!a.empty()) owner = m.qualified_name(a[0]);
        }
        if (owner && owner_is_protected(m, *owner))
          report(c.node, "the namespace of " + *owner + " is rewritten through " + one_line(c.callee.text(), 30),
                 *owner);
      }
    }
  }

 private:
  template <class Report>
  void check_target(const Module& m, Node stmt, Node target, bool deleting, Report& report) const {
    Node object;
    std::string attribute;
    if (target.type() == "attribute") {
      object = target.field("object");
      Node a = target.field("attribute");
      attribute = a.valid() ? std::string(a.text()) : "";
    } else if (target.type() == "subscript") {
      object = target.field("value");
      auto key = m.constant_string(target.field("subscript"));
      attribute = key ? *key : "[...]";
      // torch.__dict__["x"] = ..., sys.modules["torch"] = ...
      if (object.valid() && object.type() == "attribute" && object.field("attribute").text() == "__dict__")
        object = object.field("object");
      else if (object.valid() && m.qualified_name(object) == std::optional<std::string>("sys.modules")) {
        if (key && !protected_root(*key).empty())
          report(stmt, "sys.modules[\"" + *key + "\"] is replaced, so every later import of " + *key +
                           " gets the submission's object",
                 "sys.modules");
        return;
      } else {
        // Only __builtins__["print"] = ... is a namespace written through a subscript.
        auto q = object.valid() ? m.qualified_name(object) : std::nullopt;
        const std::string text = object.valid() ? std::string(object.text()) : "";
        if (!(q && (*q == "builtins" || *q == "__builtins__")) && text != "__builtins__") return;
      }
    } else {
      return;
    }
    if (!object.valid()) return;
    auto owner = m.qualified_name(object);
    std::string via;
    if (!owner) {
      // sys.modules["torch"].allclose = ..., __main__ reached through sys.modules
      const std::string text(object.text());
      if (text.find("sys.modules[") == std::string::npos) return;
      owner = text;
    } else if (python::nfkc(object.text()) != *owner) {
      via = " (written `" + one_line(object.text(), 30) + "`)";
    }
    if (owner->find("sys.modules[") != std::string::npos) owner = "sys.modules[...]";
    if (!owner_is_protected(m, *owner)) return;
    const std::string full = *owner + "." + attribute;
    if (is_configuration(full)) return;
    report(stmt,
           full + (deleting ? " is deleted" : " is replaced") + via +
               ", so the harness's own uses of it get the submission's object",
           full);
  }
};

}  // namespace

std::unique_ptr<Check> make_monkeypatching_check() { return std::make_unique<MonkeypatchingCheck>(); }

}  // namespace kaudit::analyzer
