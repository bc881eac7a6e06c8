#include "runner/audit.h"

#include "rules/rule_pack.h"
#include "rules/verdict.h"
#include "runner/run.h"

#ifdef KAUDIT_HAVE_ANALYZER
#include "analyzer/analyzer.h"
#include "analyzer/report.h"
#endif
#ifdef KAUDIT_HAVE_REPORT
#include "runner/report/report.h"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace kaudit::runner {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string sanitize(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return s;
}

void assign_keys(std::vector<AuditItem>& items) {
  std::set<std::string> used;
  for (auto& it : items) {
    std::string base = sanitize(it.source.parent_path().filename().string() + "__" + it.source.stem().string());
    std::string key = base;
    for (int n = 2; used.count(key); ++n) key = base + "_" + std::to_string(n);
    used.insert(key);
    it.key = key;
  }
}

std::optional<json> read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// Write then rename, so that an interrupted batch never leaves half a file
// that a resumed one would trust.
void write_json(const fs::path& p, const json& j) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, p);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Submissions that need a GPU toolchain cannot run in CPU mode; only
// pure-PyTorch ones do (DESIGN.md, runner, --device cpu).
bool needs_gpu(const fs::path& source) {
  const std::string text = read_text(source);
  for (const char* marker : {"triton", "load_inline", "cpp_extension", "cupy", "RawKernel", "nvrtc", "numba", "ctypes"})
    if (text.find(marker) != std::string::npos) return true;
  return false;
}

rules::RulePack pack_for(const std::optional<rules::Problem>& problem) {
  return problem ? rules::rule_pack_for_problem(*problem) : rules::default_rule_pack();
}

json verdict_in(const fs::path& dir, const json& submission) {
  const auto analysis = read_json(dir / "analysis.json");
  const auto run = read_json(dir / "run.json");
  std::optional<rules::Problem> problem;
  if (submission.contains("problem_dir") && submission["problem_dir"].is_string())
    problem = rules::load_problem(submission["problem_dir"].get<std::string>());
  rules::Evidence ev{submission.value("path", ""), analysis ? &*analysis : nullptr, run ? &*run : nullptr};
  json v = rules::decide_verdict(ev, rules::verdict_policy_of(pack_for(problem)));
  write_json(dir / "verdict.json", v);
  return v;
}

// A manifest's label against a verdict. A submission labelled clean whose
// run ends in an error matches "unverified": without a completed run its
// integrity cannot be shown (rules/verdict.h), only not found wanting.
bool verdict_matches(const json& expected, const json& result, const json& integrity) {
  const std::string want_result = expected.value("result", ""), want = expected.value("integrity", "");
  if (want_result != result.get<std::string>()) return false;
  const std::string got = integrity.get<std::string>();
  return got == want || (want_result == "error" && want == "clean" && got == "unverified");
}

// What the header of the reports names: the GPU the runs ran on (from the
// first CUDA run.json), else "available" when this audit saw one, else null.
json gpu_of_batch(const fs::path& out_dir, const json& entries, bool gpu_here) {
  for (const auto& e : entries) {
    const auto run = read_json(out_dir / e.value("key", "") / "run.json");
    if (run && run->value("device", "") == "cuda") {
      const std::string name = run->value("environment", json::object()).value("gpu", "");
      if (!name.empty()) return name;
    }
  }
  return gpu_here ? json("available") : json(nullptr);
}

// A submission's time in the summary: its run's wall time when it was run
// (also when a resumed batch kept it), else what this audit spent on it.
double seconds_of(const fs::path& dir, double spent) {
  const auto run = read_json(dir / "run.json");
  return run && run->contains("seconds") && (*run)["seconds"].is_number() ? (*run)["seconds"].get<double>() : spent;
}

json summary_entry(const AuditItem& it, const json& v, const std::string& status, double seconds) {
  json e = {{"key", it.key},
            {"path", it.source.string()},
            {"problem", it.problem ? json(it.problem->filename().string()) : json(nullptr)},
            {"result", v.value("result", "not-run")},
            {"integrity", v.value("integrity", "not-run")},
            {"status", status},
            {"seconds", seconds}};
  if (!it.expected.is_null()) {
    e["expected"] = it.expected;
    e["matches"] = verdict_matches(it.expected, e["result"], e["integrity"]);
  }
  return e;
}

std::string reason_ids(const json& v) {
  std::set<std::string> ids;
  for (const auto& f : v.value("deciding", json::array())) ids.insert(f.value("id", ""));
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

}  // namespace

bool gpu_available() {
  FILE* p = popen("nvidia-smi -L 2>/dev/null", "r");
  if (!p) return false;
  char buf[256];
  std::string out;
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int rc = pclose(p);
  return rc == 0 && out.find("GPU ") != std::string::npos;
}

