// dynamic-code: code that builds or finds code at run time, which no static
// reading can follow (eval, exec, compile, __import__, non-constant getattr
// on torch, sys.modules, decoded code objects).
#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"

#include <map>

namespace kaudit::analyzer {
namespace {

using namespace patterns;

const CheckInfo kInfo{
    "dynamic-code",
    rules::Category::cheat,
    rules::Confidence::high,
    kPython | kCxx,
    "code is built or looked up at run time, out of static reach",
    "The submission runs code that a reader cannot see in its source: eval or exec of a string, compile(), "
    "__import__ or importlib.import_module with a computed name, getattr on torch with a computed name, "
    "reads or writes of sys.modules, code objects built with types.FunctionType/CodeType or loaded with "
    "marshal/pickle, and base64/zlib/lzma data decoded and then executed; from C++, dlopen/dlsym. Kernel "
    "submissions have no need for any of this, and it is how a banned call or a harness patch is hidden "
    "from static checks, so the analyzer treats the file as unverified rather than clean."
    "\n\n**Confidence.** High: eval, exec, compile or a function built from data, __import__ or "
    "importlib.import_module of a computed name, getattr on torch with a computed name. Medium: "
    "constant strings run as code, files loaded as modules (runpy, SourceFileLoader), embedded "
    "pickles, decoded bytes next to a code sink, a module's __dict__ or vars() read; a constant "
    "__import__ and dlopen/dlsym are medium suspicious. Low: never. Clean counter-example: "
    "`importlib.import_module(\"triton.language\")` with a constant name is an import spelled "
    "differently and is not reported.",
    "Open the line, work out the string or bytes that reach the call (print them in a scratch copy, never "
    "execute the submission outside a sandbox), and review the decoded code as if it were part of the "
    "file; `kaudit run` shows what actually ran."};

bool is_torch_like(const std::string& q) {
  return is_under(q, "torch") || is_under(q, "triton") || is_under(q, "builtins") || is_under(q, "numpy") ||
         is_under(q, "cupy");
}

// Decoders whose output is data that may be code.
bool is_decoder(const std::string& q) {
  static const char* kDecoders[] = {"base64.b64decode", "base64.b32decode", "base64.b16decode", "base64.b85decode",
                                    "base64.a85decode", "base64.decodebytes", "base64.urlsafe_b64decode",
                                    "zlib.decompress", "lzma.decompress", "bz2.decompress", "gzip.decompress",
                                    "codecs.decode", "binascii.unhexlify", "binascii.a2b_base64", "bytes.fromhex"};
  for (const char* d : kDecoders)
    if (q == d) return true;
  return false;
}

// Sinks that turn data into running code.
bool is_code_sink(const Module& m, const python::Call& c) {
  for (const char* b : {"exec", "eval", "compile"})
    if (is_builtin_call(m, c, b)) return true;
  return c.qualified == "types.FunctionType" || c.qualified == "types.CodeType" || c.qualified == "marshal.loads" ||
         c.qualified == "pickle.loads" || c.qualified == "dill.loads" || c.qualified == "cloudpickle.loads";
}

class DynamicCodeCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (s.python) run_python(*s.python, sink);
    for (const auto& u : s.cxx) {
      if (!u.facts || !u.file) continue;
      for (const auto& c : u.facts->calls) {
        const std::string& q = c.callee;
        if (q == "dlopen" || q == "dlsym" || q == "::dlopen" || q == "::dlsym" || q == "dlvsym")
          sink.report(kInfo, *u.file, c.line, c.column,
                      q + " looks up a library or symbol by name at run time, which hides what is called.",
                      q, rules::Confidence::medium, rules::Category::suspicious);
      }
    }
  }

