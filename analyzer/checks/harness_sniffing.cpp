// harness-sniffing: code that looks at who is calling it or how the process
// was started (stack frames, sys.argv, the environment, the garbage
// collector's object list, names of the harness's files).
#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"

#include <regex>
#include <set>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "harness-sniffing",
    rules::Category::cheat,
    rules::Confidence::high,
    kPython | kCxx,
    "the submission inspects the harness that calls it",
    "The submission looks at its surroundings instead of only its inputs: the call stack (inspect.stack, "
    "inspect.currentframe, sys._getframe, traceback.extract_stack, frame.f_back, a traceback's tb_frame, or "
    "the same attributes through getattr with a name built at run time), the command line "
    "(sys.argv), environment variables (os.environ, os.getenv, C++ getenv), every live object "
    "(gc.get_objects, gc.get_referrers), or strings naming the harness's files (benchmark.py, check.py, "
    "eval.py, kernelbench) tested against what it finds (compared, searched for, looked up among the loaded "
    "modules, directly or through the name it is assigned to; a benchmark's name given to a build or a "
    "message is a label and is not reported). Such code can tell a correctness check from a timed run and "
    "behave differently in each, or find the reference's tensors and answers. An environment variable can differ between "
    "checking and timing, but it is mostly configuration: it is a lead only when its value decides what "
    "is computed or checked."
    "\n\n**Confidence.** High: the call stack or frames are read (inspect, sys._getframe, f_back), "
    "every live object is enumerated (gc.get_objects), a string naming the harness's files "
    "(benchmark.py, check.py, kernelbench) is tested, or an environment variable whose name is the "
    "harness's (BENCH, EVAL, CHECK, PYTEST, KERNELBENCH...) is read, from Python or C++. Medium: sys.argv, the whole "
    "environment, and an environment variable whose value decides a branch that computes or "
    "checks differently (which kernels run, whether outputs are verified), and any other C++ getenv (what "
    "C++ does with the value is not followed). Low (suspicious): an "
    "environment variable read as a tuning knob, whose value only picks a configuration (a tile "
    "size, a split count, a warp count, a debug print). Clean counter-example: `NITER = "
    "int(os.environ.get(\"KDA_NITER\", \"4\"))` used as a constexpr iteration count: low.",
    "Open the line and follow what the inspected value decides: a branch on a file name, an argv entry or "
    "an environment variable that changes what is computed confirms it. `kaudit run` runs every phase with "
    "a scrubbed environment and its own harness file names."};

struct Source {
  const char* name;
  const char* what;
};

const Source kStackCalls[] = {
    {"inspect.stack", "reads the call stack"},
    {"inspect.currentframe", "reads the current stack frame"},
    {"inspect.getouterframes", "reads the callers' stack frames"},
    {"inspect.getframeinfo", "reads a stack frame"},
    {"inspect.trace", "reads the stack"},
    {"inspect.getmodule", "finds the module of an object"},
    {"sys._getframe", "reads a caller's stack frame"},
    {"sys._current_frames", "reads every thread's stack frame"},
    {"sys.settrace", "installs a trace hook that sees every call"},
    {"sys.setprofile", "installs a profile hook that sees every call"},
    {"threading.settrace", "installs a trace hook that sees every call"},
    {"traceback.extract_stack", "reads the call stack"},
    {"traceback.format_stack", "reads the call stack"},
    {"traceback.print_stack", "reads the call stack"},
    {"traceback.walk_stack", "reads the call stack"},
    {"gc.get_objects", "enumerates every live object (the harness's tensors among them)"},
    {"gc.get_referrers", "finds the objects that refer to a value"},
    {"gc.get_referents", "walks the objects a value refers to"},
};

bool is_harness_string(const std::string& s) {
  static const std::regex files(R"((^|[^A-Za-z0-9_])(benchmark|bench|check|eval|evaluate|eval_kernel|run_eval|timing|harness|scoring|grader)\.py\b)",
                                std::regex::icase);
  static const std::regex kb(R"(kernel_?bench)", std::regex::icase);
  return std::regex_search(s, files) || std::regex_search(s, kb);
}

bool is_short_harness_word(const std::string& s) {
  static const char* kWords[] = {"eval", "timing", "benchmark", "bench", "check", "harness", "warmup", "profile",
                                 "timeit", "do_bench", "pytest"};
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* w : kWords)
    if (l == w) return true;
  return false;
}