std::vector<AuditItem> items_from_paths(const std::vector<std::string>& paths,
                                        const std::optional<fs::path>& problem) {
  std::vector<AuditItem> items;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      if (fs::exists(fs::path(p) / "solution.py")) {
        items.push_back({fs::path(p) / "solution.py", problem, nullptr, ""});
        continue;
      }
      std::vector<fs::path> found;
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().extension() == ".py") found.push_back(e.path());
      std::sort(found.begin(), found.end());
      for (const auto& f : found) items.push_back({f, problem, nullptr, ""});
    } else if (fs::exists(p)) {
      items.push_back({p, problem, nullptr, ""});
    } else {
      throw std::runtime_error("no such submission: " + p);
    }
  }
  assign_keys(items);
  return items;
}

std::vector<AuditItem> items_from_manifest(const fs::path& manifest) {
  const auto doc = read_json(manifest);
  if (!doc || !doc->contains("entries") || !(*doc)["entries"].is_array())
    throw std::runtime_error(manifest.string() + " is not a manifest (a JSON object with an entries array)");
  std::vector<AuditItem> items;
  for (const auto& e : (*doc)["entries"]) {
    if (!e.contains("path") || !e["path"].is_string())
      throw std::runtime_error(manifest.string() + ": an entry has no path");
    AuditItem it{e["path"].get<std::string>(), std::nullopt, nullptr, ""};
    if (e.contains("problem") && e["problem"].is_string()) it.problem = e["problem"].get<std::string>();
    if (e.contains("result") || e.contains("integrity"))
      it.expected = {{"result", e.value("result", "")}, {"integrity", e.value("integrity", "")}};
    items.push_back(std::move(it));
  }
  assign_keys(items);
  return items;
}

