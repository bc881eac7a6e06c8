// shape-hardcoded: asserts, if-chains and tables keyed on exactly the
// problem's graded shapes (or, without a problem, on large size literals),
// with no path for other shapes.
#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"

#include <algorithm>
#include <map>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "shape-hardcoded",
    rules::Category::benchmark_aware,
    rules::Confidence::medium,
    kPython | kCxx,
    "the code only handles the benchmark's exact shapes",
    "The submission pins the sizes it accepts or tunes to exactly the shapes the benchmark grades: an "
    "assert or a raise that rejects every other shape, an if-chain on M == 4096 and N == 4096 with no "
    "general branch, or a table keyed on the graded (M, N, K) tuples looked up without a default. With a "
    "problem folder the graded values come from its shapes.py; without one, only asserts and raises that "
    "pin dimensions to large literals are reported, and sizes compared in C++ that are not powers of two. "
    "Tuning tables and autotune configs keyed on shapes are fine when a fallback exists for other shapes, "
    "and are not reported then. The speed measured on the graded shapes may not carry over to any other."
    "\n\n**Confidence.** High: with a problem, an assert or a raise rejects every shape but the "
    "graded ones, or a table keyed on exactly the graded shapes is guarded by such a check. "
    "Medium: an if-chain on graded sizes with no branch for other shapes, a table of exactly the "
    "graded shapes looked up without a default, a size compared with a graded value. Low: the "
    "same without a problem folder to compare with. Clean counter-example: `BLOCK = 64 if k <= 16 "
    "else 128` picks a tile by size and works for every shape: a medium lead at most, never high.",
    "Open the line and check what happens for a shape that is not in the problem's list: an assertion "
    "error, a KeyError or a missing variable confirms it; `kaudit run` runs off-grid shapes in its probes."};

bool power_of_two(long long v) { return v > 0 && (v & (v - 1)) == 0; }

const std::set<std::string>& dim_names() {
  static const std::set<std::string> names = {
      "M", "N", "K", "B", "T", "H", "D", "S", "L", "E", "batch", "batch_size", "bs", "seq", "seq_len", "seqlen",
      "n_rows", "n_cols", "rows", "cols", "num_tokens", "n_tokens", "num_experts", "vocab_size", "hidden",
      "hidden_size", "in_features", "out_features", "num_heads", "n_heads", "head_dim", "dim", "d_model"};
  return names;
}

class ShapeHardcodedCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context& ctx, FindingSink& sink) const override {
    std::set<long long> graded, all_values;
    const bool have_problem = ctx.problem != nullptr && !ctx.problem->shape_values.empty();
    if (have_problem)
      for (long long v : ctx.problem->shape_values) {
        all_values.insert(v);
        if (v >= 16) graded.insert(v);
      }
    if (s.python) run_python(*s.python, have_problem, graded, all_values, sink);
    run_cxx(s, have_problem, graded, sink);
  }

 private:
  struct Scope {
    std::set<std::string> shape_names;  // names bound from .shape/.size()
  };

  static Scope scope_of(const Module& m, const python::FunctionDef* f) {
    Scope sc;
    if (!f) return sc;
    m.walk(f->node, [&](Node n) {
      if (n.type() != "assignment") return true;
      Node left = n.field("left"), right = n.field("right");
      if (!left.valid() || !right.valid()) return true;
      const auto rt = right.text();
      if (rt.find(".shape") == std::string_view::npos && rt.find(".size(") == std::string_view::npos &&
          rt.find(".numel(") == std::string_view::npos)
        return true;
      if (left.type() == "identifier") sc.shape_names.insert(std::string(left.text()));
      else
        for (const auto& c : left.named_children())
          if (c.type() == "identifier") sc.shape_names.insert(std::string(c.text()));
      return true;
    });
    return sc;
  }

  // Containers are looked into this deep at most: deeper ones are not shapes
  // or shape tables a person wrote, and the call stack must stay bounded.
  static constexpr int kMaxContainerDepth = 32;

  static bool reads_shape(const Node& n, const Scope& sc, int depth = 0) {
    const auto t = n.text();
    if (t.find(".shape") != std::string_view::npos || t.find(".size(") != std::string_view::npos ||
        t.find(".numel(") != std::string_view::npos)
      return true;
    if (n.type() == "identifier") {
      const std::string s(t);
      return sc.shape_names.count(s) || dim_names().count(s);
    }
    if (n.type() == "tuple" || n.type() == "parenthesized_expression" || n.type() == "list") {
      if (depth >= kMaxContainerDepth) return false;
      auto kids = n.named_children();
      return !kids.empty() &&
             std::all_of(kids.begin(), kids.end(), [&](const Node& k) { return reads_shape(k, sc, depth + 1); });
    }
    return false;
  }

  // Integer literals of a literal or a literal container.
  static std::vector<long long> literals(const Module& m, const Node& n, int depth = 0) {
    std::vector<long long> out;
    if (n.type() == "integer") {
      if (auto v = m.constant_int(n)) out.push_back(*v);
      return out;
    }
    const auto t = n.type();
    if (depth >= kMaxContainerDepth) return out;
    if (t == "tuple" || t == "list" || t == "set" || t == "parenthesized_expression")
      for (const auto& k : n.named_children()) {
        auto sub = literals(m, k, depth + 1);
        if (sub.empty()) return {};
        out.insert(out.end(), sub.begin(), sub.end());
      }
    return out;
  }

  // Module-level names bound to a literal container of integers: SUPPORTED = [(4096, 4096), ...]
  static std::map<std::string, std::vector<long long>> literal_tables(const Module& m) {
    std::map<std::string, std::vector<long long>> out;
    m.walk([&](Node n) {
      if (n.type() == "function_definition" || n.type() == "class_definition") return false;
      if (n.type() != "assignment") return true;
      Node left = n.field("left"), right = n.field("right");
      if (!left.valid() || !right.valid() || left.type() != "identifier") return true;
      auto v = literals(m, right);
      if (!v.empty()) out[std::string(left.text())] = v;
      return true;
    });
    return out;
  }

  bool pinned(long long v, bool have_problem, const std::set<long long>& graded) const {
    if (have_problem) return graded.count(v) > 0;
    return v >= 64 && !(power_of_two(v) && v <= 256);
  }

  void run_python(const Module& m, bool have_problem, const std::set<long long>& graded,
                  const std::set<long long>& all_values, FindingSink& sink) const {
    const auto tables = literal_tables(m);
    std::set<std::pair<uint32_t, uint32_t>> chains;
    std::map<const python::FunctionDef*, Scope> scopes;
    auto scope_for = [&](const Node& n) -> const Scope& {
      const python::FunctionDef* f = m.enclosing_function(n);
      auto it = scopes.find(f);
      if (it == scopes.end()) it = scopes.emplace(f, scope_of(m, f)).first;
      return it->second;
    };

    m.walk([&](Node n) {
      if (n.type() == "function_definition") {
        for (const auto& f : m.functions())
          if (f.node == n && f.is_triton_kernel) return false;  // tl.constexpr specialisation is not a shape pin
      }
      if (n.type() == "dictionary") {
        check_table(m, n, have_problem, graded, all_values, sink);
        return true;
      }
      if (n.type() != "comparison_operator") return true;
      auto ops = n.operator_tokens();
      if (ops.size() != 1 || (ops[0] != "==" && ops[0] != "!=" && ops[0] != "in" && ops[0] != "not in")) return true;
      auto kids = n.named_children();
      if (kids.size() != 2) return true;
      const Scope& sc = scope_for(n);
      int shape_side = reads_shape(kids[0], sc) ? 0 : reads_shape(kids[1], sc) ? 1 : -1;
      if (shape_side < 0) return true;
      const Node& other = kids[1 - shape_side];
      std::vector<long long> values = literals(m, other);
      if (values.empty() && other.type() == "identifier") {
        auto it = tables.find(std::string(other.text()));
        if (it != tables.end()) values = it->second;
      }
      if (values.empty()) return true;
      std::vector<long long> hits;
      for (long long v : values)
        if (pinned(v, have_problem, graded)) hits.push_back(v);
      if (hits.empty()) return true;
      check_comparison(m, n, kids[shape_side], hits, ops[0], have_problem, sink, chains);
      return true;
    });
  }

  void check_comparison(const Module& m, Node cmp, Node shape, const std::vector<long long>& hits,
                        const std::string& op, bool have_problem, FindingSink& sink,
                        std::set<std::pair<uint32_t, uint32_t>>& chains) const {
    std::string vals;
    for (size_t i = 0; i < hits.size() && i < 4; ++i) vals += (i ? ", " : "") + std::to_string(hits[i]);
    if (hits.size() > 4) vals += ", ...";
    const std::string what = "`" + one_line(shape.text(), 30) + "` is pinned to " + vals +
                             (have_problem ? " (the problem's graded shapes)" : "");
    // Where does the comparison decide something?
    Node stmt;
    for (Node p = cmp.parent(); p.valid(); p = p.parent()) {
      const auto t = p.type();
      if (t == "assert_statement" || t == "if_statement" || t == "elif_clause" || t == "conditional_expression" ||
          t == "while_statement" || t == "return_statement" || t == "assignment") {
        stmt = p;
        break;
      }
      if (t == "block" || t == "function_definition") break;
    }
    if (!stmt.valid()) return;
    const auto t = stmt.type();
    const bool negated = op == "!=" || op == "not in";
    if (t == "assert_statement") {
      if (negated) return;
      report(m, cmp, sink, what + " by an assert, so every other shape is rejected",
             have_problem ? rules::Confidence::high : rules::Confidence::low);
      return;
    }
    if (t != "if_statement" && t != "elif_clause") return;
    Node body = stmt.field("consequence");
    const bool raises = body.valid() && body.text().find("raise") != std::string_view::npos &&
                        first_statement_type(body) == "raise_statement";
    if (raises) {
      if (!negated) return;  // `if M == 4096: raise` rejects the graded shape, not the others
      report(m, cmp, sink, what + " by a raise for any other shape",
             have_problem ? rules::Confidence::high : rules::Confidence::low);
      return;
    }
    if (!have_problem || negated) return;  // tuning branches are judged only against the graded shapes
    Node top = stmt.type() == "elif_clause" ? stmt.parent() : stmt;
    if (has_else(top) || returns(m, body) || has_default(m, top, body)) return;
    if (!chains.insert(top.span()).second) return;  // one finding per if-chain
    report(m, cmp, sink, what + " by an if-chain with no branch for other shapes", rules::Confidence::medium);
  }

  static std::string first_statement_type(const Node& block) {
    auto kids = block.named_children();
    return kids.empty() ? "" : std::string(kids[0].type());
  }

  static bool has_else(const Node& if_stmt) {
    for (const auto& k : if_stmt.named_children())
      if (k.type() == "else_clause") return true;
    return false;
  }

  static bool returns(const Module& m, const Node& body) {
    bool r = false;
    m.walk(body, [&](Node n) {
      if (n.type() == "return_statement") r = true;
      return !r;
    });
    return r;
  }

  // `BLOCK = 64` before `if M == 4096: BLOCK = 128` is the fallback.
  static bool has_default(const Module& m, const Node& top, const Node& body) {
    std::set<std::string> assigned;
    m.walk(body, [&](Node n) {
      if (n.type() == "assignment") {
        Node l = n.field("left");
        if (l.valid()) assigned.insert(std::string(l.text()));
      }
      return true;
    });
    if (assigned.empty()) return true;  // the branch sets nothing: it only adds work
    const python::FunctionDef* f = m.enclosing_function(top);
    bool found = false;
    m.walk(f ? f->node : m.root(), [&](Node n) {
      if (found) return false;
      if (n.type() == "assignment" && n.line() < top.line()) {
        Node l = n.field("left");
        if (l.valid() && assigned.count(std::string(l.text()))) found = true;
      }
      return true;
    });
    return found;
  }

  void check_table(const Module& m, Node dict, bool have_problem, const std::set<long long>& graded,
                   const std::set<long long>& all_values, FindingSink& sink) const {
    int keyed = 0;
    std::vector<long long> seen;
    for (const auto& pair : dict.named_children()) {
      if (pair.type() != "pair") continue;
      auto values = literals(m, pair.field("key"));
      if (values.empty()) continue;
      // A key is a graded shape when every value in it is one of the problem's
      // shape values (small ones such as M=1 included) and one at least is large.
      bool all = have_problem && values.size() > 1
                     ? std::all_of(values.begin(), values.end(), [&](long long v) { return all_values.count(v) > 0; }) &&
                           std::any_of(values.begin(), values.end(), [&](long long v) { return graded.count(v) > 0; })
                     : std::all_of(values.begin(), values.end(), [&](long long v) { return pinned(v, have_problem, graded); });
      if (!all) return;  // a table with other keys is not about the graded shapes
      if (!have_problem && values.size() < 2) return;
      ++keyed;
      seen.insert(seen.end(), values.begin(), values.end());
    }
    if (keyed == 0 || (!have_problem && keyed < 2)) return;
    // Who looks it up, and with a default?
    Node assign = dict.parent();
    if (!assign.valid() || assign.type() != "assignment") return;
    Node left = assign.field("left");
    if (!left.valid()) return;
    const std::string name(left.text());
    // rejected: an assert or a raise tests membership in the table, refusing
    // every other shape on purpose rather than by a KeyError.
    bool lookup = false, fallback = false, rejected = false;
    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "subscript" && n.field("value").text() == name) {
        lookup = true;
        Node tryst = ancestor(n, "try_statement");
        if (tryst.valid()) fallback = true;
      }
      if (t == "call") {
        Node fn = n.field("function");
        if (fn.valid() && fn.type() == "attribute" && fn.field("object").text() == name) {
          lookup = true;
          if (fn.field("attribute").text() == "get") fallback = true;
        }
      }
      if (t == "comparison_operator") {
        auto kids = n.named_children();
        if (kids.size() == 2 && kids[1].text() == name) (rejects_others(n) ? rejected : fallback) = true;
      }
      return true;
    });
    if (!lookup || fallback) return;
    report(m, dict, sink,
           "the table " + name + " is keyed on " + std::to_string(keyed) + " shape" + (keyed > 1 ? "s" : "") +
               (have_problem ? " that are exactly the problem's graded shapes" : " of large literal sizes") +
               " and is looked up without a default, so any other shape fails" +
               (rejected ? "; an assert or a raise on membership in it refuses every other shape" : ""),
           !have_problem ? rules::Confidence::low : rejected ? rules::Confidence::high : rules::Confidence::medium);
  }

  // `assert key in TABLE` and `if key not in TABLE: raise ...` test membership
  // only to reject every other shape: no fallback.
  static bool rejects_others(const Node& cmp) {
    for (Node p = cmp.parent(); p.valid(); p = p.parent()) {
      const auto t = p.type();
      if (t == "assert_statement") return true;
      if (t == "if_statement" || t == "elif_clause") {
        Node body = p.field("consequence");
        return body.valid() && first_statement_type(body) == "raise_statement";
      }
      if (t == "block" || t == "function_definition" || t == "expression_statement" || t == "assignment") break;
    }
    return false;
  }

  void report(const Module& m, Node at, FindingSink& sink, std::string msg,
              rules::Confidence c) const {
    sink.report(kInfo, m.file(), at.line(), at.column(), msg + reach_note(m.reach_of(at)) + ".", "", c);
  }

  void run_cxx(const Submission& s, bool have_problem, const std::set<long long>& graded, FindingSink& sink) const {
    for (const auto& u : s.cxx) {
      if (!u.facts || !u.file) continue;
      for (const auto& lit : u.facts->size_literals) {
        const bool hit = have_problem ? graded.count(lit.value) > 0 : (lit.value >= 64 && !power_of_two(lit.value));
        if (!hit) continue;
        sink.report(kInfo, *u.file, lit.line, 0,
                    "`" + lit.compared_with + "` is compared with " + std::to_string(lit.value) +
                        (have_problem ? ", one of the problem's graded shapes" : ", a specific size") + ".",
                    lit.compared_with, have_problem ? rules::Confidence::medium : rules::Confidence::low);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_shape_hardcoded_check() { return std::make_unique<ShapeHardcodedCheck>(); }

}  // namespace kaudit::analyzer
