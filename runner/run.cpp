#include "runner/run.h"

#include "rules/problem.h"
#include "rules/rule_pack.h"
#include "runner/child_process.h"
#include "runner/hardware.h"
#include "runner/probe_findings.h"
#include "runner/throughput.h"
#include "runner/tensor_file.h"
#include "runner/trace_summary.h"
#include "runner/workspace.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#ifndef KAUDIT_SOURCE_DIR
#define KAUDIT_SOURCE_DIR ""
#endif

extern char** environ;

namespace kaudit::runner {
namespace fs = std::filesystem;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

namespace {

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// Variables a child may see. Everything else (tokens, credentials, a
// harness's own settings) stays out.
const std::vector<std::string> kPassedEnv = {
    "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "TRITON_CACHE_DIR",
    "TORCH_EXTENSIONS_DIR", "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "TORCH_CUDA_ARCH_LIST", "CC", "CXX"};

std::vector<std::string> child_env(const RunOptions& o, const fs::path& home, const fs::path& trace_dir,
                                   const fs::path& tracer_lib) {
  std::map<std::string, std::string> env = {
      {"PATH", env_or("PATH", "/usr/local/bin:/usr/bin:/bin")},
      {"HOME", home.string()},
      {"TMPDIR", (home / "tmp").string()},
      {"LANG", "C.UTF-8"},
      {"PYTHONDONTWRITEBYTECODE", "1"},
      {"PYTHONUNBUFFERED", "1"},
      {"PYTHONHASHSEED", "0"},
      {"PYTHONNOUSERSITE", "1"},
  };
  std::vector<std::string> names = kPassedEnv;
  names.insert(names.end(), o.pass_env.begin(), o.pass_env.end());
  for (const auto& n : names)
    if (const char* v = std::getenv(n.c_str())) env[n] = v;
  // Compiled Triton kernels and torch extensions are kept between runs (the
  // working folder is new each time): "at most 90 s after the first compile".
  const std::string cache = env_or("XDG_CACHE_HOME", env_or("HOME", "/tmp") + "/.cache") + "/kaudit";
  if (!env.count("TRITON_CACHE_DIR")) env["TRITON_CACHE_DIR"] = cache + "/triton";
  if (!env.count("TORCH_EXTENSIONS_DIR")) env["TORCH_EXTENSIONS_DIR"] = cache + "/torch_extensions";
  // One thread per child on the CPU: steadier wall-clock times on a shared machine.
  if (o.device == "cpu" && !env.count("OMP_NUM_THREADS")) env["OMP_NUM_THREADS"] = "1";
  for (const auto& [k, v] : o.env) env[k] = v;
  if (!tracer_lib.empty()) {
    env["CUDA_INJECTION64_PATH"] = tracer_lib.string();
    env["KAUDIT_TRACE_DIR"] = trace_dir.string();
  }
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

Tolerance tolerance_of(const rules::Problem& p) {
  Tolerance t;
  if (p.format == rules::ProblemFormat::kernelbench) return t;  // KernelBench: atol = rtol = 1e-2
  const json tol = p.yaml.value("tolerance", json());
  auto num = [](const json& j, const char* k, double d) { return j.contains(k) && j[k].is_number() ? j[k].get<double>() : d; };
  if (tol.is_object()) {
    if (tol.contains("atol") || tol.contains("rtol")) {
      t.atol = num(tol, "atol", t.atol);
      t.rtol = num(tol, "rtol", t.rtol);
    } else {
      // Per-dtype tolerances ({bfloat16: {atol, rtol}}): the loosest applies.
      double a = 0, r = 0;
      bool any = false;
      for (const auto& [k, v] : tol.items()) {
        if (!v.is_object()) continue;
        a = std::max(a, num(v, "atol", 0));
        r = std::max(r, num(v, "rtol", 0));
        any = true;
      }
      if (any) t = {a, r};
    }
  } else if (tol.is_number()) {
    t.atol = t.rtol = tol.get<double>();
  }
  return t;
}

json stats_of(std::vector<double> v) {
  if (v.empty()) return json::object();
  std::sort(v.begin(), v.end());
  auto q = [&](double f) {
    const double pos = f * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  return {{"n", v.size()},          {"median_ms", q(0.5)}, {"mean_ms", mean}, {"min_ms", v.front()},
          {"max_ms", v.back()},     {"p10_ms", q(0.1)},    {"p90_ms", q(0.9)},
          {"stdev_ms", v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size() - 1)) : 0.0}};
}

// A file name the harness reported: a plain name that exists in xfer.
bool valid_entry(const json& e, const fs::path& xfer) {
  if (!e.is_object()) return false;
  if (e.contains("value")) return true;
  if (!e.contains("file") || !e["file"].is_string()) return false;
  const std::string f = e["file"];
  return !f.empty() && f.find('/') == std::string::npos && f != "." && f != ".." && fs::is_regular_file(xfer / f);
}

bool valid_entries(const json& list, const fs::path& xfer) {
  if (!list.is_array()) return false;
  return std::all_of(list.begin(), list.end(), [&](const json& e) { return valid_entry(e, xfer); });
}

// Outputs of one call against the reference's.
struct OutputCheck {
  std::string status;  // passed, failed, skipped
  std::string reason;
  double max_abs = 0, max_rel = 0;
  std::size_t mismatches = 0;
  std::size_t elements = 0;
  double atol = 0;  // the absolute tolerance applied
  std::size_t unwritten = 0;  // mismatches still holding the poison bytes (Comparison::poison_pattern)
};

// Largest finite |value| over the floating-point tensors of one call's outputs.
double magnitude(const std::vector<TensorFile>& tensors) {
  double m = 0;
  for (const auto& t : tensors)
    if (t.is_floating()) m = std::max(m, t.max_abs());
  return m;
}

// The tensors of an entry list (plain values are not tensors).
std::vector<TensorFile> read_output_files(const json& outputs, const fs::path& xfer) {
  std::vector<TensorFile> out;
  for (const auto& e : outputs)
    if (e.contains("file")) out.push_back(read_tensor_file(xfer / e["file"].get<std::string>()));
  return out;
}

// `stress_baseline`: for a numeric-stress case, the magnitude of the
// reference's output on the unscaled inputs. Rounding errors grow with the
// output, so the absolute tolerance grows by the output's growth (never
// shrinks); the relative tolerance stays. Such a case is skipped when the
// reference's own output is not finite. Scaled inputs also push elements
// onto decision edges (a saturated softmax, ties in a max) where any two
// correct kernels may differ: a stress case passes with at most
// `stress_allowance` of its elements outside the tolerance.
OutputCheck check_outputs(const json& got, const json& expected, const fs::path& xfer, Tolerance tol,
                          std::optional<double> stress_baseline, double stress_allowance = 0) {
  OutputCheck c{"passed", "", 0, 0, 0, 0, tol.atol};
  try {
    const std::vector<TensorFile> exp = read_output_files(expected, xfer);
    if (stress_baseline) {
      for (const auto& t : exp)
        if (!t.all_finite()) return {"skipped", "the reference's output is not finite at this scale", 0, 0, 0, 0, tol.atol};
      if (const double m = magnitude(exp); *stress_baseline > 0 && m > *stress_baseline) tol.atol *= m / *stress_baseline;
      c.atol = tol.atol;
    }
    const std::vector<TensorFile> outs = read_output_files(got, xfer);
    if (outs.size() != exp.size()) {
      c.status = "failed";
      c.reason = "returned " + std::to_string(outs.size()) + " tensor(s) where the reference returns " +
                 std::to_string(exp.size());
      return c;
    }
    bool only_elements = true;  // every failure is elements outside the tolerance (not a shape or dtype)
    for (std::size_t k = 0; k < outs.size(); ++k) {
      const auto cmp = compare_tensors(outs[k], exp[k], tol);
      c.max_abs = std::max(c.max_abs, cmp.max_abs_error);
      c.max_rel = std::max(c.max_rel, cmp.max_rel_error);
      c.mismatches += cmp.mismatches;
      c.unwritten += cmp.poison_pattern;
      c.elements += cmp.checked;
      if (!cmp.ok && cmp.mismatches == 0) only_elements = false;
      if (!cmp.ok && c.status == "passed") {
        c.status = "failed";
        c.reason = (outs.size() > 1 ? "output " + std::to_string(k) + ": " : std::string()) + cmp.reason;
      }
    }
    if (stress_baseline && c.status == "failed" && only_elements &&
        static_cast<double>(c.mismatches) <= stress_allowance * static_cast<double>(c.elements)) {
      c.status = "passed";
      c.reason.clear();
    }
  } catch (const std::exception& ex) {
    c.status = "failed";
    c.reason = std::string("unreadable output: ") + ex.what();
  }
  return c;
}

json output_check_json(const OutputCheck& c) {
  json j = {{"status", c.status}};
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (c.status != "skipped") {
    j["max_abs_error"] = c.max_abs;
    j["max_rel_error"] = c.max_rel;
    j["mismatches"] = c.mismatches;
    if (c.status == "passed" && c.mismatches > 0) j["tolerated_mismatches"] = c.mismatches;
    if (c.unwritten > 0) j["unwritten_elements"] = c.unwritten;
  }
  return j;
}

// Drives one child: messages until `stop` says so, the channel closes, or a
// deadline passes. The deadline is reset by `on_message`'s return value.
struct Outcome {
  bool timed_out = false;
  bool closed = false;
  std::vector<std::string> bad_messages;
};

template <typename Handler>
Outcome drive(Child& child, double first_timeout_s, Handler&& on_message) {
  Outcome out;
  auto deadline = clock_type::now() + std::chrono::milliseconds(static_cast<long long>(first_timeout_s * 1e3));
  for (;;) {
    ChannelEvent ev = child.next(deadline);
    if (ev.kind == ChannelEvent::timeout) {
      out.timed_out = true;
      child.kill_group();
      return out;
    }
    if (ev.kind == ChannelEvent::closed) {
      out.closed = true;
      return out;
    }
    if (ev.kind == ChannelEvent::bad_message) {
      if (out.bad_messages.size() < 20) out.bad_messages.push_back(ev.text);
      continue;
    }
    // Returns: < 0 stop; 0 keep the deadline; > 0 new timeout in seconds.
    const double next = on_message(ev.body);
    if (next < 0) return out;
    if (next > 0) deadline = clock_type::now() + std::chrono::milliseconds(static_cast<long long>(next * 1e3));
  }
}

std::string tail(const std::string& s, std::size_t n) { return s.size() > n ? s.substr(s.size() - n) : s; }

}  // namespace

fs::path resolve_python(const std::string& requested, const std::string& device) {
  std::string name = requested.empty() ? (device == "cpu" ? "/usr/bin/python3" : "python3") : requested;
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) != 0) throw std::runtime_error("--python: " + name + " is not an executable");
    return fs::absolute(name);
  }
  const std::string path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const fs::path cand = fs::path(path.substr(start, end - start)) / name;
    if (!cand.parent_path().empty() && access(cand.c_str(), X_OK) == 0) return fs::absolute(cand);
    start = end + 1;
  }
  throw std::runtime_error("--python: " + name + " not found on PATH");
}

