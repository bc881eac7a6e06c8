// output-cached-on-identity: results stored under the identity of the
// inputs (data_ptr(), id(), `is`, _version, hash) and handed back, and
// outputs computed once and returned on every later call.
#include <set>

#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/value_flow.h"

#include <regex>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "output-cached-on-identity",
    rules::Category::cheat,
    rules::Confidence::high,
    kPython | kCxx,
    "outputs are cached under the inputs' identity and returned again",
    "The submission keeps results between calls and decides whether to reuse them by the identity of the "
    "inputs rather than their values: a dictionary keyed on data_ptr() or id(x), a comparison with the "
    "previous call's tensor by `is`, by address or by its _version counter, or an output computed once "
    "(under `if self.out is None`) and returned on every later call. The benchmark hands over the same "
    "tensors on every timed call, so such a cache turns the timed calls into no work at all, and the "
    "answer is wrong as soon as new values arrive in the same memory. In C++, static tensors and maps "
    "keyed on pointers are reported as suspicious: they are where such caches live."
    "\n\n**Confidence.** High (cheat): a value stored under an identity key (data_ptr, id, `is`, "
    "_version) or computed once under `if self.out is None`, is handed back as what forward "
    "returns, directly, through a helper's return, or through a view, a copy or any PyTorch op on it; following the "
    "data decides, whatever the key is (an output stored under the weight's address is a cheat "
    "too). Medium: a buffer allocated once and rewritten by every call (benchmark-aware: callers "
    "share one output), an identity-keyed store whose use was not traced, a returned attribute "
    "forward never computes. Low: an identity-keyed cache whose value forward only computes with "
    "(a prepacked or padded weight, a TMA descriptor, an index schedule derived from a metadata "
    "tensor), and a buffer refilled in place. In C++, static tensors and pointer-keyed maps are "
    "medium suspicious. Clean counter-example: `_packed_weight(w)` keyed on `(w.data_ptr(), "
    "w._version)` returning a transposed copy that the GEMM kernel reads while writing a new "
    "output: low.",
    "Open the line, find what is stored under the key and whether forward returns it without running a "
    "kernel; then run `kaudit run`: the `rewrite` probe writes new values into the same tensors, and a "
    "cache keyed on identity returns the old answer there."};

bool scope_has_graph(const Module& m, const python::FunctionDef& f) {
  for (const auto& c : m.calls()) {
    if (!f.node.contains(c.node)) continue;
    if (is_under(c.qualified, "torch.cuda.CUDAGraph") || c.qualified == "torch.cuda.graph" || c.method == "replay" ||
        c.method == "capture_begin")
      return true;
  }
  return false;
}

// The statement-level context of an identity use: the container it keys, or
// the comparison it takes part in.
struct KeyUse {
  Node at;              // where to report
  std::string container;  // "self.cache" when used as a key
  Node comparison;      // the comparison, when compared with stored state
};

// `return self._replay()`: the value comes back from a local helper that
// replays a CUDA graph, which recomputes it from the inputs' memory; the
// graph check rates that, not this one.
bool returned_by_graph_helper(const Module& m, Node ret) {
  auto kids = ret.named_children();
  if (kids.size() != 1 || kids[0].type() != "call") return false;
  Node fn = kids[0].field("function");
  if (!fn.valid()) return false;
  std::string name(fn.text());
  if (name.starts_with("self.")) name = name.substr(5);
  for (const auto& f : m.functions())
    if (f.name == name && scope_has_graph(m, f)) return true;
  return false;
}

std::vector<std::string> return_texts(const Module& m, Node scope) {
  std::vector<std::string> out;
  m.walk(scope, [&](Node n) {
    if (n.type() == "function_definition" && !(n == scope)) return false;
    if (n.type() == "return_statement" && !returned_by_graph_helper(m, n)) out.emplace_back(n.text());
    return true;
  });
  return out;
}

