// The Python module `kaudit` (docs/usage.md, "Python"): a front end at the
// level of app/, calling the same library functions the kaudit command
// calls and returning the documents it prints or writes, as Python objects.
// Long calls release the GIL. Errors carry the kaudit command's message:
// a usage error (std::invalid_argument) raises kaudit.UsageError, a
// ValueError; any other kaudit.Error, a RuntimeError; Ctrl-C during an
// audit KeyboardInterrupt. An unknown keyword option raises TypeError.
#include "audit/audit.h"
#include "audit/finding_catalog.h"
#include "audit/front_end.h"
#include "audit/interrupt.h"
#include "audit/items.h"
#include "kaudit/version.h"
#include "runner/process/resources.h"
#include "common/utf8.h"
#ifdef KAUDIT_HAVE_ANALYZER
#include "analyzer/analyzer.h"
#include "analyzer/report.h"
#endif

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <csignal>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace kaudit::pymodule {
namespace py = pybind11;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// kaudit.Error, kaudit.UsageError and kaudit.AuditFailed (add_errors), made at import.
py::handle error, usage, audit_failed;

// A path, or a list of them (str and os.PathLike both convert).
using Paths = std::variant<fs::path, std::vector<fs::path>>;

std::vector<fs::path> path_list(const Paths& paths) {
  if (const auto* one = std::get_if<fs::path>(&paths)) return {*one};
  return std::get<std::vector<fs::path>>(paths);
}

py::object to_python(const json& doc) { return py::module_::import("json").attr("loads")(common::json_text(doc)); }

#ifdef KAUDIT_HAVE_ANALYZER
// kaudit analyze --format json.
py::object analyze(const Paths& paths, const std::optional<fs::path>& problem, const std::optional<fs::path>& rules,
                   bool no_cxx) {
  const analyzer::AnalyzeRequest request{path_list(paths), problem.value_or(fs::path()), rules.value_or(fs::path()),
                                         !no_cxx};
  json doc;
  {
    py::gil_scoped_release unlocked;
    const auto result = analyzer::analyze_inputs(request);
    doc = analyzer::render_json(result.reports, result.header);
  }
  return to_python(doc);
}
#endif

// A keyword option's value as T, or TypeError naming the option.
template <class T>
T option_value(const std::string& name, const py::handle& value, const char* type) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!py::isinstance<py::bool_>(value)) throw py::type_error("audit(): " + name + " must be " + type);
  } else if constexpr (std::is_same_v<T, int>) {
    if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
      throw py::type_error("audit(): " + name + " must be " + type);
  }
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error("audit(): " + name + " must be " + type);
  }
}

// A comma list given as a str ("0,1", as on the command line) or a list.
std::string comma_list(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  std::string joined;
  for (const auto& item : option_value<py::list>(name, value, "a str or a list"))
    joined += (joined.empty() ? "" : ",") + py::str(item).cast<std::string>();
  return joined;
}

struct AuditRequest {
  audit::AuditOptions options;
  std::optional<std::set<std::string>> fail_on;
};

using Setter = std::function<void(AuditRequest&, const std::string&, const py::handle&)>;

// audit()'s keyword options: kaudit audit's flags, named without the
// leading dashes, with _ for -.
const std::map<std::string, Setter>& audit_options() {
  static const std::map<std::string, Setter> setters = {
      {"output", [](auto& r, auto& n, auto v) { r.options.out_dir = option_value<fs::path>(n, v, "a path"); }},
      {"jobs", [](auto& r, auto& n, auto v) { r.options.jobs = option_value<int>(n, v, "an int"); }},
      {"gpus", [](auto& r, auto& n, auto v) { r.options.gpus = audit::split_list(comma_list(n, v)); }},
      {"python", [](auto& r, auto& n, auto v) { r.options.python = option_value<std::string>(n, v, "a str"); }},
      {"trials", [](auto& r, auto& n, auto v) { r.options.trials = option_value<int>(n, v, "an int"); }},
      {"shapes", [](auto& r, auto& n, auto v) { r.options.shapes = option_value<std::string>(n, v, "a str"); }},
      {"force", [](auto& r, auto& n, auto v) { r.options.force = option_value<bool>(n, v, "a bool"); }},
      {"no_trace", [](auto& r, auto& n, auto v) { r.options.trace = !option_value<bool>(n, v, "a bool"); }},
      {"quiet", [](auto& r, auto& n, auto v) { r.options.quiet = option_value<bool>(n, v, "a bool"); }},
      {"heartbeat", [](auto& r, auto& n, auto v) { r.options.heartbeat_s = option_value<double>(n, v, "a number"); }},
      {"min_free_gib",
       [](auto& r, auto& n, auto v) { r.options.min_free_gib = option_value<double>(n, v, "a number"); }},
      {"min_free_memory_gib",
       [](auto& r, auto& n, auto v) { r.options.min_free_memory_gib = option_value<double>(n, v, "a number"); }},
      {"device_memory_gib",
       [](auto& r, auto& n, auto v) { r.options.device_memory_gib = option_value<double>(n, v, "a number"); }},
      {"max_tasks", [](auto& r, auto& n, auto v) { r.options.max_tasks = option_value<long>(n, v, "an int"); }},
      {"unsafe_no_sandbox",
       [](auto& r, auto& n, auto v) { r.options.unsafe_no_sandbox = option_value<bool>(n, v, "a bool"); }},
      {"fail_on", [](auto& r, auto& n, auto v) { r.fail_on = audit::parse_fail_on(comma_list(n, v)); }},
      {"sarif", [](auto& r, auto& n, auto v) { r.options.sarif = option_value<fs::path>(n, v, "a path"); }},
      {"junit", [](auto& r, auto& n, auto v) { r.options.junit = option_value<fs::path>(n, v, "a path"); }},
  };
  return setters;
}

