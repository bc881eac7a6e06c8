#include "analyzer/checks/value_flow.h"

#include "analyzer/checks/pattern_helpers.h"

#include <deque>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>

namespace kaudit::analyzer::patterns {
namespace {

// Bounds that keep one question cheap on any file: helper returns are
// followed this many calls up, a value flows into at most this many names.
constexpr int kMaxDepth = 4;
constexpr size_t kMaxNames = 64;
constexpr int kMaxClimb = 64;
constexpr int kMaxRounds = 8;
constexpr int kMaxUses = 512;

bool one_of(std::string_view s, std::initializer_list<std::string_view> set) {
  for (auto x : set)
    if (s == x) return true;
  return false;
}

// Calls whose result is a verdict about their arguments, not a value made of them.
bool is_check_name(std::string_view n) {
  return one_of(n, {"allclose", "isclose", "equal", "assert_close", "assert_allclose", "array_equal", "assert_equal",
                    "assert_array_equal", "assert_array_almost_equal"});
}

// Calls that only show a value to a person.
bool is_inert_name(std::string_view n) {
  return one_of(n, {"print", "repr", "str", "len", "isinstance", "format", "warn", "debug", "info", "warning",
                    "error", "exception", "critical", "log", "write"});
}

class Walker {
 public:
  Walker(const Module& m, ThroughCalls through, int depth, std::set<const python::FunctionDef*>& visiting)
      : m_(m), through_(through), depth_(depth), visiting_(visiting) {}

  void from_expression(Node expr) {
    climb(expr);
    drain();
  }

  void from_return(const python::FunctionDef& f) {
    returned_from(&f);
    drain();
  }

  ValueFlow flow;

 private:
  std::string callee_name(Node call) const {
    Node fn = call.field("function");
    if (!fn.valid()) return {};
    if (auto q = m_.qualified_name(fn)) return std::string(last_component(*q));
    if (fn.type() == "attribute") return std::string(fn.field("attribute").text());
    if (fn.type() == "identifier") return std::string(fn.text());
    return {};
  }

  // A PyTorch function (torch.clone(x), torch.add(x, 0), torch.cat([x])):
  // its result is made of its arguments, not computed by the submission.
  bool is_torch_op(Node call) const {
    auto q = m_.qualified_name(call.field("function"));
    return q && q->starts_with("torch.") && !q->starts_with("torch.ops.") && !q->starts_with("torch.utils.");
  }

  void bind(Node target) {
    const auto t = target.type();
    if (t == "identifier") {
      Node scope_node = scope_of(target);
      auto key = std::make_pair(scope_node.start_byte(), std::string(target.text()));
      if (seen_.size() < kMaxNames && seen_.insert(key).second) queue_.push_back({scope_node, key.second});
      else if (seen_.size() >= kMaxNames) flow.consumed = true;
      return;
    }
    if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "tuple" || t == "list" ||
        t == "parenthesized_expression" || t == "expression_list") {
      for (const auto& k : target.named_children()) bind(k);
      return;
    }
    flow.consumed = true;  // self.x = value, cache[key] = value: kept beyond this statement
  }

  Node scope_of(Node n) const {
    const python::FunctionDef* f = m_.enclosing_function(n);
    return f ? f->node : m_.root();
  }

  // A value held by `n` travels up the expression it is part of.
  void climb(Node n) {
    Node cur = n;
    for (int step = 0; step < kMaxClimb; ++step) {
      Node p = cur.parent();
      if (!p.valid()) break;
      const auto t = p.type();
      if (t == "comparison_operator" || t == "not_operator") return void(flow.checked = true);
      if (t == "argument_list") {
        Node call = p.parent();
        const std::string name = call.valid() ? callee_name(call) : std::string();
        if (is_check_name(name) || is_inert_name(name)) return void(flow.checked = true);
        if (call.valid() && (through_ == ThroughCalls::all || is_torch_op(call))) {
          cur = call;
          continue;
        }
        break;  // passed to the submission's own code: a kernel launch, a helper, an extension
      }
      if (t == "attribute") {
        if (!(p.field("object") == cur)) break;
        Node call = p.parent();
        if (call.valid() && call.type() == "call" && call.field("function") == p) {
          const std::string meth(p.field("attribute").text());
          if (is_check_name(meth)) return void(flow.checked = true);  // a.equal(b)
          cur = call;  // any other Tensor method of the value (x.clone(), x.add(0)) carries it
          continue;
        }
        cur = p;  // value.values, value.indices
        continue;
      }
      if (t == "conditional_expression") {
        auto kids = p.named_children();
        if (kids.size() >= 2 && kids[1] == cur) return void(flow.checked = true);
        cur = p;
        continue;
      }
      if (one_of(t, {"keyword_argument", "parenthesized_expression", "binary_operator", "unary_operator",
                     "boolean_operator", "tuple", "list", "expression_list", "interpolation", "string",
                     "concatenated_string", "list_splat", "set", "pair", "dictionary", "subscript", "slice", "call",
                     "await"})) {
        cur = p;
        continue;
      }
      if (t == "assignment" || t == "augmented_assignment") {
        Node left = p.field("left");
        if (!left.valid() || left.contains(cur)) break;
        return bind(left);
      }
      if (t == "return_statement") return returned_from(m_.enclosing_function(p));
      if (one_of(t, {"if_statement", "elif_clause", "while_statement", "assert_statement", "raise_statement"}))
        return void(flow.checked = true);
      break;  // an expression statement, a lambda, a loop header, a yield: kept or used out of sight
    }
    flow.consumed = true;
  }

