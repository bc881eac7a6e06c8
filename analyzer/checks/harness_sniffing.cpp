// harness-sniffing: code that looks at who is calling it or how the process
// was started (stack frames, sys.argv, the environment, the garbage
// collector's object list, names of the harness's files).
#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"

#include <regex>

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
    "inspect.currentframe, sys._getframe, traceback.extract_stack, frame.f_back), the command line "
    "(sys.argv), environment variables (os.environ, os.getenv, C++ getenv), every live object "
    "(gc.get_objects, gc.get_referrers), or strings naming the harness's files (benchmark.py, check.py, "
    "eval.py, kernelbench). Such code can tell a correctness check from a timed run and behave differently "
    "in each, or find the reference's tensors and answers. Environment reads are reported with medium "
    "confidence: they are sometimes configuration, but they can differ between checking and timing.",
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

class HarnessSniffingCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (s.python) run_python(*s.python, sink);
    for (const auto& u : s.cxx) {
      if (!u.facts || !u.file) continue;
      for (const auto& c : u.facts->calls) {
        std::string q = c.callee.starts_with("::") ? c.callee.substr(2) : c.callee;
        if (q == "getenv" || q == "std::getenv" || q == "secure_getenv")
          sink.report(kInfo, *u.file, c.line, c.column,
                      q + " reads an environment variable, which can differ between checking and timing.", q,
                      rules::Confidence::medium);
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
        report(c.node,
               c.qualified + " reads the environment variable " + (name ? *name : std::string("(computed name)")) +
                   ", which can differ between checking and timing",
               c.qualified, env_confidence(name));
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
          check_environ(m, n, report);
          return false;
        }
        if (t == "attribute") {
          Node attr = n.field("attribute");
          const auto a = attr.valid() ? attr.text() : std::string_view{};
          if (a == "f_back" || a == "f_globals" || a == "f_locals" || a == "tb_frame") {
            report(n, "the frame attribute ." + std::string(a) + " reaches the caller's variables", std::string(a));
            return false;
          }
        }
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
          report(n, "the string \"" + one_line(*v, 40) + "\" names a file of the benchmark harness", *v);
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

  static rules::Confidence env_confidence(const std::optional<std::string>& name) {
    if (!name) return rules::Confidence::medium;
    static const std::regex harness(R"(BENCH|TIMING|EVAL|CHECK|PYTEST|KERNELBENCH|HARNESS|GRADER|SCORE)",
                                    std::regex::icase);
    return std::regex_search(*name, harness) ? rules::Confidence::high : rules::Confidence::medium;
  }

  template <class Report>
  void check_environ(const Module& m, Node n, Report& report) const {
    Node parent = n.parent();
    // os.environ["X"] = ... and os.environ.setdefault(...) configure, they do not read.
    if (parent.valid() && parent.type() == "subscript") {
      Node assign = parent.parent();
      if (assign.valid() && assign.type() == "assignment" && assign.field("left").contains(parent)) return;
      auto name = m.constant_string(parent.field("subscript"));
      report(parent,
             "os.environ[" + (name ? "\"" + *name + "\"" : std::string("...")) +
                 "] reads an environment variable, which can differ between checking and timing",
             "os.environ", env_confidence(name));
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
      report(parent,
             "`" + one_line(parent.text(), 40) + "` tests the environment, which can differ between checking and timing",
             "os.environ", env_confidence(name));
      return;
    }
    report(n, "os.environ is read as a whole, which can differ between checking and timing", "os.environ",
           rules::Confidence::medium);
  }
};

}  // namespace

std::unique_ptr<Check> make_harness_sniffing_check() { return std::make_unique<HarnessSniffingCheck>(); }

}  // namespace kaudit::analyzer
