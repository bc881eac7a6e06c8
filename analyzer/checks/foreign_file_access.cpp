// foreign-file-access: reading, writing, deleting or listing files that
// are not the submission's own (the problem's reference.py, shapes.py,
// problem.yaml, the harness's files, parent folders), importing `shapes` or
// `reference`, and C++ file I/O.
#include "analyzer/checks/factories.h"
#include "analyzer/checks/liveness.h"
#include "analyzer/checks/pattern_helpers.h"

#include <algorithm>
#include <regex>
#include <set>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "foreign-file-access",
    rules::Category::cheat,
    rules::Confidence::high,
    kPython | kCxx,
    "the submission touches files that are not its own",
    "The submission opens, reads, writes, deletes or lists files beyond its own source: the problem's "
    "reference.py, shapes.py or problem.yaml, the harness's check or benchmark scripts, data files it does "
    "not ship (saved answers in .pt/.npy files), or the folders above it; or it imports the problem's "
    "`shapes` or `reference` modules. A kernel needs none of these. Reading them leaks the graded shapes or "
    "the reference answers, writing them changes what the harness checks against. Paths under the system's "
    "temporary folder and the submission's own file are not reported, nor are paths computed at run time "
    "unless they climb to a parent folder. C++ file I/O is reported with medium confidence, as its paths are "
    "not read."
    "\n\n**Confidence.** High: a file of the problem or the harness is opened, written or deleted "
    "(reference.py, shapes.py, problem.yaml, check.py), or the problem's modules are imported and "
    "changed (`reference.T = 64`) or read on forward's path (`if b == reference.batch`), "
    "including through a name computed from them (`_GRADED = {... for s in SHAPES}` then used in "
    "forward), or imported with a wildcard. Medium: a data file the submission does not ship, a "
    "listing of the working folder, a path that climbs out of it, C++ file I/O; and "
    "`shapes.SHAPES` read off the graded path to tune or warm up for the graded shapes "
    "(benchmark-aware); the problem's modules changed only in a def nothing running refers to. "
    "Low: changed only under `if __name__ == \"__main__\":` (a local self-test), which never runs "
    "on import. Low (suspicious): the problem's modules imported where nothing forward "
    "runs reads or writes them (a get_inputs helper that calls reference.get_inputs()). Clean "
    "counter-example: `def get_inputs(): import reference; return reference.get_inputs()` in the "
    "solution: low.",
    "Open the line and work out the path; `kaudit run` hashes the problem's files before and after the run "
    "and runs the submission in a fresh folder, so a changed or missing file is visible there."};

const std::regex& foreign_name() {
  static const std::regex re(
      R"((^|[/\\])(reference|shapes|problem|check|benchmark|bench|eval|harness|timing|solution_ref|answers?|expected|golden)\.(py|yaml|yml|json|pt|npy)$|(^|[/\\])\.\.([/\\]|$))",
      std::regex::icase);
  return re;
}

const std::regex& data_file() {
  static const std::regex re(R"(\.(pt|pth|npy|npz|pkl|pickle|bin|safetensors|h5|hdf5)$)", std::regex::icase);
  return re;
}

bool is_own_or_temp(const std::string& p) {
  return p.starts_with("/tmp") || p.starts_with("/dev/null") || p.starts_with("/dev/shm") ||
         p.starts_with("/proc/self/status") || p.starts_with("/proc/cpuinfo") || p.starts_with("/proc/meminfo");
}

// A path expression computed at run time that climbs out of the submission's folder.
bool climbs(std::string_view text) {
  return text.find("..") != std::string_view::npos || text.find(".parent.parent") != std::string_view::npos ||
         text.find("parents[") != std::string_view::npos ||
         text.find("dirname(os.path.dirname") != std::string_view::npos || text.find("getcwd") != std::string_view::npos ||
         text.find("Path.cwd") != std::string_view::npos || text.find("Path('.')") != std::string_view::npos ||
         text.find("Path(\".\")") != std::string_view::npos;
}

class ForeignFileAccessCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (s.python) run_python(*s.python, sink);
    run_cxx(s, sink);
  }

 private:
  // The constant path an expression names, looking through Path(...),
  // os.path.join(...) and `/` joins; nullopt when any part is computed, or
  // when the joins nest deeper than kMaxJoinDepth (the call stack stays bounded).
  static constexpr int kMaxJoinDepth = 32;
  static std::optional<std::string> constant_path(const Module& m, Node e, int depth = 0) {
    if (!e.valid() || depth > kMaxJoinDepth) return std::nullopt;
    if (auto s = m.constant_string(e)) return s;
    if (e.type() == "call") {
      Node fn = e.field("function");
      auto q = fn.valid() ? m.qualified_name(fn) : std::nullopt;
      auto args = e.positional_args();
      if (q && (is_under(*q, "pathlib") || *q == "os.path.join" || *q == "os.path.abspath" ||
                *q == "os.path.realpath" || *q == "os.path.expanduser")) {
        std::string joined;
        for (const auto& a : args) {
          auto part = constant_path(m, a, depth + 1);
          if (!part) {
            // os.path.join(os.path.dirname(__file__), "x.cu"): the submission's own folder.
            if (a.text().find("__file__") != std::string_view::npos && !climbs(a.text())) {
              joined = "<own>";
              continue;
            }
            return std::nullopt;
          }
          joined = joined.empty() ? *part : joined + "/" + *part;
        }
        return joined;
      }
    }
    if (e.type() == "binary_operator") {
      Node op = e.field("operator");
      if (op.valid() && op.text() == "/") {
        auto l = constant_path(m, e.field("left"), depth + 1);
        auto r = constant_path(m, e.field("right"), depth + 1);
        if (l && r) return *l + "/" + *r;
        if (r && e.field("left").text().find("__file__") != std::string_view::npos && !climbs(e.field("left").text()))
          return "<own>/" + *r;
      }
    }
    return std::nullopt;
  }

  // A loop variable over a literal sequence of paths (`for p in ("a.yaml",
  // os.path.join(here, "b.yaml")): open(p)`): the first element that names a
  // foreign file, else the first constant element; nullopt when none is constant.
  static std::optional<std::string> loop_path(const Module& m, Node e) {
    if (!e.valid() || e.type() != "identifier") return std::nullopt;
    for (Node p = e.parent(); p.valid(); p = p.parent()) {
      if (p.type() == "function_definition" || p.type() == "class_definition") break;
      if (p.type() != "for_statement") continue;
      Node left = p.field("left");
      Node right = p.field("right");
      if (!left.valid() || !right.valid() || left.text() != e.text()) continue;
      if (right.type() != "tuple" && right.type() != "list") return std::nullopt;
      std::optional<std::string> first;
      for (const auto& el : right.named_children()) {
        auto v = constant_path(m, el);
        if (!v) continue;
        std::string rest = v->starts_with("<own>") ? v->substr(5) : *v;
        if (!rest.empty() && std::regex_search(rest, foreign_name())) return v;
        if (!first) first = v;
      }
      return first;
    }
    return std::nullopt;
  }

  void run_python(const Module& m, FindingSink& sink) const {
    auto report = [&](Node at, const std::string& msg, const std::string& symbol, rules::Confidence conf) {
      sink.report(kInfo, m.file(), at.line(), at.column(), msg + reach_note(m.reach_of(at)) + ".", symbol, conf);
    };

    for (const auto& c : m.calls()) {
      std::string op = file_operation(c.qualified, c.qualified.empty() ? c.method : "");
      if (op.empty()) continue;
      Node path_expr;
      auto args = c.node.positional_args();
      if (c.qualified.empty() || c.qualified.starts_with("pathlib.")) {
        // Path(...).read_text(): the path is the receiver's argument.
        Node recv = c.callee.field("object");
        if (recv.valid() && recv.type() == "call") {
          auto ra = recv.positional_args();
          if (!ra.empty()) path_expr = ra[0];
          Node rf = recv.field("function");
          auto rq = rf.valid() ? m.qualified_name(rf) : std::nullopt;
          if (!rq || !is_under(*rq, "pathlib")) path_expr = Node{};
          if (!path_expr.valid()) path_expr = recv;
        } else if (recv.valid()) {
          path_expr = recv;
        }
      } else if (!args.empty()) {
        path_expr = args[0];
      } else if (op == "lists") {
        report(c.node, c.qualified + "() lists the working folder, where the harness keeps the problem's files",
               c.qualified, rules::Confidence::medium);
        continue;
      }
      if (!path_expr.valid()) continue;
      auto path = constant_path(m, path_expr);
      if (!path) path = loop_path(m, path_expr);
      const std::string shown = one_line(path_expr.text(), 50);
      const std::string fn = c.qualified.empty() ? "." + c.method + "()" : c.qualified;
      if (path) {
        if (path->starts_with("<own>")) {
          std::string rest = path->substr(5);
          if (rest.empty() || !std::regex_search(rest, foreign_name())) continue;
        }
        if (is_own_or_temp(*path)) continue;
        if (std::regex_search(*path, foreign_name())) {
          report(c.node, fn + " " + op + " " + *path + ", a file of the problem or the harness", *path,
                 rules::Confidence::high);
        } else if (std::regex_search(*path, data_file()) && (op == "loads" || op == "opens" || op == "reads")) {
          report(c.node, fn + " " + op + " the data file " + *path + ", which a submission does not ship", *path,
                 rules::Confidence::medium);
        } else if (op == "lists" || op == "walks") {
          report(c.node, fn + " " + op + " " + (*path == "." || path->empty() ? "the working folder" : *path) +
                             ", where the harness keeps the problem's files",
                 *path, rules::Confidence::medium);
        } else if (op == "deletes" || op == "renames" || op == "replaces" || op == "truncates") {
          report(c.node, fn + " " + op + " " + *path + ", a file that is not the submission's own", *path,
                 rules::Confidence::medium);
        }
      } else if (climbs(path_expr.text())) {
        report(c.node, fn + " " + op + " a path that climbs out of the submission's folder (`" + shown + "`)", shown,
               rules::Confidence::medium);
      }
    }
    report_harness_imports(m, sink);
  }

  // Imports of the problem's or the harness's modules, and import paths that
  // reach outside the submission's folder.
  void report_harness_imports(const Module& m, FindingSink& sink) const {
    auto report = [&](Node at, const std::string& msg, const std::string& symbol, rules::Confidence conf) {
      sink.report(kInfo, m.file(), at.line(), at.column(), msg + reach_note(m.reach_of(at)) + ".", symbol, conf);
    };
    // import shapes, from reference import Model: judged by what the names do.
    // Each costs a few walks of the file; past kImportBudget such imports
    // the rest are reported high without being followed.
    int budget = kImportBudget;
    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "import_statement" || t == "import_from_statement") {
        static const std::regex re(R"(^(from\s+\.*|import\s+)(shapes|reference|check|benchmark|harness|problem)\b)");
        static const std::regex rel(R"(^from\s+\.+\s+import\s+.*\b(shapes|reference)\b)");
        const std::string text(n.text());
        std::smatch sm;
        std::string module;
        if (std::regex_search(text, sm, re)) module = sm[2].str();
        else if (std::regex_search(text, sm, rel)) module = sm[1].str();
        if (module.empty()) return false;
        if (budget-- > 0) {
          check_harness_import(m, n, module, sink);
        } else {
          sink.report(kInfo, m.file(), n.line(), n.column(),
                      "`" + one_line(text, 50) + "` imports the problem's or harness's module " + module +
                          reach_note(m.reach_of(n)) + ".",
                      module, rules::Confidence::high);
        }
        return false;
      }
      return true;
    });
    for (const auto& c : m.calls()) {
      if (c.qualified != "sys.path.insert" && c.qualified != "sys.path.append") continue;
      auto args = c.node.positional_args();
      if (args.empty()) continue;
      Node p = args.back();
      auto v = constant_path(m, p);
      if (climbs(p.text()) || (v && (v->find("..") != std::string::npos || *v == "." || *v == "")))
        report(c.node, c.qualified + " puts a folder outside the submission on the import path (`" +
                           one_line(p.text(), 40) + "`)",
               c.qualified, rules::Confidence::medium);
    }
    for (const auto& c : m.calls()) {
      if (c.qualified != "importlib.import_module" && c.qualified != "__import__" && c.qualified != "builtins.__import__")
        continue;
      auto args = c.node.positional_args();
      auto name = args.empty() ? std::nullopt : m.constant_string(args[0]);
      if (name && (*name == "shapes" || *name == "reference"))
        report(c.node, c.qualified + " imports the problem's module " + *name, *name, rules::Confidence::high);
    }
  }

  static constexpr int kImportBudget = 16;

  // The names an import statement binds: `reference` for `import reference`,
  // `R` for `import reference as R`, `M`, `N` for `from reference import M, N`;
  // "*" for a wildcard.
  static std::vector<std::string> bound_names(Node stmt) {
    std::vector<std::string> out;
    const bool from = stmt.type() == "import_from_statement";
    Node module_name = stmt.field("module_name");
    for (const Node& child : stmt.named_children()) {
      if (from && module_name.valid() && child == module_name) continue;
      if (child.type() == "aliased_import") {
        Node alias = child.field("alias");
        if (alias.valid()) out.emplace_back(alias.text());
      } else if (child.type() == "dotted_name") {
        out.push_back(from ? std::string(child.text()) : root_identifier(child.text()));
      } else if (child.type() == "wildcard_import") {
        out.emplace_back("*");
      }
    }
    return out;
  }

  // Whether the use `id` of a harness module's name changes the module's
  // state: reference.T = 64, setattr(shapes, ...), SHAPES.append(...), SHAPES[0] = ...
  static bool writes_through(const Module& m, Node id) {
    Node p = id.parent();
    if (!p.valid()) return false;
    if ((p.type() == "attribute" && p.field("object") == id) || (p.type() == "subscript" && p.field("value") == id)) {
      Node up = p.parent();
      if (up.valid() && (up.type() == "assignment" || up.type() == "augmented_assignment") && up.field("left").contains(p))
        return true;
      if (up.valid() && up.type() == "delete_statement") return true;
      if (p.type() == "attribute" && up.valid() && up.type() == "call") {
        static const char* kMutators[] = {"append", "extend", "insert", "pop", "remove", "clear", "update",
                                          "setdefault", "__setitem__", "__setattr__", "sort", "reverse"};
        const auto a = p.field("attribute").text();
        for (const char* mut : kMutators)
          if (a == mut) return true;
      }
    }
    if (p.type() == "argument_list") {
      Node call = p.parent();
      auto q = call.valid() ? m.qualified_name(call.field("function")) : std::nullopt;
      auto args = call.valid() ? call.positional_args() : std::vector<Node>{};
      if (q && (*q == "setattr" || *q == "delattr" || *q == "builtins.setattr") && !args.empty() && args[0] == id)
        return true;
    }
    return false;
  }

  static bool binding_position(Node id) {
    Node p = id.parent();
    if (!p.valid()) return true;
    const auto t = p.type();
    if (t == "attribute") return !(p.field("object") == id);
    if (t == "keyword_argument") return p.field("name") == id;
    if (t == "dotted_name" || t == "aliased_import" || t == "parameters" || t == "default_parameter") return true;
    return (t == "assignment" || t == "for_statement") && p.field("left") == id;
  }

  struct HarnessUse {
    Node write;        // a use that changes the module's state
    Node graded_read;  // a use on forward's path
    Node other_use;    // any other use
  };

  // Every use of the names `stmt` binds, and of names computed from them
  // (`_GRADED = {... for s in SHAPES}`), within the import's scope.
  static HarnessUse harness_uses(const Module& m, Node stmt, std::vector<std::string> names) {
    HarnessUse u;
    const python::FunctionDef* f = m.enclosing_function(stmt);
    Node scope = f ? f->node : m.root();
    std::set<std::string> tainted(names.begin(), names.end());
    for (size_t round = 0; round < 8; ++round) {  // names derived from names derived from the import
      const size_t before = tainted.size();
      m.walk(scope, [&](Node n) {
        if (n.type() != "assignment" || tainted.size() > 64) return true;
        Node left = n.field("left"), right = n.field("right");
        if (!left.valid() || !right.valid() || left.type() != "identifier") return true;
        bool mentions = false;
        m.walk(right, [&](Node r) {
          if (r.type() == "identifier" && tainted.count(std::string(r.text())) && !binding_position(r)) mentions = true;
          return !mentions;
        });
        if (mentions) tainted.insert(std::string(left.text()));
        return true;
      });
      if (tainted.size() == before) break;
    }
    m.walk(scope, [&](Node n) {
      if (n.type() == "import_statement" || n.type() == "import_from_statement") return false;
      if (n.type() != "identifier" || !tainted.count(std::string(n.text())) || binding_position(n)) return true;
      if (writes_through(m, n)) {
        // The first write that runs when the file is imported, else the first.
        if (!u.write.valid() || (liveness_of(m, u.write) != Liveness::runs && liveness_of(m, n) == Liveness::runs))
          u.write = n;
      } else if (const Reach r = m.reach_of(n); r == Reach::forward || r == Reach::unknown) {
        if (!u.graded_read.valid()) u.graded_read = n;
      } else if (!u.other_use.valid()) {
        u.other_use = n;
      }
      return true;
    });
    return u;
  }

  // Importing the problem's modules is a cheat when the import changes
  // their state or forward reads them; reading the graded shapes elsewhere
  // (a warm-up at import, a tuning table) is benchmark-aware; an import that
  // nothing graded reaches (a get_inputs helper) is a note.
  void check_harness_import(const Module& m, Node stmt, const std::string& module, FindingSink& sink) const {
    const Liveness import_live = liveness_of(m, stmt);
    auto report = [&](const std::string& msg, rules::Confidence conf, rules::Category cat) {
      const std::string where =
          import_live == Liveness::runs ? reach_note(m.reach_of(stmt)) : liveness_note(import_live);
      sink.report(kInfo, m.file(), stmt.line(), stmt.column(), msg + where + ".", module, conf, cat);
    };
    const std::string head = "`" + one_line(stmt.text(), 50) + "` imports the problem's or harness's module " + module;
    const auto names = bound_names(stmt);
    if (std::find(names.begin(), names.end(), "*") != names.end())
      return report(head + " with a wildcard", rules::Confidence::high, rules::Category::cheat);
    const HarnessUse u = harness_uses(m, stmt, names);
    auto at = [](Node n) { return " (line " + std::to_string(n.line()) + ": `" + one_line(n.parent().text(), 40) + "`)"; };
    if (u.write.valid()) {
      // A write a harness's import never runs needs an assumption about what runs.
      const Liveness live = liveness_of(m, u.write);
      if (live == Liveness::runs)
        return report(head + " and changes its state" + at(u.write), rules::Confidence::high, rules::Category::cheat);
      return report(head + " and changes its state" + at(u.write) + (live == import_live ? "" : liveness_note(live)),
                    live == Liveness::never_called ? rules::Confidence::medium : rules::Confidence::low,
                    rules::Category::cheat);
    }
    if (u.graded_read.valid())
      return report(head + " and reads it where forward runs" + at(u.graded_read), rules::Confidence::high,
                    rules::Category::cheat);
    if (module == "shapes" && u.other_use.valid())
      return report(head + " and reads the graded shapes off the graded path, to tune or warm up for them" +
                        at(u.other_use),
                    rules::Confidence::medium, rules::Category::benchmark_aware);
    report(head + ", but nothing forward runs reads it or writes it" +
               (u.other_use.valid() ? at(u.other_use) : std::string(" (never used)")),
           rules::Confidence::low, rules::Category::suspicious);
  }

  void run_cxx(const Submission& s, FindingSink& sink) const {
    static const std::regex io(
        R"(^(::)?(std::)?(fopen|fopen64|freopen|open|open64|openat|creat|opendir|remove|rename|unlink|truncate)$|basic_(i|o)?fstream|^std::filesystem::)");
    for (const auto& u : s.cxx) {
      if (!u.facts || !u.file) continue;
      for (const auto& c : u.facts->calls) {
        if (!std::regex_search(c.callee, io)) continue;
        sink.report(kInfo, *u.file, c.line, c.column,
                    c.callee + " does file I/O from C++" +
                        (c.enclosing_function.empty() ? "" : " in " + c.enclosing_function) +
                        "; a kernel extension has no files of its own to read.",
                    c.callee, rules::Confidence::medium);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_foreign_file_access_check() { return std::make_unique<ForeignFileAccessCheck>(); }

}  // namespace kaudit::analyzer