fs::path find_harness(const fs::path& requested) {
  if (!requested.empty()) {
    if (!fs::is_regular_file(requested)) throw std::runtime_error("--harness: " + requested.string() + " not found");
    return fs::absolute(requested);
  }
  const fs::path exe = executable_dir();
  const fs::path name = "kaudit_harness.py";
  for (const fs::path& dir : {exe / "harness", exe / ".." / "harness", exe / ".." / ".." / "harness",
                              exe / ".." / "share" / "kaudit" / "harness",
                              fs::path(KAUDIT_SOURCE_DIR) / "runner" / "harness"}) {
    if (!dir.empty() && fs::is_regular_file(dir / name)) return fs::weakly_canonical(dir / name);
  }
  throw std::runtime_error("the harness (kaudit_harness.py) was not found next to " + exe.string());
}

json run_submission(const RunOptions& o) {
  const rules::Problem problem = rules::load_problem(o.problem);
  if (!fs::is_regular_file(o.solution)) throw std::runtime_error("--solution: " + o.solution.string() + " not found");
  if (o.device != "cpu" && o.device != "cuda") throw std::runtime_error("--device must be cuda or cpu");
  for (const auto& m : o.modes)
    if (m != "bench" && m != "fresh" && m != "rewrite")
      throw std::runtime_error("--modes: unknown mode '" + m + "' (bench, fresh, rewrite)");
  if (o.trace && o.device != "cuda") throw std::runtime_error("--trace needs --device cuda");
  const fs::path python = resolve_python(o.python, o.device);
  const fs::path harness = find_harness(o.harness);
  fs::path tracer_lib;
  if (o.trace) {
    tracer_lib = o.tracer_lib.empty() ? executable_dir() / "libkaudit_tracer.so" : o.tracer_lib;
    if (!fs::is_regular_file(tracer_lib))
      throw std::runtime_error("--trace: " + tracer_lib.string() + " not found (build with the tracer)");
    tracer_lib = fs::absolute(tracer_lib);
  }
  const bool cpu = o.device == "cpu";
  const double setup_s = o.setup_timeout_s.value_or(cpu ? 120 : 600);
  const double phase_s = o.phase_timeout_s.value_or(cpu ? 60 : 300);
  const double call_s = std::min(phase_s, o.call_timeout_s.value_or(60));
  const Tolerance tol = tolerance_of(problem);
  int trials = o.trials.value_or(0);
  if (trials <= 0) {
    const auto n = problem.yaml.value("num_perf_trials", json());
    trials = n.is_number_integer() && n.get<int>() > 0 ? n.get<int>() : (cpu ? 10 : 100);
  }
  rules::RulePack pack = o.rule_pack ? rules::load_rule_pack(*o.rule_pack) : rules::rule_pack_for_problem(problem);
  if (o.rule_pack) rules::merge_problem_forbidden(pack, problem.forbidden);
  // Wall-clock timing on a shared CPU is noisy: --device cpu exists to run
  // the protocol, so its threshold is looser (thresholds.fresh_over_bench_cpu).
  const char* threshold_key = cpu ? "fresh_over_bench_cpu" : "fresh_over_bench";
  double fresh_over_bench = cpu ? 5.0 : 1.5;
  if (pack.raw.contains("thresholds") && pack.raw["thresholds"].value(threshold_key, json()).is_number())
    fresh_over_bench = pack.raw["thresholds"][threshold_key].get<double>();
  double stress_allowance = 0.001;
  if (pack.raw.contains("thresholds") && pack.raw["thresholds"].value("stress_mismatch_fraction", json()).is_number())
    stress_allowance = pack.raw["thresholds"]["stress_mismatch_fraction"].get<double>();

  Workspace ws;
  ws.keep(o.keep_temp);
  copy_problem_files(problem.dir, ws.work());
  copy_problem_files(problem.dir, ws.refwork());
  fs::copy_file(o.solution, ws.work() / "solution.py", fs::copy_options::overwrite_existing);
  fs::create_directories(ws.work() / "tmp");
  fs::create_directories(ws.refwork() / "tmp");
  const fs::path trace_dir = ws.root() / "trace";
  if (o.trace) fs::create_directories(trace_dir);
  // The problem's files as the submission sees them, hashed before and after.
  std::vector<std::string> watched;
  for (auto it = fs::recursive_directory_iterator(problem.dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == "__pycache__") {
      it.disable_recursion_pending();
      continue;
    }
    const std::string rel = fs::relative(it->path(), problem.dir).string();
    if (it->is_regular_file() && rel != "solution.py") watched.push_back(rel);
  }
  const FileSnapshot before = snapshot_files(ws.work(), watched);

  const std::string shapes_file =
      problem.shapes.empty() ? "" : (ws.work() / fs::relative(problem.shapes, problem.dir)).string();
  const std::string ref_shapes_file =
      problem.shapes.empty() ? "" : (ws.refwork() / fs::relative(problem.shapes, problem.dir)).string();
  const std::string format = problem.format == rules::ProblemFormat::kernelbench ? "kernelbench" : "kernelbench_hard";

  json result = {{"schema", kRunSchema},
                 {"problem", {{"name", problem.name}, {"dir", problem.dir.string()}, {"format", format}}},
                 {"solution", o.solution.string()},
                 {"device", o.device},
                 {"python", python.string()},
                 {"modes", o.modes},
                 {"settings",
                  {{"seeds", o.seeds},
                   {"stress_scales", o.stress_scales},
                   {"warmup", o.warmup},
                   {"trials", trials},
                   {"samples", o.samples},
                   {"tolerance", {{"atol", tol.atol}, {"rtol", tol.rtol}}},
                   {"setup_timeout_s", setup_s},
                   {"phase_timeout_s", phase_s},
                   {"call_timeout_s", call_s},
                   {"fresh_over_bench_threshold", fresh_over_bench},
                   {"stress_mismatch_fraction", stress_allowance},
                   {"trace", o.trace}}},
                 {"result", "error"},
                 {"error", nullptr},
                 {"environment", json::object()},
                 {"correctness", json::array()},
                 {"timing", json::array()},
                 {"findings", json::array()},
                 {"problem_files", json::array()}};
  if (o.keep_temp) result["temp_dir"] = ws.root().string();
  std::vector<rules::Finding> findings;
  auto set_error = [&](const std::string& phase, const std::string& reason, const json& detail = nullptr) {
    if (!result["error"].is_null()) return;
    result["error"] = {{"phase", phase}, {"reason", reason}};
    if (!detail.is_null()) result["error"]["detail"] = detail;
  };

  // ---- the reference: shapes and every correctness input ----------------
  json cases = json::array();
  for (int s = 0; s < o.seeds; ++s) cases.push_back({{"seed", 1000 + s}, {"scale", 1.0}, {"kind", "seed"}});
  for (double sc : o.stress_scales) cases.push_back({{"seed", 1000}, {"scale", sc}, {"kind", "stress"}});
  const fs::path ref_cfg = ws.private_dir() / "reference.json";
  {
    json cfg = {{"role", "reference"},     {"device", o.device},       {"format", format},
                {"reference", (ws.refwork() / fs::relative(problem.reference, problem.dir)).string()},
                {"shapes_file", ref_shapes_file}, {"xfer", ws.xfer().string()}, {"channel_fd", kChannelFd},
                {"init_seed", o.init_seed}, {"cases", cases}};
    std::ofstream(ref_cfg) << cfg.dump();
  }
  // The device's turns (RunOptions::device_turns): shared for untimed GPU
  // work, exclusive for each timing mode; the wait is reported.
  double device_wait_s = 0;
  auto take_device = [&](DeviceTurns::Kind kind) {
    if (!o.device_turns) return DeviceTurns::Turn();
    const auto asked = clock_type::now();
    DeviceTurns::Turn turn =
        kind == DeviceTurns::Kind::exclusive ? o.device_turns->exclusive() : o.device_turns->shared();
    device_wait_s += std::chrono::duration<double>(clock_type::now() - asked).count();
    return turn;
  };
  // Called before the document is returned: the run's wall time, and the
  // part of it spent waiting for the device.
  const auto run_started = clock_type::now();
  auto note_times = [&]() {
    result["seconds"] = std::chrono::duration<double>(clock_type::now() - run_started).count();
    if (o.device_turns) result["device_wait_seconds"] = device_wait_s;
  };
  // Where the time went: wall seconds per step, in order (docs/runner.md).
  // The submission's set-up overlaps the reference's steps.
  result["phases"] = json::array();
  auto add_phase = [&](const std::string& process, const json& step, clock_type::time_point since) {
    json p = {{"process", process}, {"seconds", std::chrono::duration<double>(clock_type::now() - since).count()}};
    p.update(step);
    result["phases"].push_back(p);
  };
  const auto env = child_env(o, ws.refwork(), trace_dir, fs::path());
  Child ref({{python.string(), "-B", harness.string(), ref_cfg.string()}, env, ws.refwork()});

  // The submission starts at once: its import and build overlap the
  // reference's input generation; it waits for its inputs on stdin.
  const fs::path sub_cfg = ws.private_dir() / "submission.json";
  {
    json cfg = {{"role", "submission"},
                {"device", o.device},
                {"format", format},
                {"reference", (ws.work() / fs::relative(problem.reference, problem.dir)).string()},
                {"shapes_file", shapes_file},
                {"solution", (ws.work() / "solution.py").string()},
                {"xfer", ws.xfer().string()},
                {"channel_fd", kChannelFd},
                {"init_seed", o.init_seed},
                {"trace", o.trace}};
    std::ofstream(sub_cfg) << cfg.dump();
  }
  const auto sub_started = clock_type::now();
  Child sub({{python.string(), "-B", harness.string(), sub_cfg.string()},
             child_env(o, ws.work(), trace_dir, tracer_lib), ws.work()});
  json shapes = json::array();
  std::map<std::pair<int, int>, json> ref_inputs;  // (shape, case) -> input entries
  // shape -> what the reference itself does to its inputs, as run.json
  // records it: changes_inputs (indices), aliases_input. A submission doing
  // the same is faithful, not a cheat.
  std::map<int, json> ref_habits;
  bool generated = false;
  json ref_error;
  {
    // The reference imports and reports its shapes, then waits for its turn
    // on the device to generate the inputs.
    bool have_shapes = false;
    auto on_reference = [&](const json& m) -> double {
      const std::string ev = m["event"];
      if (ev == "hello") result["environment"] = m.value("environment", json::object());
      else if (ev == "shapes" && m.contains("shapes") && m["shapes"].is_array() && !have_shapes) {
        shapes = m["shapes"];
        have_shapes = true;
        return -1;
      } else if (ev == "reference_habits") {
        json changes = json::array();
        for (const auto& k : m.value("changes_inputs", json::array()))
          if (k.is_number_integer()) changes.push_back(k.get<int>());
        ref_habits[m.value("shape", -1)] = {{"changes_inputs", changes},
                                            {"aliases_input", m.value("aliases_input", false)}};
        return phase_s;
      } else if (ev == "case") {
        ref_inputs[{m.value("shape", -1), m.value("case", -1)}] = m.value("inputs", json::array());
        return phase_s;
      } else if (ev == "generated") {
        generated = true;
        return -1;
      } else if (ev == "error") {
        ref_error = m;
        return -1;
      }
      return 0;
    };
    auto since = clock_type::now();
    Outcome out = drive(ref, setup_s, on_reference);
    add_phase("reference", {{"phase", "import"}}, since);
    DeviceTurns::Turn turn;
    if (have_shapes) {
      turn = take_device(DeviceTurns::Kind::shared);
      since = clock_type::now();
      ref.send_line("go");
      out = drive(ref, phase_s, on_reference);
      add_phase("reference", {{"phase", "inputs"}}, since);
    }
    if (!generated) {
      std::string why = out.timed_out ? "the reference timed out while generating inputs"
                        : ref_error.is_object()
                            ? "the reference failed: " + ref_error.value("type", std::string()) + ": " +
                                  ref_error.value("message", std::string())
                            : "the reference process ended (" + ref.finish(std::chrono::seconds(2)).describe() +
                                  ") before generating inputs";
      set_error("reference", why, {{"stderr_tail", tail(ref.stderr_text(), 4000)}});
      ref.kill_group();
      note_times();
      return result;
    }
  }
  result["shapes"] = shapes;
  // The reference's input files, sealed before the submission can reach them.
  std::vector<std::string> reference_files;
  for (const auto& [key, entries] : ref_inputs)
    for (const auto& e : entries)
      if (e.contains("file") && e["file"].is_string()) reference_files.push_back(e["file"]);
  const FileSeal input_seal = seal_files(ws.xfer(), reference_files);
  const std::string device_name = result["environment"].value("gpu", std::string());
  std::optional<Hardware> hw;
  if (o.hardware) hw = load_hardware(*o.hardware);
  else if (!cpu && !device_name.empty()) hw = find_hardware(device_name);
  const double l2 = hw && hw->l2_bytes > 0 ? hw->l2_bytes : 64.0 * (1 << 20);

  // ---- the submission --------------------------------------------------
  const int nshapes = static_cast<int>(shapes.size());
  json correctness_cfg = json::array();
  for (int i = 0; i < nshapes; ++i)
    for (int j = 0; j < static_cast<int>(cases.size()); ++j)
      correctness_cfg.push_back({{"shape", i}, {"case", j}, {"inputs", ref_inputs[{i, j}]}});
  std::vector<int> samples;
  for (int k = 0; k < o.samples && trials > 0; ++k) {
    const int idx = o.samples == 1 ? trials - 1 : k * (trials - 1) / std::max(1, o.samples - 1);
    if (samples.empty() || samples.back() != idx) samples.push_back(idx);
  }
  // Shapes with large inputs: one sample per mode (RunOptions::large_input_bytes).
  json samples_by_shape = json::array();
  for (int i = 0; i < nshapes; ++i) {
    std::uintmax_t bytes = 0;
    for (const auto& e : ref_inputs[{i, 0}]) {
      std::error_code ec;
      if (e.contains("file") && e["file"].is_string()) bytes += fs::file_size(ws.xfer() / e["file"].get<std::string>(), ec);
    }
    samples_by_shape.push_back(bytes > o.large_input_bytes && !samples.empty() ? json::array({samples.back()}) : json(samples));
  }
  json reference_changing = json::array();  // shapes whose reference writes into its inputs
  for (const auto& [shape, h] : ref_habits)
    if (!h["changes_inputs"].empty()) reference_changing.push_back(shape);
  const fs::path stage_cfg = ws.private_dir() / "submission-inputs.json";
  {
    json cfg = {{"correctness", correctness_cfg},
                {"modes", o.modes},
                {"warmup", o.warmup},
                {"trials", trials},
                {"samples_by_shape", samples_by_shape},
                {"mode_seeds", {{"bench", 0}, {"fresh", 100000}, {"rewrite", 200000}}},
                {"flush_bytes", cpu ? 0.0 : 2 * l2},
                {"keep_alive_bytes", cpu ? 256.0 * (1 << 20) : 16.0 * (1 << 30)},
                {"poison", o.poison},
                {"timing_turns", o.device_turns != nullptr},
                {"reference_changes_inputs", reference_changing}};
    std::ofstream(stage_cfg) << cfg.dump();
  }
  std::map<std::pair<int, int>, json> sub_outputs;  // (shape, case) -> output entries
  std::map<std::pair<int, int>, std::vector<int>> mutated;
  std::map<int, json> correctness_counts;
  std::map<int, json> stream_order;  // shape -> the stream-order probe's outputs and differing
  std::map<std::pair<int, std::string>, json> timings;  // (shape, mode) -> timing message
  json sub_error, current_phase = {{"phase", "start"}};
  bool done = false, ready = false;
  long sub_pid = 0;
  auto phase_started = sub_started;
  DeviceTurns::Turn sub_turn;  // shared for its calls, exclusive while a timing mode runs
  double sub_timeout_s = setup_s;  // the deadline in force, for the error message
  // The harness's phases (set-up, then correctness and timing per shape and
  // mode) each end where the next begins, or where the process stops talking.
  auto end_sub_phase = [&]() {
    json step = {{"phase", current_phase.value("phase", std::string("start"))}};
    for (const char* k : {"shape", "mode"})
      if (current_phase.contains(k)) step[k] = current_phase[k];
    add_phase("submission", step, phase_started);
    phase_started = clock_type::now();
  };
  auto on_submission = [&](const json& m) -> double {
    const std::string ev = m["event"];
    if (ev == "hello") {
      sub_pid = m.value("pid", 0L);
      return 0;
    }
    if (ev == "ready" && !ready) {
      ready = true;
      end_sub_phase();
      current_phase = {{"phase", "inputs"}};  // reading them, once its turn on the device came
      return -1;  // set up: it waits for its inputs and its turn on the device
    }
    if (ev == "turn" && o.device_turns) {
      // A timing mode: the device alone (the harness waits for "go").
      sub_turn.release();
      const auto asked = clock_type::now();
      sub_turn = take_device(DeviceTurns::Kind::exclusive);
      phase_started += clock_type::now() - asked;  // the wait is device_wait_seconds
      sub.send_line("go");
      return phase_s;
    }
    if (ev == "turn_done" && sub_turn.kind() == DeviceTurns::Kind::exclusive) {
      sub_turn.release();
      const auto asked = clock_type::now();
      sub_turn = take_device(DeviceTurns::Kind::shared);
      phase_started += clock_type::now() - asked;
      return phase_s;
    }
    if (ev == "phase") {
      end_sub_phase();
      current_phase = m;
      const std::string ph = m.value("phase", std::string());
      sub_timeout_s = ph == "setup" ? setup_s : ph == "correctness" ? call_s : phase_s;
      return sub_timeout_s;
    }
    if (ev == "call" && m.value("kind", std::string()) == "correctness") {
      const int i = m.value("shape", -1), j = m.value("case", -1);
      if (!ref_inputs.count({i, j}) || !valid_entries(m.value("outputs", json()), ws.xfer())) return call_s;
      sub_outputs[{i, j}] = m["outputs"];
      // Inputs after the call against the bytes handed over: compared here,
      // then the copies go.
      const json after = m.value("inputs_after", json::array());
      const json& orig = ref_inputs[{i, j}];
      for (std::size_t k = 0; k < after.size() && k < orig.size(); ++k) {
        if (!valid_entry(after[k], ws.xfer())) continue;
        bool same = true;
        if (after[k].contains("file") && orig[k].contains("file")) {
          try {
            same = same_bytes(read_tensor_file(ws.xfer() / after[k]["file"].get<std::string>()),
                              read_tensor_file(ws.xfer() / orig[k]["file"].get<std::string>()));
          } catch (const std::exception&) {
            same = false;
          }
          std::error_code ec;
          fs::remove(ws.xfer() / after[k]["file"].get<std::string>(), ec);
        } else {
          same = after[k] == orig[k];
        }
        if (!same) mutated[{i, j}].push_back(static_cast<int>(k));
      }
      return call_s;
    }
    if (ev == "checks") {
      correctness_counts[m.value("shape", -1)] = m;
      return 0;
    }
    if (ev == "probe" && m.value("probe", std::string()) == "stream-order") {
      stream_order[m.value("shape", -1)] = {{"outputs", m.value("outputs", 0)}, {"differing", m.value("differing", 0)}};
      return call_s;
    }
    if (ev == "timing") {
      timings[{m.value("shape", -1), m.value("mode", std::string())}] = m;
      return 0;
    }
    if (ev == "error") {
      sub_error = m;
      return -1;
    }
    if (ev == "done") {
      done = true;
      return -1;
    }
    return 0;
  };
  // Import and build first, without the device's turn; then the calls.
  Outcome sub_out = drive(sub, setup_s, on_submission);
  if (ready && !sub_error.is_object()) {
    sub_turn = take_device(DeviceTurns::Kind::shared);
    phase_started = clock_type::now();  // the wait is device_wait_seconds
    sub_timeout_s = phase_s;
    sub.send_line(stage_cfg.string());
    std::vector<std::string> bad = std::move(sub_out.bad_messages);
    sub_out = drive(sub, phase_s, on_submission);
    bad.insert(bad.end(), sub_out.bad_messages.begin(), sub_out.bad_messages.end());
    sub_out.bad_messages = std::move(bad);
  }
  end_sub_phase();
  const ExitStatus sub_status = sub.finish(std::chrono::seconds(sub_out.timed_out ? 0 : 5));
  sub_turn.release();
  const double sub_seconds = std::chrono::duration<double>(clock_type::now() - sub_started).count();
  result["submission_process"] = {{"exit", sub_status.describe()},
                                  {"seconds", sub_seconds},
                                  {"stdout_tail", tail(sub.stdout_text(), 4000)},
                                  {"stderr_tail", tail(sub.stderr_text(), 4000)}};
  if (!sub_out.bad_messages.empty()) result["submission_process"]["bad_messages"] = sub_out.bad_messages;

  auto phase_text = [&]() {
    std::string t = current_phase.value("phase", std::string("start"));
    if (current_phase.contains("shape")) t += ", shape " + std::to_string(current_phase.value("shape", 0));
    if (current_phase.contains("mode")) t += ", mode " + current_phase.value("mode", std::string());
    return t;
  };
  if (sub_out.timed_out) {
    set_error(current_phase.value("phase", std::string("start")),
              "timed out after " + std::to_string(static_cast<int>(sub_timeout_s)) + " s in " +
                  phase_text() + "; the process group was killed");
  } else if (sub_error.is_object()) {
    set_error(sub_error.value("phase", std::string("start")),
              sub_error.value("type", std::string("Error")) + ": " + sub_error.value("message", std::string()),
              {{"traceback", sub_error.value("traceback", std::string())}});
    const std::string code = sub_error.value("message", std::string());
    if (sub_error.value("type", std::string()) == "SystemExit" && (code.empty() || code == "0" || code == "None"))
      findings.push_back(make_probe_finding("exited-before-results", o.solution.string(), phase_text(),
                                            "The submission called sys.exit(0) in " + phase_text() +
                                                " before the harness handed over any result; an exit status or a "
                                                "printed PASS counts for nothing."));
  } else if (!done) {
    set_error(current_phase.value("phase", std::string("start")),
              "the process ended (" + sub_status.describe() + ") in " + phase_text() +
                  " without handing over its results");
    if (sub_status.exited && sub_status.code == 0) {
      findings.push_back(make_probe_finding("exited-before-results", o.solution.string(), phase_text(),
                                            "The submission's process exited with status 0 in " + phase_text() +
                                                " before the harness handed over any result; an exit status or a "
                                                "printed PASS counts for nothing."));
    }
  } else {
    // Done: every expected result must be there.
    for (int i = 0; i < nshapes; ++i) {
      for (int j = 0; j < static_cast<int>(cases.size()); ++j)
        if (!sub_outputs.count({i, j})) set_error("correctness", "results missing for shape " + std::to_string(i));
      for (const auto& mode : o.modes)
        if (!timings.count({i, mode}))
          set_error("timing", "timings missing for shape " + std::to_string(i) + ", mode " + mode);
    }
  }

  // ---- problem files ----------------------------------------------------
  const FileSnapshot after = snapshot_files(ws.work(), watched);
  result["problem_files"] = compare_snapshots(before, after);
  for (const auto& f : result["problem_files"]) {
    if (f["status"] != "unchanged")
      findings.push_back(make_probe_finding("problem-file-changed", f["path"].get<std::string>(), "",
                                            "The problem file " + f["path"].get<std::string>() + " was " +
                                                f["status"].get<std::string>() + " while the submission ran."));
  }

  // ---- the reference checks every output that came back ---------------
  json jobs = json::array();
  for (const auto& [key, outs] : sub_outputs)
    jobs.push_back({{"id", "c_s" + std::to_string(key.first) + "_c" + std::to_string(key.second)},
                    {"shape", key.first},
                    {"inputs", ref_inputs[key]}});
  for (const auto& [key, t] : timings) {
    for (const auto& s : t.value("samples", json::array())) {
      if (!s.contains("inputs") || !valid_entries(s["inputs"], ws.xfer())) continue;
      jobs.push_back({{"id", "t_s" + std::to_string(key.first) + "_" + key.second + "_" +
                                 std::to_string(s.value("call", 0))},
                      {"shape", key.first},
                      {"inputs", s["inputs"]}});
    }
  }
  // Inputs changed under the reference would make its expected outputs
  // answer the submission's question, not the problem's.
  if (const auto broken = broken_seals(ws.xfer(), input_seal); !broken.empty()) {
    findings.push_back(make_probe_finding("problem-file-changed", broken.front(), "",
                                          std::to_string(broken.size()) +
                                              " of the reference's input files (first: " + broken.front() +
                                              ") were changed, replaced or deleted while the submission ran."));
    set_error("reference", "the reference's input files were changed while the submission ran: no expected "
                           "output can be trusted");
    jobs = json::array();
  }
  std::map<std::string, json> expected;
  if (!jobs.empty()) {
    const fs::path check_cfg = ws.private_dir() / "check.json";
    std::ofstream(check_cfg) << json{{"jobs", jobs}}.dump();
    bool ref_done = false;
    json err;
    Outcome out;
    DeviceTurns::Turn turn = take_device(DeviceTurns::Kind::shared);
    const auto since = clock_type::now();
    if (ref.send_line(check_cfg.string())) {
      out = drive(ref, phase_s, [&](const json& m) -> double {
        const std::string ev = m["event"];
        if (ev == "expected" && m.contains("id") && m["id"].is_string()) {
          expected[m["id"]] = m.value("outputs", json::array());
          return phase_s;
        }
        if (ev == "done") {
          ref_done = true;
          return -1;
        }
        if (ev == "error") {
          err = m;
          return -1;
        }
        return 0;
      });
    }
    add_phase("reference", {{"phase", "expected outputs"}, {"jobs", jobs.size()}}, since);
    if (!ref_done) {
      // Submission errors come first: they are what the user needs to see.
      set_error("reference",
                out.timed_out ? "the reference timed out while computing expected outputs"
                : err.is_object()
                    ? "the reference failed on the submitted calls' inputs: " + err.value("type", std::string()) +
                          ": " + err.value("message", std::string())
                    : "the reference process ended before computing expected outputs",
                {{"stderr_tail", tail(ref.stderr_text(), 4000)}});
    }
  } else {
    ref.send_line("");
  }
  ref.finish(std::chrono::seconds(5));

  // ---- correctness ------------------------------------------------------
  const auto compare_started = clock_type::now();
  bool all_correct = true;
  std::string first_failure;
  std::map<int, bool> shape_correct;
  for (int i = 0; i < nshapes; ++i) {
    json shape_doc = {{"shape_index", i}, {"shape", shapes[i]}, {"cases", json::array()}};
    bool ok = true;
    const json counts = correctness_counts.count(i) ? correctness_counts[i].value("counts", json::object()) : json();
    for (int j = 0; j < static_cast<int>(cases.size()); ++j) {
      json c = {{"case", j}, {"seed", cases[j]["seed"]}, {"scale", cases[j]["scale"]}, {"kind", cases[j]["kind"]}};
      const std::string id = "c_s" + std::to_string(i) + "_c" + std::to_string(j);
      if (!sub_outputs.count({i, j}) || !expected.count(id)) {
        c["status"] = "not run";
      } else {
        std::optional<double> baseline;
        if (cases[j]["kind"] == "stress") {
          const std::string base_id = "c_s" + std::to_string(i) + "_c0";
          baseline = 0.0;
          if (expected.count(base_id)) {
            try {
              baseline = magnitude(read_output_files(expected[base_id], ws.xfer()));
            } catch (const std::exception&) {  // unreadable: the tolerance stays as it is
            }
          }
        }
        const OutputCheck chk =
            check_outputs(sub_outputs[{i, j}], expected[id], ws.xfer(), tol, baseline, stress_allowance);
        c.update(output_check_json(chk));
        if (baseline && chk.status != "skipped") c["atol"] = chk.atol;
        if (chk.status == "failed") {
          ok = false;
          if (first_failure.empty())
            first_failure = "shape " + std::to_string(i) + ", " + cases[j]["kind"].get<std::string>() + " case " +
                            std::to_string(j) + ": " + chk.reason;
        }
      }
      if (mutated.count({i, j})) c["inputs_mutated"] = mutated[{i, j}];
      shape_doc["cases"].push_back(c);
    }
    if (counts.is_object() && counts.value("not_tensor", 0) > 0) {
      ok = false;
      if (first_failure.empty()) first_failure = "shape " + std::to_string(i) + ": an output is not a tensor";
    }
    if (stream_order.count(i)) shape_doc["stream_order"] = stream_order[i];
    if (ref_habits.count(i)) shape_doc["reference_habits"] = ref_habits[i];
    shape_doc["passed"] = ok;
    shape_correct[i] = ok;
    all_correct = all_correct && ok;
    result["correctness"].push_back(shape_doc);
  }

  // ---- timing, samples and % of peak -------------------------------------
  for (int i = 0; i < nshapes; ++i) {
    ShapeEvidence evidence;
    json tdoc = {{"shape_index", i}, {"shape", shapes[i]}, {"modes", json::object()}};
    std::map<std::string, double> vars;
    for (const auto& [k, v] : shapes[i].items())
      if (v.is_number()) vars[k] = v.get<double>();
    const json perf = throughput_basis(problem.yaml, vars, hw, o.peak_basis);
    for (const auto& mode : o.modes) {
      if (!timings.count({i, mode})) continue;
      const json& t = timings[{i, mode}];
      std::vector<double> times;
      for (const auto& x : t.value("times_ms", json::array()))
        if (x.is_number()) times.push_back(x.get<double>());
      json mdoc = stats_of(times);
      json sample_docs = json::array();
      bool samples_ok = true;
      for (const auto& s : t.value("samples", json::array())) {
        const int call = s.value("call", 0);
        const std::string id = "t_s" + std::to_string(i) + "_" + mode + "_" + std::to_string(call);
        json sd = {{"call", call}};
        if (!valid_entries(s.value("outputs", json()), ws.xfer()) || !expected.count(id)) {
          sd["status"] = "not checked";
        } else {
          const OutputCheck chk = check_outputs(s["outputs"], expected[id], ws.xfer(), tol, std::nullopt);
          sd.update(output_check_json(chk));
          if (chk.status == "failed") {
            samples_ok = false;
            if (first_failure.empty())
              first_failure = "shape " + std::to_string(i) + ", timed " + mode + " call " + std::to_string(call) +
                              ": " + chk.reason;
          }
        }
        sample_docs.push_back(sd);
      }
      mdoc["samples"] = sample_docs;
      mdoc["samples_passed"] = samples_ok;
      mdoc["output_checks"] = t.value("counts", json::object());
      if (!t.value("types", json::array()).empty()) mdoc["output_types"] = t["types"];
      if (mode == "rewrite") mdoc["version_counters_moved"] = t.value("versions_moved", 0);
      if (mdoc.contains("median_ms")) mdoc.update(throughput(perf, mdoc["median_ms"].get<double>()));
      tdoc["modes"][mode] = mdoc;
      evidence.modes[mode] = {samples_ok, times.empty() ? 0.0 : mdoc["median_ms"].get<double>(),
                              times.empty() ? 0.0 : mdoc["min_ms"].get<double>(), t.value("counts", json::object())};
      all_correct = all_correct && samples_ok;
    }
    if (tdoc["modes"].contains("bench") && tdoc["modes"].contains("fresh") &&
        tdoc["modes"]["bench"].value("median_ms", 0.0) > 0)
      tdoc["fresh_over_bench"] = tdoc["modes"]["fresh"]["median_ms"].get<double>() /
                                 tdoc["modes"]["bench"]["median_ms"].get<double>();
    tdoc["work"] = perf;
    result["timing"].push_back(tdoc);

    evidence.shape = i;
    evidence.correctness_passed = shape_correct[i];
    evidence.correctness_counts = correctness_counts.count(i) ? correctness_counts[i].value("counts", json::object())
                                                              : json::object();
    for (const auto& c : result["correctness"][i]["cases"])
      if (c.value("kind", std::string()) == "seed") evidence.seed_cases_passed.push_back(c.value("status", "") == "passed");
    if (o.poison)
      for (const auto& c : result["correctness"][i]["cases"])
        if (c.value("unwritten_elements", std::size_t{0}) > 0)
          evidence.unwritten_cases.emplace_back(c.value("case", 0), c["unwritten_elements"].get<std::size_t>());
    evidence.outputs_not_ready = stream_order.count(i) ? stream_order[i].value("differing", 0) : 0;
    // Inputs the reference itself changes, and outputs in an input's storage
    // when the reference returns one too, are the problem's, not offences.
    const json habits = ref_habits.count(i) ? ref_habits[i] : json::object();
    const auto reference_changes = habits.value("changes_inputs", json::array()).get<std::set<int>>();
    for (const auto& [key, ks] : mutated)
      if (key.first == i && std::any_of(ks.begin(), ks.end(), [&](int k) { return !reference_changes.count(k); }))
        evidence.mutated_cases.push_back(key.second);
    evidence.reference_aliases_input = habits.value("aliases_input", false);
    for (auto& f : probe_findings(evidence, o.solution.string(), fresh_over_bench)) findings.push_back(f);
  }

  add_phase("runner", {{"phase", "comparison"}}, compare_started);

  // ---- trace ---------------------------------------------------------------
  if (o.trace) {
    const auto since = clock_type::now();
    TimedCallTimes timed_ms;
    for (const auto& [key, t] : timings)
      for (const auto& x : t.value("times_ms", json::array()))
        timed_ms[{std::to_string(key.first), key.second}].push_back(x.is_number() ? x.get<double>() : 0.0);
    json trace_doc =
        summarize_trace(trace_dir, sub_pid, o.solution.string(), findings, &pack, o.trace_output, timed_ms);
    result["trace"] = trace_doc;
    add_phase("runner", {{"phase", "trace"}}, since);
    // Every call the harness made must be in the trace: a submission that
    // deletes or cuts its own journal (the tracer writes it from inside its
    // process) must not come out clean for want of trace evidence.
    if (done && !sub_error.is_object()) {
      std::size_t made = correctness_cfg.size(), traced = 0;
      made += static_cast<std::size_t>(nshapes) * o.modes.size() * static_cast<std::size_t>(o.warmup + trials);
      for (const auto& g : trace_doc.value("groups", json::array())) traced += g.value("calls", std::size_t{0});
      if (trace_doc.value("status", std::string()) != "ok")
        result["trace_incomplete"] = "the trace could not be read: " + trace_doc.value("reason", std::string("unknown"));
      else if (traced < made)
        result["trace_incomplete"] = "the trace holds " + std::to_string(traced) + " of the " + std::to_string(made) +
                                     " calls the harness made";
    }
  }

  if (result["error"].is_null()) {
    result["result"] = all_correct ? "correct" : "incorrect";
    if (!all_correct) result["result_reason"] = first_failure;
  }
  if (hw) {
    result["hardware"] = {{"name", hw->name}, {"peak_basis", o.peak_basis}};
  }
  rules::sort_and_deduplicate(findings);
  for (const auto& f : findings) result["findings"].push_back(rules::to_json(f));
  note_times();
  return result;
}

}  // namespace kaudit::runner