AuditRequest audit_request(const std::string& device, const py::kwargs& kwargs) {
  AuditRequest request;
  request.options.device = device;
  const auto& setters = audit_options();
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    const auto it = setters.find(name);
    if (it == setters.end()) {
      std::string known;
      for (const auto& [k, s] : setters) known += (known.empty() ? "" : ", ") + k;
      throw py::type_error("audit() got an unexpected keyword argument '" + name + "' (options: " + known + ")");
    }
    it->second(request, name, value);
  }
  audit::check_audit_options(request.options);
  return request;
}

// kaudit audit SUBMISSION... --problem DIR: the verdict documents, in order.
py::list audit_batch(const Paths& paths, const std::optional<fs::path>& problem, const std::string& device,
                     const py::kwargs& kwargs) {
  const AuditRequest request = audit_request(device, kwargs);
  std::vector<std::string> submissions;
  for (const auto& p : path_list(paths)) submissions.push_back(p.string());
  json summary;
  std::vector<json> verdicts;
  {
    py::gil_scoped_release unlocked;
    const auto items = audit::items_from_paths(submissions, problem);
    summary = audit::run_audit(items, request.options);
    verdicts = audit::batch_verdicts(request.options.out_dir, summary);
  }
  py::list out(to_python(json(verdicts)));
  if (request.fail_on && audit::any_fails(summary, *request.fail_on)) {
    py::object raised = audit_failed("a submission's outcome is in fail_on: see .verdicts, or " +
                                     (request.options.out_dir / "report.html").string());
    raised.attr("verdicts") = out;
    PyErr_SetObject(audit_failed.ptr(), raised.ptr());
    throw py::error_already_set();
  }
  return out;
}

// kaudit.Error (RuntimeError), kaudit.UsageError (kaudit.Error and
// ValueError) and kaudit.AuditFailed (kaudit.Error), with the translation of
// the library's exceptions into them.
void add_errors(py::module_& m) {
  error = PyErr_NewExceptionWithDoc("kaudit.Error", "An error the kaudit command reports with exit status 2.",
                                    PyExc_RuntimeError, nullptr);
  const py::tuple usage_bases = py::make_tuple(error, py::handle(PyExc_ValueError));
  usage = PyErr_NewExceptionWithDoc("kaudit.UsageError", "A usage error: an option or argument out of range.",
                                    usage_bases.ptr(), nullptr);
  audit_failed = PyErr_NewExceptionWithDoc(
      "kaudit.AuditFailed", "audit(fail_on=...): a submission's outcome is in fail_on; .verdicts holds them all.",
      error.ptr(), nullptr);
  m.add_object("Error", error);
  m.add_object("UsageError", usage);
  m.add_object("AuditFailed", audit_failed);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const py::error_already_set&) {
      throw;
    } catch (const audit::AuditInterrupted& e) {  // Ctrl-C stopped an audit, as it stops kaudit audit
      PyErr_SetString(e.signal == SIGINT ? PyExc_KeyboardInterrupt : error.ptr(), e.what());
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(usage.ptr(), e.what());
    } catch (const std::exception& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
}

}  // namespace

// The module's contents (PYBIND11_MODULE below).
void define_module(py::module_& m) {
  m.doc() = "kaudit: audits GPU kernels submitted to kernel benchmarks (docs/usage.md, \"Python\")";
  m.attr("__version__") = kVersion;
  run::image_file();  // where this module is, while the path it was loaded by still holds
  add_errors(m);
#ifdef KAUDIT_HAVE_ANALYZER
  m.def("analyze", &analyze, py::arg("path"), py::arg("problem") = py::none(), py::kw_only(),
        py::arg("rules") = py::none(), py::arg("no_cxx") = false,
        "The document `kaudit analyze --format json PATH [--problem DIR]` prints, as a dict. PATH: a file or "
        "folder, or a list of them; rules, no_cxx: --rules, --no-cxx.");
#endif
  m.def("audit", &audit_batch, py::arg("paths"), py::arg("problem"), py::arg("device") = "auto",
        "`kaudit audit PATHS --problem PROBLEM --device DEVICE`: the verdict documents (verdict.json) in the "
        "order of PATHS. Options are kaudit audit's flags without dashes, _ for -: output, jobs, gpus, python, "
        "trials, shapes, force, no_trace, quiet, heartbeat, min_free_gib, min_free_memory_gib, device_memory_gib, max_tasks, unsafe_no_sandbox, sarif, junit, fail_on (raise kaudit.AuditFailed "
        "when an outcome is in it).");
  m.def(
      "explain", [](const std::string& id) { return audit::explain(id); }, py::arg("id"),
      "What `kaudit explain ID` prints: what the finding means and how to confirm it by hand.");
}

}  // namespace kaudit::pymodule

PYBIND11_MODULE(kaudit, m) { kaudit::pymodule::define_module(m); }
