// call-count-dependent: a counter kept across calls (self.calls += 1, a
// global, a function attribute) compared with a number where the branch
// changes the work, such as `if self.calls > 3: return self.out`.
#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"

#include <map>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "call-count-dependent",
    rules::Category::cheat,
    rules::Confidence::high,
    kPython,
    "what a call does depends on how many calls came before",
    "The submission counts its calls in state that outlives a call (an attribute of self, a global, a "
    "function or class attribute) and compares the count with a number to choose what to do: compute for "
    "the first few calls, while the harness checks correctness, then return a stored result or skip work "
    "once the timed calls begin. Benchmarks check and time in a fixed order, so the count tells the code "
    "which phase it is in. Counters that only pick a warm-up path are reported as suspicious."
    "\n\n**Confidence.** High: a call counter (self.calls += 1) decides whether the call returns "
    "stored state instead of computing. Medium: the counter decides an early return of something "
    "else, or enters the result through a conditional expression; suspicious when it only decides "
    "whether work is done. Low: never. Clean counter-example: an autotuner that tunes on the "
    "first call of each shape, keyed on the shape in a dict, not on how many calls came before: "
    "not reported.",
    "Open the line and read both branches: does the later branch still launch the kernels on the current "
    "inputs? `kaudit run` verifies the outputs of the timed calls themselves and shows per call which "
    "kernels ran; timed calls that launch nothing confirm it."};

bool is_int_literal(const Node& n) { return n.type() == "integer"; }

std::set<std::string> declared_global(const Module& m, const Node& scope) {
  std::set<std::string> names;
  m.walk(scope, [&](Node n) {
    if (n.type() == "global_statement" || n.type() == "nonlocal_statement")
      for (const auto& id : n.named_children()) names.insert(std::string(id.text()));
    return true;
  });
  return names;
}

int count_calls(const Module& m, const Node& scope) {
  if (!scope.valid()) return 0;
  int calls = 0;
  m.walk(scope, [&](Node n) {
    if (n.type() == "call") ++calls;
    return true;
  });
  return calls;
}

// The return statement in `scope`, if any.
Node find_return(const Module& m, const Node& scope) {
  Node found;
  if (!scope.valid()) return found;
  m.walk(scope, [&](Node n) {
    if (found.valid()) return false;
    if (n.type() == "return_statement") found = n;
    return true;
  });
  return found;
}

class CallCountCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (!s.python) return;
    const Module& m = *s.python;
    // Counters: target text -> line of the increment.
    std::map<std::string, int> counters;
    for (const auto& f : m.functions()) {
      if (f.is_triton_kernel) continue;
      const auto globals = declared_global(m, f.node);
      m.walk(f.node, [&](Node n) {
        const auto t = n.type();
        Node left, right;
        if (t == "augmented_assignment") {
          Node op = n.field("operator");
          if (!op.valid() || (op.text() != "+=" && op.text() != "-=")) return true;
          left = n.field("left");
          right = n.field("right");
        } else if (t == "assignment") {
          // self.n = self.n + 1
          left = n.field("left");
          Node r = n.field("right");
          if (!left.valid() || !r.valid() || r.type() != "binary_operator") return true;
          Node rl = r.field("left");
          if (!rl.valid() || rl.text() != left.text()) return true;
          right = r.field("right");
        } else {
          return true;
        }
        if (!left.valid() || !right.valid() || !is_int_literal(right)) return true;
        const std::string target(left.text());
        const bool persistent =
            (left.type() == "attribute" && (target.starts_with("self.") || target.starts_with("type(self).") ||
                                            target.starts_with(f.name + ".") ||
                                            (!f.class_name.empty() && target.starts_with(f.class_name + ".")))) ||
            (left.type() == "identifier" && globals.count(target));
        if (persistent) counters.emplace(target, n.line());
        return true;
      });
    }
    if (counters.empty()) return;

    m.walk([&](Node n) {
      if (n.type() != "comparison_operator") return true;
      auto kids = n.named_children();
      std::string counter;
      bool number = false;
      for (const auto& k : kids) {
        Node base = k;
        if (k.type() == "binary_operator") {  // self.n % 2 == 0
          Node l = k.field("left");
          Node r = k.field("right");
          if (l.valid() && r.valid() && is_int_literal(r)) base = l;
        }
        if (counters.count(std::string(base.text()))) counter = std::string(base.text());
        else if (is_int_literal(k)) number = true;
      }
      if (counter.empty() || !number) return true;
      check_branch(m, n, counter, counters[counter], sink);
      return true;
    });
  }

 private:
  void check_branch(const Module& m, Node cmp, const std::string& counter, int incremented_at, FindingSink& sink) const {
    Node branch;
    for (Node p = cmp.parent(); p.valid(); p = p.parent()) {
      const auto t = p.type();
      if (t == "if_statement" || t == "elif_clause" || t == "conditional_expression" || t == "while_statement") {
        branch = p;
        break;
      }
      if (t == "block" || t == "expression_statement" || t == "function_definition") break;
    }
    if (!branch.valid()) return;
    const std::string cond = one_line(cmp.text(), 50);
    const std::string inc = " (incremented at line " + std::to_string(incremented_at) + ")";
    if (branch.type() == "conditional_expression") {
      report(m, cmp, sink, "the result depends on the call counter " + counter + inc + " through `" + cond + "`",
             rules::Confidence::medium, rules::Category::cheat);
      return;
    }
    Node body = branch.field("consequence");
    Node alt = branch.field("alternative");
    Node ret = find_return(m, body);
    if (!ret.valid() && alt.valid()) ret = find_return(m, alt);
    if (ret.valid()) {
      auto kids = ret.named_children();
      const bool stored = !kids.empty() && kids[0].text().starts_with("self.");
      if (stored) {
        report(m, cmp, sink,
               "after `" + cond + "` on the call counter " + counter + inc + " the call returns stored state (`" +
                   one_line(ret.text(), 40) + "`) instead of computing",
               rules::Confidence::high, rules::Category::cheat);
      } else {
        report(m, cmp, sink,
               "the call counter " + counter + inc + " decides through `" + cond + "` whether the call returns early (`" +
                   one_line(ret.text(), 40) + "`)",
               rules::Confidence::medium, rules::Category::cheat);
      }
      return;
    }
    const int in_body = count_calls(m, body);
    const int in_alt = count_calls(m, alt);
    if ((in_body == 0) != (in_alt == 0))
      report(m, cmp, sink,
             "the call counter " + counter + inc + " decides through `" + cond +
                 "` whether work is done, so early calls (warm-up, checking) and later ones (timing) differ",
             rules::Confidence::medium, rules::Category::suspicious);
  }

  void report(const Module& m, Node at, FindingSink& sink, std::string msg, rules::Confidence c,
              rules::Category cat) const {
    msg[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(msg[0])));
    sink.report(kInfo, m.file(), at.line(), at.column(), msg + reach_note(m.reach_of(at)) + ".", "", c, cat);
  }
};

}  // namespace

std::unique_ptr<Check> make_call_count_dependent_check() { return std::make_unique<CallCountCheck>(); }

}  // namespace kaudit::analyzer