 private:
  void run_python(const Module& m, FindingSink& sink) const {
    auto report = [&](Node at, const std::string& msg, const std::string& symbol,
                      std::optional<rules::Confidence> conf = std::nullopt,
                      std::optional<rules::Category> cat = std::nullopt) {
      sink.report(kInfo, m.file(), at.line(), at.column(), msg, symbol, conf, cat);
    };

    // Functions (or module level, index -1) that hold a code sink, for decoders that feed them.
    std::set<int> scopes_with_sink;
    std::map<int, int> sink_line;
    for (const auto& c : m.calls())
      if (is_code_sink(m, c)) {
        scopes_with_sink.insert(c.function_index);
        sink_line.emplace(c.function_index, c.node.line());
      }

    for (const auto& c : m.calls()) {
      auto args = c.node.positional_args();
      Node first = args.empty() ? Node{} : args[0];
      // A plain literal is constant even where folding gives up on it.
      const bool first_literal = first.valid() && first.type() == "string" && !first.text().starts_with("f") &&
                                 !first.text().starts_with("F");
      const bool first_constant = first.valid() && (first_literal || m.constant_string(first).has_value());
      const std::string first_text =
          !first.valid() ? "" : m.constant_string(first).value_or(std::string(first.text()));
      for (const char* b : {"exec", "eval"}) {
        if (!is_builtin_call(m, c, b)) continue;
        if (first_constant)
          report(c.node, std::string(b) + " runs a constant string (`" + one_line(first.text(), 50) +
                             "`) as code, which static checks do not read.",
                 b, rules::Confidence::medium);
        else
          report(c.node, std::string(b) + " runs code computed at run time (`" +
                             one_line(first.valid() ? first.text() : "", 50) + "`), which no static check can read.",
                 b);
      }
      if (is_builtin_call(m, c, "compile"))
        report(c.node, "compile() builds a code object from a string at run time.", "compile");
      if (is_builtin_call(m, c, "__import__") || c.qualified == "importlib.import_module" ||
          c.qualified == "importlib.__import__") {
        const std::string fn = c.qualified.empty() ? "__import__" : c.qualified;
        // importlib.import_module("triton") is an import spelled differently;
        // a constant __import__ is rarer in honest code, so it stays visible.
        if (first_constant && fn == "__import__")
          report(c.node,
                 fn + " imports `" + first_text + "` by a string instead of an import statement.", fn,
                 rules::Confidence::medium, rules::Category::suspicious);
        else if (!first_constant && first.valid())
          report(c.node, fn + " imports a module whose name is computed at run time (`" + one_line(first.text(), 50) +
                             "`).",
                 fn);
      }
      if (c.qualified == "importlib.util.spec_from_file_location" || c.qualified == "importlib.machinery.SourceFileLoader" ||
          c.qualified == "runpy.run_path" || c.qualified == "runpy.run_module")
        report(c.node, c.qualified + " loads and runs code from a file at run time.", c.qualified,
               rules::Confidence::medium);
      if (c.qualified == "types.FunctionType" || c.qualified == "types.CodeType" || c.qualified == "marshal.loads")
        report(c.node, c.qualified + " builds a function or code object from data, out of static reach.", c.qualified);
      if ((c.qualified == "pickle.loads" || c.qualified == "dill.loads" || c.qualified == "cloudpickle.loads") &&
          first.valid() && (first.type() == "string" || first.type() == "call" || first_constant))
        report(c.node, c.qualified + " unpickles embedded data, which can carry code.", c.qualified,
               rules::Confidence::medium);
      if (is_decoder(c.qualified) && scopes_with_sink.count(c.function_index))
        report(c.node,
               c.qualified + " decodes data in the same scope as the code sink at line " +
                   std::to_string(sink_line[c.function_index]) + ", so the decoded bytes may be executed.",
               c.qualified, rules::Confidence::medium);
      // getattr(torch, name) with a name that is not a constant.
      if (is_builtin_call(m, c, "getattr") && args.size() >= 2 && !m.constant_string(args[1])) {
        auto target = m.qualified_name(args[0]);
        if (target && is_torch_like(*target))
          report(c.node,
                 "getattr on " + *target + " with a name computed at run time (`" + one_line(args[1].text(), 40) +
                     "`) hides which function is called.",
                 *target);
      }
      // vars(torch)[name], torch.__dict__ lookups with computed names.
      if (is_builtin_call(m, c, "vars") && first.valid()) {
        auto target = m.qualified_name(first);
        if (target && is_torch_like(*target))
          report(c.node, "vars(" + *target + ") reads the module's namespace as a dictionary.", *target,
                 rules::Confidence::medium);
      }
    }
    report_namespace_reads(m, sink);
  }

  // sys.modules, torch.__dict__[...] and globals()[...] lookups.
  void report_namespace_reads(const Module& m, FindingSink& sink) const {
    auto report = [&](Node at, const std::string& msg, const std::string& symbol,
                      std::optional<rules::Confidence> conf = std::nullopt) {
      sink.report(kInfo, m.file(), at.line(), at.column(), msg, symbol, conf, std::nullopt);
    };
    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "import_statement" || t == "import_from_statement") return false;
      if (t == "attribute" || t == "identifier") {
        auto q = m.qualified_name(n);
        if (q && *q == "sys.modules") {
          report(n, "sys.modules is read or changed, which can swap or reach modules out of static sight.",
                 "sys.modules");
          return false;
        }
        if (t == "attribute") {
          Node attr = n.field("attribute");
          Node sub = n.parent();
          const bool written = sub.valid() && sub.type() == "subscript" && sub.parent().valid() &&
                               sub.parent().type() == "assignment" && sub.parent().field("left").contains(sub);
          if (attr.valid() && attr.text() == "__dict__" && !written) {  // writes are monkeypatching's
            auto obj = m.qualified_name(n.field("object"));
            if (obj && is_torch_like(*obj) && *obj != "builtins") {
              report(n, *obj + ".__dict__ reads the module's namespace as a dictionary.", *obj,
                     rules::Confidence::medium);
              return false;
            }
          }
        }
      }
      return true;
    });
  }
};

}  // namespace

std::unique_ptr<Check> make_dynamic_code_check() { return std::make_unique<DynamicCodeCheck>(); }

}  // namespace kaudit::analyzer