  bool calls_function(const python::Call& c, const python::FunctionDef& f) const {
    if (!c.callee.valid()) return false;
    if (!c.qualified.empty() && c.qualified == f.qualified_name) return true;
    if (c.callee.type() == "identifier") return c.callee.text() == f.name && f.class_name.empty();
    if (c.callee.type() == "attribute" && !f.class_name.empty()) {
      Node obj = c.callee.field("object");
      return c.method == f.name && obj.valid() && (obj.text() == "self" || obj.text() == "cls");
    }
    return false;
  }

  void returned_from(const python::FunctionDef* f) {
    if (!f) return void(flow.consumed = true);
    if (!m_.model_class()) return void(flow.returned_unresolved = true);
    if (f == m_.model_forward()) return void(flow.returned_by_forward = true);
    if (depth_ >= kMaxDepth || !visiting_.insert(f).second) return void(flow.returned_unresolved = true);
    bool any = false;
    for (const auto& c : m_.calls()) {
      if (!calls_function(c, *f)) continue;
      any = true;
      Walker inner(m_, through_, depth_ + 1, visiting_);
      inner.from_expression(c.node);
      merge(inner.flow);
    }
    visiting_.erase(f);
    if (!any) flow.returned_unresolved = true;  // called from outside the file, or by a name not followed
  }

  void merge(const ValueFlow& o) {
    flow.returned_by_forward |= o.returned_by_forward;
    flow.returned_unresolved |= o.returned_unresolved;
    flow.consumed |= o.consumed;
    flow.checked |= o.checked;
  }

  static bool binds_here(Node id) {
    Node p = id.parent();
    if (!p.valid()) return false;
    const auto t = p.type();
    if (t == "attribute") return p.field("attribute") == id;
    if (t == "keyword_argument") return p.field("name") == id;
    if (t == "parameters" || t == "default_parameter" || t == "typed_parameter" || t == "lambda_parameters")
      return true;
    for (Node a = id; a.valid(); a = a.parent()) {
      Node up = a.parent();
      if (!up.valid()) break;
      if ((up.type() == "assignment" || up.type() == "for_statement" || up.type() == "for_in_clause") &&
          up.field("left") == a)
        return true;
      if (!one_of(up.type(), {"pattern_list", "tuple_pattern", "list_pattern", "assignment", "for_statement"}))
        break;
    }
    return false;
  }

  // Names found in one round are looked for together, in one walk of each
  // scope that holds some: a value that flows through many names costs at
  // most kMaxRounds walks, not one per name.
  void drain() {
    int uses = 0;
    for (int round = 0; round < kMaxRounds && !queue_.empty(); ++round) {
      std::map<std::pair<uint32_t, uint32_t>, std::pair<Node, std::set<std::string>>> by_scope;
      for (auto& [scope, name] : queue_) {
        auto& slot = by_scope[scope.span()];
        slot.first = scope;
        slot.second.insert(name);
      }
      queue_.clear();
      for (auto& [span, entry] : by_scope) {
        const Node scope = entry.first;
        const auto& names = entry.second;
        m_.walk(scope, [&](Node n) {
          const auto t = n.type();
          // A module-level name is read inside functions too.
          if ((t == "function_definition" || t == "class_definition") && !(n == scope) && !(scope == m_.root()))
            return false;
          if (t != "identifier" || !names.count(std::string(n.text())) || binds_here(n)) return true;
          if (++uses < kMaxUses) climb(n);
          else flow.consumed = true;  // out of budget: assume the worst
          return true;
        });
      }
    }
    if (!queue_.empty()) flow.consumed = true;
  }