// A string that is an argument of open(), Path(), glob(), ...: its file
// name is foreign-file-access's business. Looked for 64 levels up at most:
// every string is asked, and climbing a 100,000-term 'a' + 'a' + ... to its
// top for each was quadratic.
bool inside_file_call(const Module& m, const Node& n) {
  int levels = 0;
  for (Node p = n.parent(); p.valid() && levels < 64; p = p.parent(), ++levels) {
    const auto t = p.type();
    if (t == "call") {
      Node fn = p.field("function");
      auto q = fn.valid() ? m.qualified_name(fn) : std::nullopt;
      std::string method;
      if (fn.valid() && fn.type() == "attribute") method = std::string(fn.field("attribute").text());
      const std::string qs = q ? *q : "";
      if (!file_operation(qs, method).empty() || is_under(qs, "pathlib") || is_under(qs, "os.path")) return true;
      continue;
    }
    if (t == "argument_list" || t == "binary_operator" || t == "keyword_argument" || t == "parenthesized_expression")
      continue;
    break;
  }
  return false;
}

// Whether a string's value is tested against something: compared (==, in),
// searched for (endswith, re.search), looked up among the loaded modules or
// imported, or one of several names a loop tries; directly or through the
// name it is assigned to (HARNESS = "benchmark.py" ... HARNESS in f). A
// benchmark's name given to a build (load_inline(name="kernelbench_...")), a
// message or a label tells the submission nothing about its surroundings.
bool string_is_tested(const Module& m, const Node& n, bool through_name = true) {
  static const std::set<std::string_view> kTests = {
      "endswith", "startswith", "find", "rfind", "index", "rindex", "count", "__contains__", "search", "match",
      "fullmatch", "fnmatch", "import_module", "__import__", "find_spec"};
  int levels = 0;
  for (Node p = n.parent(); p.valid() && levels < 16; p = p.parent(), ++levels) {
    const auto t = p.type();
    if (t == "comparison_operator" || t == "for_in_clause" || t == "for_statement") return true;
    if (t == "subscript") {
      const auto q = m.qualified_name(p.field("value"));
      return q && (*q == "sys.modules" || *q == "os.environ");
    }
    if (t == "argument_list") {
      Node call = p.parent();
      Node fn = call.valid() ? call.field("function") : Node{};
      if (!fn.valid()) return false;
      const auto q = m.qualified_name(fn);
      // A lookup among the loaded modules or the environment; any dict's get is not one.
      if (q && (*q == "sys.modules.get" || *q == "os.environ.get")) return true;
      const std::string_view name = fn.type() == "attribute" ? fn.field("attribute").text()
                                    : q                      ? last_component(*q)
                                                             : fn.text();
      return kTests.count(name) > 0;
    }
    if (t == "parenthesized_expression" || t == "binary_operator" || t == "tuple" || t == "list" || t == "set" ||
        t == "concatenated_string")
      continue;
    if (t == "assignment" && through_name) {
      Node left = p.field("left");
      if (!left.valid() || left.type() != "identifier" || left.contains(n)) return false;
      const std::string_view name = left.text();
      bool tested = false;
      m.walk([&](Node use) {
        if (!tested && use.type() == "identifier" && use.text() == name && !(use == left))
          tested = string_is_tested(m, use, false);
        return !tested;
      });
      return tested;
    }
    return false;
  }
  return false;
}