json run_audit(const std::vector<AuditItem>& items, const AuditOptions& o) {
  fs::create_directories(o.out_dir);
  std::string device = o.device;
  const bool have_gpu = device == "none" || device == "cpu" ? false : gpu_available();
  if (device == "auto") {
    device = have_gpu ? "cuda" : "cpu";
    if (!have_gpu && !o.quiet)
      std::cerr << "kaudit audit: no GPU here: static analysis for every submission, CPU runs for pure-PyTorch "
                   "ones; the rest are marked not-run, never clean\n";
  }

  // Problems are loaded once each; a broken problem folder fails the batch early.
  std::map<fs::path, rules::Problem> problems;
  for (const auto& it : items)
    if (it.problem && !problems.count(*it.problem)) problems.emplace(*it.problem, rules::load_problem(*it.problem));
  auto problem_of = [&](const AuditItem& it) -> std::optional<rules::Problem> {
    if (!it.problem) return std::nullopt;
    return problems.at(*it.problem);
  };

  // Stage 1, in order: the submission's record and its static analysis.
#ifdef KAUDIT_HAVE_ANALYZER
  std::map<std::string, std::unique_ptr<analyzer::Analyzer>> analyzers;
#endif
  for (const auto& it : items) {
    const fs::path dir = o.out_dir / it.key;
    fs::create_directories(dir);
    json record = {{"schema", "kaudit-submission/1"},
                   {"path", it.source.string()},
                   {"problem_dir", it.problem ? json(it.problem->string()) : json(nullptr)},
                   {"expected", it.expected}};
    write_json(dir / "submission.json", record);
#ifdef KAUDIT_HAVE_ANALYZER
    if (o.force || !fs::exists(dir / "analysis.json")) {
      const std::string pkey = it.problem ? it.problem->string() : "";
      auto& an = analyzers[pkey];
      if (!an) {
        analyzer::AnalyzerOptions ao;
        ao.problem = problem_of(it);
        an = std::make_unique<analyzer::Analyzer>(std::move(ao));
      }
      const auto start = std::chrono::steady_clock::now();
      analyzer::FileReport r{it.source.string(), an->analyze_file(it.source), 0};
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      write_json(dir / "analysis.json",
                 analyzer::render_json({r}, {an->rules().name, it.problem ? problem_of(it)->name : ""}));
    }
#endif
  }

  // Stage 2: runs (in parallel with --jobs) and verdicts. Jobs on one device
  // take turns at it (RunOptions::device_turns).
  const int jobs = std::max(1, std::min<int>(o.jobs, static_cast<int>(items.size())));
  std::map<std::string, std::shared_ptr<DeviceTurns>> device_turns;
  auto device_of = [&](int worker_index) { return o.gpus.empty() ? std::string() : o.gpus[worker_index % o.gpus.size()]; };
  if (jobs > 1)
    for (int w = 0; w < jobs; ++w) device_turns.try_emplace(device_of(w), std::make_shared<DeviceTurns>());
  std::vector<json> entries(items.size());
  std::mutex print_mutex;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  auto worker = [&](int worker_index) {
    for (size_t i = next++; i < items.size(); i = next++) {
      const AuditItem& it = items[i];
      const fs::path dir = o.out_dir / it.key;
      const auto start = std::chrono::steady_clock::now();
      std::string status = "done";
      json verdict;
      const bool runnable = it.problem && it.source.extension() == ".py" && device != "none" &&
                            (device == "cuda" || !needs_gpu(it.source));
      const auto old = read_json(dir / "verdict.json");
      // Resuming keeps what was decided; what was not run before is run now
      // when it can be (a static-only batch finished on a GPU machine).
      const bool old_not_run = old && old->value("result", "") == "not-run";
      if (old && !o.force && !(old_not_run && runnable && !fs::exists(dir / "run.json"))) {
        verdict = *old;
        status = old_not_run ? "not-run" : "done";
      } else {
        if (runnable && (o.force || !fs::exists(dir / "run.json"))) {
          RunOptions ro;
          ro.problem = *it.problem;
          ro.solution = it.source;
          ro.device = device;
          ro.trace = o.trace && device == "cuda";
          ro.python = o.python;
          ro.trials = o.trials;
          if (!o.gpus.empty()) ro.env["CUDA_VISIBLE_DEVICES"] = device_of(worker_index);
          if (const auto turns = device_turns.find(device_of(worker_index)); turns != device_turns.end())
            ro.device_turns = turns->second;
          ro.trace_output = dir;
          try {
            write_json(dir / "run.json", run_submission(ro));
          } catch (const std::exception& e) {
            status = "failed";
            std::lock_guard<std::mutex> lock(print_mutex);
            std::cerr << "kaudit audit: " << it.key << ": the run could not start: " << e.what() << "\n";
          }
        } else if (!runnable) {
          status = "not-run";
        }
        try {
          verdict = verdict_in(dir, read_json(dir / "submission.json").value_or(json::object()));
        } catch (const std::exception& e) {
          status = "failed";
          verdict = {{"result", "not-run"}, {"integrity", "not-run"}};
          std::lock_guard<std::mutex> lock(print_mutex);
          std::cerr << "kaudit audit: " << it.key << ": no verdict: " << e.what() << "\n";
        }
      }
      const double secs =
          seconds_of(dir, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      entries[i] = summary_entry(it, verdict, status, secs);
      const size_t n = ++done;
      if (!o.quiet) {
        std::lock_guard<std::mutex> lock(print_mutex);
        std::cout << "[" << n << "/" << items.size() << "] " << it.key << ": " << entries[i]["result"].get<std::string>()
                  << ", " << entries[i]["integrity"].get<std::string>();
        if (const std::string ids = reason_ids(verdict); !ids.empty()) std::cout << " (" << ids << ")";
        if (entries[i].contains("matches") && !entries[i]["matches"].get<bool>())
          std::cout << "  [expected " << it.expected.value("result", "") << ", " << it.expected.value("integrity", "") << "]";
        std::cout << "  " << static_cast<int>(secs * 10) / 10.0 << " s" << std::endl;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w < jobs; ++w) threads.emplace_back(worker, w);
  worker(0);
  for (auto& t : threads) t.join();

  json counts = {{"clean", 0}, {"benchmark-aware", 0}, {"cheat", 0}, {"not-run", 0}, {"unverified", 0}};
  int matched = 0, with_expectation = 0;
  for (const auto& e : entries) {
    counts[e["integrity"].get<std::string>()] = counts.value(e["integrity"].get<std::string>(), 0) + 1;
    if (e.contains("matches")) {
      ++with_expectation;
      matched += e["matches"].get<bool>();
    }
  }
  json summary = {{"schema", kAuditSchema},
                  {"kaudit_version", "0.1.0"},
                  {"root", fs::current_path().string()},  // where relative submission paths start
                  {"device", device},
                  {"gpu", gpu_of_batch(o.out_dir, entries, have_gpu)},
                  {"counts", counts},
                  {"submissions", entries}};
  if (with_expectation) summary["expectations"] = {{"matched", matched}, {"of", with_expectation}};
  write_json(o.out_dir / "summary.json", summary);
#ifdef KAUDIT_HAVE_REPORT
  report::write_reports(o.out_dir);
#endif
  return summary;
}

json recompute_verdicts(const fs::path& dir) {
  if (!fs::exists(dir / "summary.json")) {
    const auto record = read_json(dir / "submission.json");
    json sub = record.value_or(json::object());
    if (!record) sub["path"] = dir.filename().string();
    return verdict_in(dir, sub);
  }
  json summary = *read_json(dir / "summary.json");
  json counts = {{"clean", 0}, {"benchmark-aware", 0}, {"cheat", 0}, {"not-run", 0}, {"unverified", 0}};
  for (auto& e : summary["submissions"]) {
    const fs::path sub_dir = dir / e.value("key", "");
    const json v = verdict_in(sub_dir, read_json(sub_dir / "submission.json").value_or(json::object()));
    e["result"] = v["result"];
    e["integrity"] = v["integrity"];
    e["seconds"] = seconds_of(sub_dir, e.value("seconds", 0.0));
    if (e.contains("expected"))
      e["matches"] = verdict_matches(e["expected"], v["result"], v["integrity"]);
    counts[v["integrity"].get<std::string>()] = counts.value(v["integrity"].get<std::string>(), 0) + 1;
  }
  summary["counts"] = counts;
  summary["gpu"] = gpu_of_batch(dir, summary["submissions"], summary.value("gpu", json()).is_string());
  write_json(dir / "summary.json", summary);
#ifdef KAUDIT_HAVE_REPORT
  report::write_reports(dir);
#endif
  return summary;
}

}  // namespace kaudit::runner