  const Module& m_;
  ThroughCalls through_;
  int depth_;
  std::set<const python::FunctionDef*>& visiting_;
  std::set<std::pair<uint32_t, std::string>> seen_;
  std::deque<std::pair<Node, std::string>> queue_;
};

}  // namespace

ValueFlow follow_value(const Module& m, Node expr, ThroughCalls through) {
  std::set<const python::FunctionDef*> visiting;
  Walker w(m, through, 0, visiting);
  w.from_expression(expr);
  return w.flow;
}

ValueFlow follow_return(const Module& m, const python::FunctionDef& f, ThroughCalls through) {
  std::set<const python::FunctionDef*> visiting;
  Walker w(m, through, 0, visiting);
  w.from_return(f);
  return w.flow;
}

}  // namespace kaudit::analyzer::patterns

namespace kaudit::analyzer::patterns {
namespace {

constexpr int kMaxTruthDepth = 8;

bool is_env_read(const Module& m, Node call) {
  if (!call.valid() || call.type() != "call") return false;
  auto q = m.qualified_name(call.field("function"));
  return q && (*q == "os.environ.get" || *q == "os.getenv");
}

// Variables a runner or a shell sets for every process (kaudit's runner
// passes CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH, TORCH_CUDA_ARCH_LIST, ...;
// other harnesses set more): a read of one of them is not at its default in
// a graded run, so nothing is concluded from it. Nor from a name that is
// computed.
bool may_be_set(const Module& m, const std::vector<Node>& args) {
  if (args.empty()) return true;
  auto name = m.constant_string(args[0]);
  if (!name) return true;
  static const std::regex set_by_others(
      R"(^(CUDA|LD|PATH|HOME|TMP|TEMP|LANG|LC|PYTHON|TRITON|TORCH|NCCL|NVSHMEM|NVIDIA|OMP|MKL|KAUDIT|SLURM|CC$|CXX$|USER|SHELL|PWD|HOSTNAME|TERM|RANK|LOCAL_RANK|WORLD_SIZE|MASTER)|BENCH|TIMING|EVAL|CHECK|PYTEST|KERNELBENCH|HARNESS|GRADER|SCORE)",
      std::regex::icase);
  return std::regex_search(*name, set_by_others);
}

// The string a value has in a graded run: a constant, or an environment
// read's default. nullopt for None (a read without default) or unknown;
// `known` tells the two apart.
std::optional<std::string> graded_string(const Module& m, Node e, bool& known) {
  known = true;
  if (auto s = m.constant_string(e)) return s;
  if (is_env_read(m, e)) {
    auto args = e.positional_args();
    if (may_be_set(m, args)) {
      known = false;
      return std::nullopt;
    }
    if (args.size() >= 2) {
      if (auto d = m.constant_string(args[1])) return d;
      if (auto i = m.constant_int(args[1])) return std::to_string(*i);
      known = false;
      return std::nullopt;
    }
    Node dflt = e.keyword_arg("default");
    if (dflt.valid()) {
      if (auto d = m.constant_string(dflt)) return d;
      known = false;
    }
    return std::nullopt;  // None
  }
  if (e.type() == "none") return std::nullopt;
  known = false;
  return std::nullopt;
}

// The one expression a name is bound to at module level, or invalid when it
// is bound more than once there. Defs and classes are not entered (a
// function rebinds a module name only through `global`, which is rare in
// kernels), so a question costs the module's top level, not the file.
Node single_module_binding(const Module& m, std::string_view name) {
  // globals()["X"] = ... or a setattr on the module rebinds out of sight.
  const std::string_view all = m.root().text();
  if (all.find("globals()") != std::string_view::npos || all.find("sys.modules") != std::string_view::npos)
    return {};
  Node found;
  int count = 0;
  m.walk([&](Node n) {
    const auto t = n.type();
    if (t == "function_definition" || t == "class_definition" || t == "decorated_definition") return false;
    if (t != "assignment" && t != "augmented_assignment") return true;
    Node left = n.field("left");
    if (left.valid() && left.type() == "identifier" && left.text() == name) {
      ++count;
      found = n.field("right");
    }
    return false;
  });
  return count == 1 ? found : Node{};
}

std::optional<bool> truth(const Module& m, Node e, int depth);

// self.X: the literal every assignment in the model class gives it.
std::optional<bool> attribute_truth(const Module& m, Node e, int depth) {
  const python::ClassDef* model = m.model_class();
  Node obj = e.field("object");
  if (!model || !obj.valid() || obj.text() != "self") return std::nullopt;
  // setattr(self, ...) or self.__dict__ can set it by a name not written here.
  const std::string_view body = model->node.text();
  if (body.find("setattr") != std::string_view::npos || body.find("__dict__") != std::string_view::npos)
    return std::nullopt;
  std::optional<bool> value;
  bool consistent = true;
  m.walk(model->node, [&](Node n) {
    if (n.type() == "augmented_assignment" && n.field("left").text() == e.text()) consistent = false;
    if (n.type() != "assignment" || n.field("left").text() != e.text()) return true;
    auto v = truth(m, n.field("right"), depth + 1);
    if (!v || (value && *value != *v)) consistent = false;
    value = v;
    return true;
  });
  return consistent ? value : std::nullopt;
}

std::optional<bool> truth(const Module& m, Node e, int depth) {
  if (!e.valid() || depth > kMaxTruthDepth) return std::nullopt;
  const auto t = e.type();
  if (t == "true") return true;
  if (t == "false" || t == "none") return false;
  if (t == "integer") return e.text() != "0";
  if (t == "parenthesized_expression") {
    auto kids = e.named_children();
    return kids.size() == 1 ? truth(m, kids[0], depth + 1) : std::nullopt;
  }
  if (t == "not_operator") {
    auto v = truth(m, e.field("argument"), depth + 1);
    return v ? std::optional<bool>(!*v) : std::nullopt;
  }
  if (t == "boolean_operator") {
    auto a = truth(m, e.field("left"), depth + 1);
    auto b = truth(m, e.field("right"), depth + 1);
    const bool is_and = e.field("operator").text() == "and";
    if (is_and && ((a && !*a) || (b && !*b))) return false;
    if (!is_and && ((a && *a) || (b && *b))) return true;
    if (a && b) return is_and ? (*a && *b) : (*a || *b);
    return std::nullopt;
  }
  if (t == "comparison_operator") {
    auto ops = e.operator_tokens();
    auto kids = e.named_children();
    if (ops.size() != 1 || kids.size() != 2 || (ops[0] != "==" && ops[0] != "!=")) return std::nullopt;
    bool ka = false, kb = false;
    auto a = graded_string(m, kids[0], ka);
    auto b = graded_string(m, kids[1], kb);
    if (!ka || !kb) return std::nullopt;
    return (a == b) == (ops[0] == "==");
  }
  if (t == "call") {
    if (is_env_read(m, e)) {
      bool known = false;
      auto s = graded_string(m, e, known);
      if (!known) return std::nullopt;
      return s.has_value() && !s->empty();
    }
    auto q = m.qualified_name(e.field("function"));
    auto args = e.positional_args();
    if (q && (*q == "int" || *q == "bool") && args.size() == 1 && is_env_read(m, args[0])) {
      bool known = false;
      auto s = graded_string(m, args[0], known);
      if (!known || !s) return std::nullopt;
      if (*q == "bool") return !s->empty();
      try {
        return std::stoll(*s) != 0;
      } catch (...) {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }
  if (t == "identifier") return truth(m, single_module_binding(m, e.text()), depth + 1);
  if (t == "attribute") return attribute_truth(m, e, depth);
  return std::nullopt;
}

}  // namespace

std::optional<bool> static_truth(const Module& m, Node cond) { return truth(m, cond, 0); }

Node dead_branch_guard(const Module& m, Node n) {
  for (Node cur = n, p = n.parent(); p.valid(); cur = p, p = p.parent()) {
    const auto t = p.type();
    if (t == "function_definition" || t == "class_definition" || t == "lambda") break;
    if (t == "if_statement" || t == "elif_clause") {
      Node cond = p.field("condition");
      if (p.field("consequence") == cur && static_truth(m, cond) == false) return cond;
    }
    if (t == "else_clause") {
      Node owner = p.parent();
      Node cond = owner.valid() ? owner.field("condition") : Node{};
      if (cond.valid() && static_truth(m, cond) == true) return cond;
    }
    if (t == "conditional_expression") {
      auto kids = p.named_children();
      if (kids.size() == 3 && kids[0] == cur && static_truth(m, kids[1]) == false) return kids[1];
      if (kids.size() == 3 && kids[2] == cur && static_truth(m, kids[1]) == true) return kids[1];
    }
  }
  return {};
}

}  // namespace kaudit::analyzer::patterns