// Returns of `scope` that hand back stored state: self.x, C[...], C.get(...).
std::string stored_return(const Module& m, Node scope, const std::string& container) {
  // Local names that hold what the container holds: `hit = C.get(key)`,
  // `hit = C[key]`; a later `return hit` hands the stored value back.
  std::set<std::string> aliases;
  if (!container.empty()) {
    m.walk(scope, [&](Node n) {
      if (n.type() == "function_definition" && !(n == scope)) return false;
      if (n.type() != "assignment") return true;
      Node left = n.field("left");
      Node right = n.field("right");
      if (!left.valid() || !right.valid() || left.type() != "identifier") return true;
      bool reads = false;
      m.walk(right, [&](Node r) {
        if (reads) return false;
        if (r.type() == "subscript" && r.field("value").valid() && r.field("value").text() == container) reads = true;
        if (r.type() == "call") {
          Node fn = r.field("function");
          if (fn.valid() && fn.type() == "attribute" && fn.field("object").valid() &&
              fn.field("object").text() == container) {
            const auto a = fn.field("attribute").text();
            if (a == "get" || a == "setdefault" || a == "__getitem__") reads = true;
          }
        }
        return true;
      });
      if (reads) aliases.insert(std::string(left.text()));
      return true;
    });
  }
  // `return hit`, `return hit.clone()`, `return hit[0], hit[1]`: the stored
  // value itself, or a view or copy of it, handed back.
  static const std::regex view_of(
      R"(^\(?\s*([A-Za-z_]\w*)((\.(clone|contiguous|detach|view|reshape|to|float|t)\([^()]*\))|(\[[^\]]*\])|\.(values|indices))*\s*\)?$)");
  for (const auto& r : return_texts(m, scope)) {
    std::string_view v = std::string_view(r).substr(std::min<size_t>(r.size(), 7));  // after "return "
    if (!container.empty() && v.find(container) != std::string_view::npos) return one_line(r);
    if (container.empty() && v.starts_with("self.")) return one_line(r);
    while (!v.empty() && (v.back() == ' ' || v.back() == ';')) v.remove_suffix(1);
    size_t start = 0;
    for (size_t i = 0; i <= v.size(); ++i) {
      if (i < v.size() && v[i] != ',') continue;
      std::string part(v.substr(start, i - start));
      start = i + 1;
      part.erase(0, part.find_first_not_of(' '));
      std::smatch sm;
      if (std::regex_match(part, sm, view_of) && aliases.count(sm[1].str())) return one_line(r);
    }
  }
  return {};
}

// Whether `n` lies within the `subscript` part of a subscript, and which container.
std::string keyed_container(Node n, Node stop) {
  for (Node p = n.parent(); p.valid() && !(p == stop); p = p.parent()) {
    const auto t = p.type();
    if (t == "subscript") {
      Node value = p.field("value");
      if (value.valid() && !value.contains(n)) return std::string(value.text());
    }
    if (t == "call") {
      Node fn = p.field("function");
      if (fn.valid() && fn.type() == "attribute" && !fn.contains(n)) {
        Node attr = fn.field("attribute");
        const auto a = attr.valid() ? attr.text() : std::string_view{};
        if (a == "get" || a == "setdefault" || a == "pop" || a == "__getitem__" || a == "__contains__")
          return std::string(fn.field("object").text());
      }
    }
    if (t == "comparison_operator") {
      auto ops = p.operator_tokens();
      auto kids = p.named_children();
      if (ops.size() == 1 && (ops[0] == "in" || ops[0] == "not in") && kids.size() == 2 && kids[0].contains(n))
        return std::string(kids[1].text());
    }
    if (t == "expression_statement" || t == "block" || t == "if_statement" || t == "return_statement") break;
  }
  return {};
}

Node enclosing_comparison(Node n, Node stop) {
  if (n.type() == "comparison_operator") return n;
  for (Node p = n.parent(); p.valid() && !(p == stop); p = p.parent()) {
    if (p.type() == "comparison_operator") {
      auto ops = p.operator_tokens();
      if (!ops.empty() && ops[0] != "in" && ops[0] != "not in") return p;
      return {};
    }
    const auto t = p.type();
    if (t == "expression_statement" || t == "block" || t == "assignment") break;
  }
  return {};
}

class OutputCachedCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  // Helpers' returns followed per file; per thread, as one check object may
  // analyse files on several threads.
  static inline thread_local int flow_budget_ = 0;

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    flow_budget_ = 32;
    if (s.python) run_python(*s.python, sink);
    run_cxx(s, sink);
  }

 private:
  void run_python(const Module& m, FindingSink& sink) const {
    std::set<std::string> containers;  // one finding per cache
    for (const auto& f : m.functions()) {
      if (f.is_triton_kernel || scope_has_graph(m, f)) continue;
      for (const auto& use : identity_uses(m, f.node)) {
        if (m.enclosing_function(use.node) != &f) continue;  // nested defs are visited on their own
        check_use(m, f, use, sink, containers);
      }
    }
    check_computed_once(m, sink);
  }

  void check_use(const Module& m, const python::FunctionDef& f, const IdentityUse& use, FindingSink& sink,
                 std::set<std::string>& containers) const {
    std::string container = keyed_container(use.node, f.node);
    Node comparison = enclosing_comparison(use.node, f.node);
    Node at = use.node;
    std::string via;
    if (container.empty() && !comparison.valid()) {
      // key = (a.data_ptr(), b.data_ptr()); ... self.cache[key]
      Node assign = ancestor(use.node, "assignment");
      if (!assign.valid() || !f.node.contains(assign)) return;
      Node left = assign.field("left");
      if (!left.valid() || left.type() != "identifier") return;
      const std::string name(left.text());
      m.walk(f.node, [&](Node n) {
        if (!container.empty() || comparison.valid()) return false;
        if (n.type() != "identifier" || n.text() != name || left.contains(n)) return true;
        container = keyed_container(n, f.node);
        if (container.empty()) {
          Node cmp = enclosing_comparison(n, f.node);
          auto kids = cmp.valid() ? cmp.named_children() : std::vector<Node>{};
          // Comparing the key with stored state (self.last_key), not with a literal.
          for (const auto& k : kids)
            if (!k.contains(n) && k.text().starts_with("self.")) comparison = cmp;
        }
        if (!container.empty() || comparison.valid()) {
          at = n;
          via = " (through `" + name + "`)";
        }
        return true;
      });
      if (container.empty() && !comparison.valid()) return;
    }
    if (comparison.valid() && container.empty()) {
      // Only a comparison with stored state is a cache test.
      bool with_state = use.what == "`is` comparison";
      for (const auto& k : comparison.named_children())
        if (!k.contains(use.node) && (k.text().starts_with("self.") || k.type() == "identifier" || k.type() == "attribute"))
          with_state = true;
      if (!with_state) return;
    }
    // One finding per cache: `id(x) in memo` ... `memo[id(x)]` is one cache.
    if (!container.empty() && !containers.insert(f.qualified_name + "|" + container).second) return;
    std::string ret;
    if (!container.empty()) ret = stored_return(m, f.node, container);
    if (ret.empty() && comparison.valid()) {
      Node if_stmt = ancestor(comparison, "if_statement");
      if (if_stmt.valid() && f.node.contains(if_stmt)) ret = stored_return(m, if_stmt, "");
    }
    std::string what = use.what == "`is` comparison" ? "an `is` comparison with stored state (`" +
                                                           one_line(use.node.text(), 50) + "`)"
                                                     : use.what + " (`" + one_line(use.node.text(), 50) + "`)";
    std::string msg = f.qualified_name + " uses " + what + via +
                      (container.empty() ? " to decide whether to reuse earlier results"
                                         : " as a key into " + container);
    if (!ret.empty()) {
      // A helper that hands back its stored value is a cache of a result only
      // when that value reaches what forward returns; a prepacked weight, a
      // descriptor or an index schedule is computed with, and the output is
      // new on every call.
      const bool in_forward = !m.model_class() || m.model_forward() == &f;
      // Out of budget (thousands of caches in one file) a helper's cache is
      // taken for a cached result, as before values were followed.
      const bool follow = !in_forward && flow_budget_-- > 0;
      const ValueFlow flow = follow ? follow_return(m, f, ThroughCalls::torch_ops_only) : ValueFlow{};
      if (!follow || flow.returned_by_forward || flow.returned_unresolved) {
        msg += " and returns the stored value (`" + ret + "`)" +
               (follow ? ", which forward returns" : "") + reach_note(m.reach_of(at)) + ".";
        sink.report(kInfo, m.file(), at.line(), at.column(), msg, use.what);
      } else {
        msg += " and returns the stored value (`" + ret + "`), which forward only computes with (a prepacked " +
               "weight, a descriptor, an index schedule), never returns: its output is computed in the call" +
               reach_note(m.reach_of(at)) + ".";
        sink.report(kInfo, m.file(), at.line(), at.column(), msg, use.what, rules::Confidence::low,
                    rules::Category::suspicious);
      }
    } else {
      msg += "; check what it stores (an output is a cheat, a descriptor keyed on the address is not)" +
             reach_note(m.reach_of(at)) + ".";
      sink.report(kInfo, m.file(), at.line(), at.column(), msg, use.what, rules::Confidence::medium,
                  rules::Category::suspicious);
    }
  }

  // `if self.out is None: self.out = compute(x)` ... `return self.out`.
  void check_computed_once(const Module& m, FindingSink& sink) const {
    const python::ClassDef* model = m.model_class();
    for (const auto& f : m.functions()) {
      const bool is_forward = model && f.class_name == model->name && f.name == "forward";
      if (!is_forward) continue;
      m.walk(f.node, [&](Node n) {
        if (n.type() == "function_definition" && !(n == f.node)) return false;
        if (n.type() != "return_statement") return true;
        auto kids = n.named_children();
        if (kids.size() != 1 || kids[0].type() != "attribute") return true;
        Node obj = kids[0].field("object");
        if (!obj.valid() || obj.text() != "self") return true;
        check_returned_attribute(m, f, n, std::string(kids[0].text()), sink);
        return true;
      });
    }
  }

  // Whether `n` hands storage to something that writes it: an argument of a
  // call (a kernel launch, torch.add(..., out=attr)), the receiver of an
  // in-place method (attr.zero_()), or the target of a subscript assignment.
  static bool written_at(Node n) {
    Node p = n.parent();
    if (!p.valid()) return false;
    if (p.type() == "argument_list" || p.type() == "keyword_argument") return true;
    if (p.type() == "attribute") {
      Node a = p.field("attribute");
      Node pp = p.parent();
      if (a.valid() && a.text().ends_with("_") && pp.valid() && pp.type() == "call") return true;
    }
    return p.type() == "subscript" && p.parent().valid() && p.parent().type() == "assignment" &&
           p.parent().field("left").contains(n);
  }

  // An allocation that holds no result yet: torch.empty(...), x.new_zeros(...).
  static bool is_allocation(const Module& m, Node rhs) {
    if (!rhs.valid() || rhs.type() != "call") return false;
    static const char* kAlloc[] = {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
                                   "full_like", "new_empty", "new_zeros", "new_ones", "new_full", "empty_strided"};
    Node fn = rhs.field("function");
    std::string name;
    if (auto q = m.qualified_name(fn)) name = std::string(last_component(*q));
    else if (fn.valid() && fn.type() == "attribute") name = std::string(fn.field("attribute").text());
    for (const char* a : kAlloc)
      if (name == a) return true;
    return false;
  }

  struct AttributeUse {
    Node guard;                      // the if that sets it only once
    bool assigned_unguarded = false;
    bool assigned_in_guard = false;
    bool allocated_only = true;      // every assignment in the guard is an allocation
    bool written_each_call = false;  // written outside the guard, directly or through a local alias
    bool written_in_guard = false;
  };

  AttributeUse attribute_use(const Module& m, const python::FunctionDef& f, Node ret, const std::string& attr) const {
    AttributeUse u;
    std::set<std::string> aliases;  // `out = self.out` outside the guard
    m.walk(f.node, [&](Node n) {
      const auto t = n.type();
      if (t == "if_statement" && !u.guard.valid()) {
        Node cond = n.field("condition");
        const std::string_view c = cond.valid() ? cond.text() : std::string_view{};
        const std::string bare = attr.substr(5);
        if ((c.find(attr) != std::string_view::npos && (c.find("None") != std::string_view::npos || c.starts_with("not "))) ||
            (c.find("hasattr") != std::string_view::npos && c.find("\"" + bare + "\"") != std::string_view::npos) ||
            (c.find("hasattr") != std::string_view::npos && c.find("'" + bare + "'") != std::string_view::npos))
          u.guard = n;
      }
      const bool in_guard = u.guard.valid() && u.guard.contains(n);
      if (t == "assignment" || t == "augmented_assignment") {
        Node left = n.field("left");
        Node right = n.field("right");
        if (left.valid() && left.text() == attr) {
          if (in_guard) {
            u.assigned_in_guard = true;
            u.allocated_only = u.allocated_only && t == "assignment" && is_allocation(m, right);
          } else {
            u.assigned_unguarded = true;
          }
        }
        if (!in_guard && left.valid() && left.type() == "identifier" && right.valid() && right.text() == attr)
          aliases.insert(std::string(left.text()));
      }
      const bool names_it = (t == "attribute" && n.text() == attr) || (t == "identifier" && aliases.count(std::string(n.text())));
      if (names_it && !ret.contains(n) && written_at(n)) (in_guard ? u.written_in_guard : u.written_each_call) = true;
      return true;
    });
    return u;
  }

  void check_returned_attribute(const Module& m, const python::FunctionDef& f, Node ret, const std::string& attr,
                                FindingSink& sink) const {
    const AttributeUse u = attribute_use(m, f, ret, attr);
    if (u.assigned_unguarded) return;
    const std::string cond = u.guard.valid() ? one_line(u.guard.field("condition").text(), 40) : std::string();
    if (u.assigned_in_guard && u.written_each_call) {
      // A buffer allocated once and rewritten by every call: the output is
      // new, the storage is shared (the output-reused probe confirms it).
      sink.report(kInfo, m.file(), ret.line(), ret.column(),
                  "forward returns the same tensor " + attr + " on every call (allocated once under `" + cond +
                      "` and refilled), so callers share one output buffer.",
                  attr, rules::Confidence::medium, rules::Category::benchmark_aware);
    } else if (u.assigned_in_guard && u.allocated_only && !u.written_in_guard) {
      sink.report(kInfo, m.file(), ret.line(), ret.column(),
                  "forward returns " + attr + ", allocated once under `" + cond +
                      "`; no write to it was found in forward (a helper may fill it): check that every call writes it.",
                  attr, rules::Confidence::medium, rules::Category::suspicious);
    } else if (u.assigned_in_guard) {
      sink.report(kInfo, m.file(), ret.line(), ret.column(),
                  "forward returns " + attr + ", which is " + (u.allocated_only ? "filled" : "computed") +
                      " only on the first call (under `" + cond + "`) and then returned whatever the inputs.",
                  attr);
    } else if (!u.written_each_call) {
      sink.report(kInfo, m.file(), ret.line(), ret.column(),
                  "forward returns " + attr + ", which forward never computes: it is set elsewhere and returned "
                  "whatever the inputs.",
                  attr, rules::Confidence::medium);
    } else {
      sink.report(kInfo, m.file(), ret.line(), ret.column(),
                  "forward returns the same tensor " + attr + " on every call, refilled in place, so callers share "
                  "one output buffer.",
                  attr, rules::Confidence::low, rules::Category::benchmark_aware);
    }
  }

  void run_cxx(const Submission& s, FindingSink& sink) const {
    for (const auto& u : s.cxx) {
      if (!u.facts || !u.file) continue;
      for (const auto& v : u.facts->statics) {
        if (v.is_const) continue;
        const std::string& ty = v.type;
        const bool tensor = ty.find("Tensor") != std::string::npos;
        bool pointer_map = false;
        size_t lt = ty.find("map<");
        if (lt != std::string::npos) {
          size_t comma = ty.find(',', lt);
          std::string key_type = ty.substr(lt + 4, comma == std::string::npos ? std::string::npos : comma - lt - 4);
          pointer_map = key_type.find('*') != std::string::npos || key_type.find("intptr_t") != std::string::npos;
        }
        if (!tensor && !pointer_map) continue;
        sink.report(kInfo, *u.file, v.line, 0,
                    std::string(v.function_local ? "the function-local static " : "the global ") + v.name + " (" + ty +
                        ") " + (pointer_map ? "maps pointers to results across calls" : "keeps a tensor across calls") +
                        ", where an output cached on identity would live.",
                    v.name, rules::Confidence::medium, rules::Category::suspicious);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_output_cached_on_identity_check() { return std::make_unique<OutputCachedCheck>(); }

}  // namespace kaudit::analyzer