// The string literal a C++ getenv call at (line, column) reads, when it is
// one: getenv("NAME"), std::getenv( "NAME" ). A name built at run time, or
// from a macro, is not read: the call stays a medium lead.
std::optional<std::string> getenv_literal(std::string_view text, int line, int column) {
  size_t at = 0;
  for (int l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
  const std::string_view row = text.substr(at, text.find('\n', at) - at);
  const size_t from = column > 0 ? std::min(static_cast<size_t>(column - 1), row.size()) : 0;
  const std::string_view call_text = row.substr(from, 512);  // the call, not the rest of a 4 MiB line
  static const std::regex call(R"re(getenv\s*\(\s*"([^"\\]{1,200})")re");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(call_text.begin(), call_text.end(), m, call)) return std::nullopt;
  return m[1].str();
}

class HarnessSniffingCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    branch_budget_ = kBranchBudget;
    if (s.python) run_python(*s.python, sink);
    for (const auto& u : s.cxx) {
      if (!u.facts || !u.file) continue;
      for (const auto& c : u.facts->calls) {
        std::string q = c.callee.starts_with("::") ? c.callee.substr(2) : c.callee;
        if (q != "getenv" && q != "std::getenv" && q != "secure_getenv") continue;
        // What C++ does with the value is not followed: a medium lead, or
        // high where the variable is the harness's own.
        const auto name = getenv_literal(u.file->text, c.line, c.column);
        sink.report(kInfo, *u.file, c.line, c.column,
                    q + " reads the environment variable " + (name ? *name : std::string("(computed name)")) +
                        ", which " + (env_confidence(name) == rules::Confidence::high ? "names the harness and " : "") +
                        "can differ between checking and timing.",
                    q, env_confidence(name));
      }
    }
  }

 private:
  void run_python(const Module& m, FindingSink& sink) const {
    auto report = [&](Node at, std::string msg, std::string symbol,
                      std::optional<rules::Confidence> conf = std::nullopt) {
      sink.report(kInfo, m.file(), at.line(), at.column(), msg + reach_note(m.reach_of(at)) + ".", symbol, conf);
    };

    for (const auto& c : m.calls()) {
      for (const auto& src : kStackCalls)
        if (c.qualified == src.name) report(c.node, c.qualified + " " + src.what, c.qualified);
      if (c.qualified == "os.getenv" || c.qualified == "os.environ.get" || c.qualified == "os.getenvb" ||
          c.qualified == "os.environ.__getitem__") {
        auto args = c.node.positional_args();
        auto name = args.empty() ? std::nullopt : m.constant_string(args[0]);
        report_env(m, sink, c.node,
                   c.qualified + " reads the environment variable " +
                       (name ? *name : std::string("(computed name)")),
                   c.qualified, name);
      }
    }

    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "import_statement" || t == "import_from_statement") {
        if (n.text().find("__main__") != std::string_view::npos)
          report(n, "the harness's own module __main__ is imported", "__main__");
        return false;
      }
      if (t == "attribute" || t == "identifier") {
        auto q = m.qualified_name(n);
        if (q && (*q == "sys.argv" || *q == "sys.orig_argv")) {
          report(n, *q + " reads the command line that started the harness", *q, rules::Confidence::medium);
          return false;
        }
        if (q && *q == "os.environ") {
          check_environ(m, n, report, sink);
          return false;
        }
        if (t == "attribute") {
          Node attr = n.field("attribute");
          const auto a = attr.valid() ? attr.text() : std::string_view{};
          if (is_frame_attribute(a)) {
            report(n, "the frame attribute ." + std::string(a) + " reaches the caller's variables", std::string(a));
            return false;
          }
        }
        return true;
      }
      if (t == "call") {
        // The same attributes named by a string, built at run time to pass
        // unread: getattr(tb, "tb_" + "frame").
        if (const auto a = frame_attribute_by_name(m, n))
          report(n, "getattr names the frame attribute ." + *a + ", which reaches the caller's variables", *a);
        return true;
      }
      if (t == "string") {
        Node parent = n.parent();
        if (parent.valid() && parent.type() == "expression_statement") return false;  // docstring
        if (n.text().size() > 200) return false;  // embedded sources, long messages
        auto v = m.constant_string(n);
        if (!v) return false;
        if (inside_file_call(m, n)) return false;  // foreign-file-access reports file names opened
        if (is_harness_string(*v)) {
          if (string_is_tested(m, n))
            report(n, "the string \"" + one_line(*v, 40) + "\" names a file of the benchmark harness and is tested "
                      "against what the code finds around it", *v);
        } else if (is_short_harness_word(*v) && parent.valid() && parent.type() == "comparison_operator") {
          const std::string other(parent.text());
          for (const char* hint : {"filename", "argv", "f_code", "co_name", "__name__", "function", "stack", "frame"})
            if (other.find(hint) != std::string::npos) {
              report(n, "the string \"" + *v + "\" is compared with `" + one_line(other, 40) +
                            "`, which tells the harness's phases apart",
                     *v);
              break;
            }
        }
        return false;
      }
      return true;
    });
  }

  static bool is_frame_attribute(std::string_view a) {
    return a == "f_back" || a == "f_globals" || a == "f_locals" || a == "tb_frame";
  }

  // getattr/hasattr(obj, NAME, ...) whose NAME folds to a frame attribute.
  static std::optional<std::string> frame_attribute_by_name(const Module& m, Node call) {
    Node fn = call.field("function");
    if (!fn.valid() || fn.type() != "identifier" || (fn.text() != "getattr" && fn.text() != "hasattr"))
      return std::nullopt;
    const std::vector<Node> args = call.positional_args();
    if (args.size() < 2) return std::nullopt;
    auto name = m.constant_string(args[1]);
    if (name && is_frame_attribute(*name)) return name;
    return std::nullopt;
  }

  // Calls whose result is a configuration value, not a computation: type
  // conversions, min/max, environment reads, string tidying.
  static bool config_call(const Module& m, Node call) {
    Node fn = call.field("function");
    std::string name;
    if (auto q = m.qualified_name(fn)) {
      if (*q == "os.environ.get" || *q == "os.getenv") return true;
      name = std::string(last_component(*q));
    } else if (fn.valid() && fn.type() == "attribute") {
      name = std::string(fn.field("attribute").text());
    } else if (fn.valid()) {
      name = std::string(fn.text());
    }
    static const char* kConfig[] = {"int", "float", "str", "bool", "min", "max", "len", "tuple", "list", "dict",
                                    "abs", "round", "get", "lower", "upper", "strip", "split", "print", "add",
                                    "append", "update", "setdefault", "next_power_of_2", "cdiv", "warn", "debug",
                                    "info", "warning",
                                    // a kernel configuration (an autotuner's candidates)
                                    "Config"};
    for (const char* c : kConfig)
      if (name == c) return true;
    return false;
  }

  static bool config_expression(const Module& m, Node e) {
    bool ok = true;
    m.walk(e, [&](Node n) {
      if (!ok) return false;
      if (n.type() == "call" && !config_call(m, n)) ok = false;
      if (n.type() == "lambda" || n.type() == "await" || n.type() == "yield") ok = false;
      return ok;
    });
    return ok;
  }

  // Whether an arm of a branch only picks configuration values (assigns or
  // returns them, prints, keeps a note), rather than computing or checking.
  static bool config_arm(const Module& m, Node block) {
    if (!block.valid()) return true;
    if (block.type() != "block") return config_expression(m, block);
    for (const auto& st : block.named_children()) {
      const auto t = st.type();
      if (t == "comment" || t == "pass_statement") continue;
      if (t == "expression_statement" || t == "return_statement") {
        for (const auto& e : st.named_children()) {
          Node v = e.type() == "assignment" || e.type() == "augmented_assignment" ? e.field("right") : e;
          if (v.valid() && !config_expression(m, v)) return false;
        }
        continue;
      }
      if (t == "if_statement") {
        if (!config_arm(m, st.field("consequence"))) return false;
        for (const auto& alt : st.named_children()) {
          if (alt.type() == "elif_clause" && !config_arm(m, alt.field("consequence"))) return false;
          if (alt.type() == "else_clause" && !config_arm(m, alt.field("body"))) return false;
        }
        continue;
      }
      return false;
    }
    return true;
  }

  // The branch an environment value decides that computes or checks
  // differently, followed through the names (and self attributes) it is
  // assigned to; invalid when the value only picks configurations.
  static Node deciding_branch(const Module& m, Node read) {
    std::set<std::string> tainted;
    auto mentions = [&](Node e) {
      if (e.contains(read)) return true;
      bool hit = false;
      m.walk(e, [&](Node n) {
        if (hit) return false;
        if ((n.type() == "identifier" || n.type() == "attribute") && tainted.count(std::string(n.text()))) hit = true;
        return !hit && n.type() != "attribute";
      });
      return hit;
    };
    for (size_t round = 0; round < 8; ++round) {
      const size_t before = tainted.size();
      m.walk([&](Node n) {
        if (n.type() != "assignment" || tainted.size() > 64) return true;
        Node left = n.field("left"), right = n.field("right");
        if (left.valid() && right.valid() && (left.type() == "identifier" || left.type() == "attribute") &&
            mentions(right))
          tainted.insert(std::string(left.text()));
        return true;
      });
      if (tainted.size() == before) break;
    }
    Node found;
    m.walk([&](Node n) {
      if (found.valid()) return false;
      const auto t = n.type();
      if (t == "if_statement" || t == "while_statement") {
        Node cond = n.field("condition");
        if (!cond.valid() || !mentions(cond)) return true;
        bool config = t == "if_statement" && config_arm(m, n.field("consequence"));
        for (const auto& alt : n.named_children()) {
          if (alt.type() == "elif_clause") config = config && config_arm(m, alt.field("consequence"));
          if (alt.type() == "else_clause") config = config && config_arm(m, alt.field("body"));
        }
        if (!config) found = n;
      } else if (t == "conditional_expression") {
        auto kids = n.named_children();
        if (kids.size() == 3 && mentions(kids[1]) &&
            !(config_expression(m, kids[0]) && config_expression(m, kids[2])))
          found = n;
      }
      return true;
    });
    return found;
  }

  // An environment read: by a harness's variable name it is a cheat; else a
  // lead only when the value decides a branch that computes or checks
  // differently; a knob that only picks tile sizes or a split count is a note.
  void report_env(const Module& m, FindingSink& sink, Node at, const std::string& what, const std::string& symbol,
                  const std::optional<std::string>& name) const {
    const std::string where = reach_note(m.reach_of(at));
    if (env_confidence(name) == rules::Confidence::high) {
      sink.report(kInfo, m.file(), at.line(), at.column(),
                  what + ", which names the harness and can differ between checking and timing" + where + ".", symbol,
                  rules::Confidence::high);
      return;
    }
    // Each read's branches cost walks of the whole file: past kBranchBudget
    // reads in one file, a read stays a medium lead without being followed.
    if (branch_budget_-- <= 0) {
      sink.report(kInfo, m.file(), at.line(), at.column(),
                  what + ", which can differ between checking and timing (not followed: too many reads)" + where +
                      ".",
                  symbol, rules::Confidence::medium);
      return;
    }
    Node branch = deciding_branch(m, at);
    if (branch.valid()) {
      sink.report(kInfo, m.file(), at.line(), at.column(),
                  what + ", which decides what the branch at line " + std::to_string(branch.line()) +
                      " computes or checks, and can differ between checking and timing" + where + ".",
                  symbol, rules::Confidence::medium);
      return;
    }
    sink.report(kInfo, m.file(), at.line(), at.column(),
                what + " as a tuning knob: its value only picks a configuration, never what is computed" + where + ".",
                symbol, rules::Confidence::low, rules::Category::suspicious);
  }

  static constexpr int kBranchBudget = 24;
  static inline thread_local int branch_budget_ = 0;  // per thread: one check object may serve several

  static rules::Confidence env_confidence(const std::optional<std::string>& name) {
    if (!name) return rules::Confidence::medium;
    static const std::regex harness(R"(BENCH|TIMING|EVAL|CHECK|PYTEST|KERNELBENCH|HARNESS|GRADER|SCORE)",
                                    std::regex::icase);
    return std::regex_search(*name, harness) ? rules::Confidence::high : rules::Confidence::medium;
  }

  template <class Report>
  void check_environ(const Module& m, Node n, Report& report, FindingSink& sink) const {
    Node parent = n.parent();
    // os.environ["X"] = ... and os.environ.setdefault(...) configure, they do not read.
    if (parent.valid() && parent.type() == "subscript") {
      Node assign = parent.parent();
      if (assign.valid() && assign.type() == "assignment" && assign.field("left").contains(parent)) return;
      auto name = m.constant_string(parent.field("subscript"));
      report_env(m, sink, parent,
                 "os.environ[" + (name ? "\"" + *name + "\"" : std::string("...")) + "] reads an environment variable",
                 "os.environ", name);
      return;
    }
    if (parent.valid() && parent.type() == "attribute") {
      Node attr = parent.field("attribute");
      const auto a = attr.valid() ? attr.text() : std::string_view{};
      if (a == "setdefault" || a == "update" || a == "pop" || a == "__setitem__" || a == "copy") return;
      if (a == "get") return;  // reported as the call os.environ.get
      report(parent, "os.environ." + std::string(a) + " reads the environment, which can differ between checking and timing",
             "os.environ", rules::Confidence::medium);
      return;
    }
    if (parent.valid() && parent.type() == "comparison_operator") {
      auto kids = parent.named_children();
      auto name = kids.empty() ? std::nullopt : m.constant_string(kids[0]);
      report_env(m, sink, parent, "`" + one_line(parent.text(), 40) + "` tests the environment", "os.environ", name);
      return;
    }
    report(n, "os.environ is read as a whole, which can differ between checking and timing", "os.environ",
           rules::Confidence::medium);
  }
};

}  // namespace

std::unique_ptr<Check> make_harness_sniffing_check() { return std::make_unique<HarnessSniffingCheck>(); }

}  // namespace kaudit::analyzer
