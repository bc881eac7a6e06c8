#include "audit/audit.h"

#include "audit/batch_folder.h"
#include "audit/finding_catalog.h"
#include "audit/interrupt.h"
#include "audit/job_pool.h"
#include "audit/progress.h"
#include "audit/submission_audit.h"
#include "evidence/json_file.h"
#include "evidence/schemas.h"
#include "kaudit/version.h"
#include "report/ci_outputs.h"
#include "report/report.h"
#include "common/utf8.h"
#include "runner/process/child_process.h"
#include "runner/process/sandbox.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace kaudit::audit {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The batch's shared plan: the device resolved, every problem loaded once
// (a broken problem folder fails the batch early) with its rules.
BatchPlan make_batch_plan(const std::vector<AuditItem>& items, const AuditOptions& o, bool have_gpu) {
  BatchPlan plan;
  plan.out_dir = o.out_dir;
  plan.device = o.device == "auto" ? (have_gpu ? "cuda" : "cpu") : o.device;
  plan.force = o.force;
  plan.trace = o.trace;
  plan.python = o.python;
  plan.trials = o.trials;
  if (o.shapes != "all" && o.shapes != "smallest")
    throw std::runtime_error("--shapes must be all or smallest, not '" + o.shapes + "'");
  plan.shapes = o.shapes;
  plan.unsafe_no_sandbox = o.unsafe_no_sandbox;
  plan.max_tasks = o.max_tasks;
  plan.min_free_bytes = static_cast<std::uintmax_t>(o.min_free_gib * 1024.0 * 1024.0 * 1024.0);
  plan.device_memory_gib = o.device_memory_gib;
  plan.min_free_memory_bytes = o.min_free_memory_gib >= 0
                                   ? static_cast<std::uintmax_t>(o.min_free_memory_gib * 1024.0 * 1024.0 * 1024.0)
                                   : total_memory_bytes().value_or(0) / 8;
  // Refused before anything runs: no submission runs unisolated unless asked.
  if (plan.device != "none" && !o.unsafe_no_sandbox && !run::sandbox_support().available)
    throw std::runtime_error("cannot isolate submissions: " + run::sandbox_support().why_not +
                             ". Install bubblewrap, or pass --unsafe-no-sandbox to run them as your own user");
  for (const auto& it : items) {
    if (!it.problem || plan.problems.count(*it.problem)) continue;
    const rules::Problem& p = plan.problems.emplace(*it.problem, rules::load_problem(*it.problem)).first->second;
    plan.packs.emplace(*it.problem, rules::rule_pack_for_problem(p));
  }
  return plan;
}

std::string reason_ids(const json& v) {
  std::set<std::string> ids;
  for (const auto& f : v.value("deciding", json::array())) ids.insert(f.value("id", ""));
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

json summary_entry(const AuditItem& it, const SubmissionOutcome& out) {
  json e = {{"key", it.key},
            {"path", it.source.string()},
            {"problem", it.problem ? json(it.problem->filename().string()) : json(nullptr)},
            {"result", out.verdict.value("result", "not-run")},
            {"integrity", out.verdict.value("integrity", "not-run")},
            {"status", out.status},
            {"seconds", out.seconds}};
  if (!it.expected.is_null()) {
    e["expected"] = it.expected;
    e["matches"] = verdict_matches(it.expected, e["result"], e["integrity"]);
  }
  return e;
}

void print_progress(const AuditItem& it, const SubmissionOutcome& out, const json& entry, std::size_t n,
                    std::size_t total) {
  std::cout << "[" << n << "/" << total << "] " << it.key << ": " << entry["result"].get<std::string>() << ", "
            << entry["integrity"].get<std::string>();
  if (const std::string ids = reason_ids(out.verdict); !ids.empty()) std::cout << " (" << ids << ")";
  if (entry.contains("matches") && !entry["matches"].get<bool>())
    std::cout << "  [expected " << it.expected.value("result", "") << ", " << it.expected.value("integrity", "") << "]";
  std::cout << "  " << static_cast<int>(out.seconds * 10) / 10.0 << " s" << std::endl;
}

// Live lines for the runs in progress where a person watches: stdout is a
// terminal that can move its cursor (not TERM=dumb).
bool live_progress() {
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) && !(term && std::string(term) == "dumb");
}

// Each GPU's memory shared by the runs on it (audit/device_memory.h), told
// what the batch's runs kept from earlier calls needed.
void share_device_memory(const std::vector<AuditItem>& items, const BatchPlan& plan, std::vector<JobSlot>& slots) {
  if (plan.device != "cuda" || slots.size() < 2 || plan.device_memory_gib == 0) return;
  std::map<std::string, int> jobs_on;
  for (const auto& s : slots) ++jobs_on[s.gpu];
  std::map<std::string, std::shared_ptr<DeviceMemoryBudget>> budgets;
  for (auto& s : slots) {
    if (!budgets.count(s.gpu)) {
      const std::optional<double> total =
          plan.device_memory_gib > 0 ? std::optional<double>(plan.device_memory_gib * 1024) : device_memory_total_mib(s.gpu);
      budgets[s.gpu] = total ? std::make_shared<DeviceMemoryBudget>(*total, jobs_on[s.gpu]) : nullptr;
    }
    s.device_memory = budgets[s.gpu];
  }
  for (const auto& item : items) {
    if (!item.problem) continue;
    std::optional<json> doc;
    try {
      doc = evidence::read_json_file(plan.out_dir / item.key / "run.json");
    } catch (const std::exception&) {  // unreadable: nothing learned from it
    }
    if (const auto need = doc ? run_need_mib(*doc) : std::nullopt)
      for (auto& [gpu, budget] : budgets)
        if (budget) budget->learn(problem_key(*item.problem), *need);
  }
}

// Stage 2: runs (in parallel with --jobs) and verdicts. Jobs on one device
// take turns at it (run::RunOptions::device_turns).
std::vector<json> run_jobs(const std::vector<AuditItem>& items, const std::vector<std::optional<StaticEvidence>>& analyses,
                           const BatchPlan& plan, const AuditOptions& o) {
  const int jobs = std::max(1, std::min<int>(o.jobs, static_cast<int>(items.size())));
  std::vector<JobSlot> slots(static_cast<std::size_t>(jobs));
  std::map<std::string, std::shared_ptr<run::DeviceTurns>> turns;
  const auto gate = jobs > 1 ? std::make_shared<BatchGate>() : nullptr;
  for (int w = 0; w < jobs; ++w) {
    JobSlot& s = slots[static_cast<std::size_t>(w)];
    s.gpu = o.gpus.empty() ? std::string() : o.gpus[static_cast<std::size_t>(w) % o.gpus.size()];
    s.gate = gate;
    if (jobs > 1) {
      auto& t = turns[s.gpu];
      if (!t) t = std::make_shared<run::DeviceTurns>();
      s.device_turns = t;
    }
  }
  share_device_memory(items, plan, slots);
  std::vector<json> entries(items.size());
  std::mutex print_mutex;
  RunningBoard board(items.size());  // under print_mutex
  for (auto& s : slots)
    s.on_phase = [&](const std::string& key, const std::string& step) {
      std::lock_guard<std::mutex> lock(print_mutex);
      board.phase(key, step);
    };
  std::atomic<size_t> done{0};
  JobPool pool;
  for (int w = 0; w < jobs; ++w) slots[static_cast<std::size_t>(w)].lend_place = [&pool, w] { pool.lend(w); };
  auto work = [&](size_t i, int w) {
    {
      std::lock_guard<std::mutex> lock(print_mutex);
      board.started(items[i].key, RunningBoard::Clock::now());
    }
    const SubmissionOutcome out = audit_submission(items[i], analyses[i], plan, slots[static_cast<std::size_t>(w)]);
    if (const auto& budget = slots[static_cast<std::size_t>(w)].device_memory) budget->drop_kept(items[i].key);
    std::lock_guard<std::mutex> lock(print_mutex);
    board.finished(items[i].key);
    std::cout << board.erase_live();  // the finished line goes above the live block (a terminal)
    if (out.status == "interrupted") return;  // nothing of it was written: the next audit runs it
    entries[i] = summary_entry(items[i], out);
    const size_t n = ++done;
    if (!out.error.empty()) std::cerr << "kaudit audit: " << items[i].key << ": " << out.error << "\n";
    if (!o.quiet) print_progress(items[i], out, entries[i], n, items.size());
    board.spoke(RunningBoard::Clock::now());
  };
  // An item whose run would wait for room on its device goes after later
  // ones that fit now (audit/job_pool.h).
  std::vector<std::string> problem_keys;
  for (const auto& item : items) problem_keys.push_back(item.problem ? problem_key(*item.problem) : std::string());
  // The room is reserved as the item is taken, so that the workers taking
  // items at the same moment (the first wave) see it.
  const JobPool::Ready fits_now = [&](std::size_t i, int w) {
    const auto& budget = slots[static_cast<std::size_t>(w)].device_memory;
    return !budget || problem_keys[i].empty() || budget->admit_now_for(items[i].key, problem_keys[i]);
  };
  Heartbeat heartbeat(o.quiet ? 0 : o.heartbeat_s, board, print_mutex, live_progress());
  pool.run(items.size(), jobs, work, [] { return run::children_interrupted(); }, fits_now);
  return entries;
}

json count_integrity(const json& entries) {
  json counts = {{"clean", 0}, {"benchmark-aware", 0}, {"cheat", 0}, {"not-run", 0}, {"unverified", 0}};
  for (const auto& e : entries)
    counts[e["integrity"].get<std::string>()] = counts.value(e["integrity"].get<std::string>(), 0) + 1;
  // Not an integrity: runs the machine made fail (audit/environment.h).
  counts["infrastructure-error"] = 0;
  for (const auto& e : entries)
    if (e.value("result", "") == "infrastructure-error")
      counts["infrastructure-error"] = counts["infrastructure-error"].get<int>() + 1;
  return counts;
}

// What the header of the reports names: the GPU the runs ran on (from the
// first CUDA run.json), else "available" when this audit saw one, else null.
json gpu_of_batch(const fs::path& out_dir, const json& entries, bool gpu_here) {
  for (const auto& e : entries) {
    const auto run_doc = evidence::read_json_file(out_dir / e.value("key", "") / "run.json");
    if (run_doc && run_doc->value("device", "") == "cuda") {
      const std::string name = run_doc->value("environment", json::object()).value("gpu", "");
      if (!name.empty()) return name;
    }
  }
  return gpu_here ? json("available") : json(nullptr);
}

// A shard resumes only its own folder: one that holds another shard, or a
// shard of other inputs, would end with a summary that drops what it held.
void check_shard_folder(const fs::path& out_dir, const json& shard) {
  const auto old = evidence::read_json_file(out_dir / "summary.json");
  if (!old || !old->is_object() || !old->contains("shard") || !(*old)["shard"].is_object()) return;
  const json& was = (*old)["shard"];
  const bool same = was.value("index", -1) == shard["index"] && was.value("count", -1) == shard["count"] &&
                    was.value("inputs", json::object()).value("digest", std::string()) == shard["inputs"].value("digest", std::string());
  if (!same)
    throw std::runtime_error(out_dir.string() + " holds shard " + std::to_string(was.value("index", -1)) + "/" +
                             std::to_string(was.value("count", -1)) + " of inputs " +
                             was.value("inputs", json::object()).value("digest", "?") + ", not shard " +
                             common::json_text(shard["index"]) + "/" + common::json_text(shard["count"]) + " of " +
                             shard["inputs"]["digest"].get<std::string>() + ": give each shard its own folder");
}

// Refuses a folder that holds another batch (unless --force), then records
// this batch's inputs in it (audit/batch_folder.h).
void record_batch(const std::vector<AuditItem>& items, const BatchPlan& plan, const AuditOptions& o) {
  std::optional<RunSettings> runs;
  if (plan.device != "none") runs = RunSettings{plan.device, plan.trials, plan.trace, !plan.unsafe_no_sandbox};
  const json inputs = recorded_inputs(items, runs);
  if (!o.force) check_same_batch(o.out_dir, inputs);
  write_recorded_inputs(o.out_dir, inputs);
}

[[noreturn]] void stop_interrupted(int signal, const json& entries, std::size_t total) {
  std::size_t kept = 0;
  for (const auto& e : entries) kept += e.is_object();
  throw AuditInterrupted(signal, std::string("interrupted by SIG") + sigabbrev_np(signal) + ": " +
                                     std::to_string(kept) + " of " + std::to_string(total) +
                                     " submission(s) decided and kept; the runs were stopped and their workspaces "
                                     "removed; audit the batch again (the same command) to resume it");
}

// What SARIF rules say of an id: the catalog's first producer of it.
evidence::RuleInfo catalog_rule_info() {
  return [](const std::string& id) -> const rules::FindingInfo* {
    const rules::CatalogEntry* e = finding_catalog().find(id);
    return e ? &e->first() : nullptr;
  };
}

}  // namespace

const std::set<std::string>& fail_on_outcomes() {
  static const std::set<std::string> all = {"cheat",     "benchmark-aware", "unverified",          "not-run",
                                            "incorrect", "error",           "infrastructure-error"};
  return all;
}

bool any_fails(const json& summary, const std::set<std::string>& fail_on) {
  if (!summary.contains("submissions")) return false;
  for (const auto& e : summary["submissions"])
    if (fail_on.count(e.value("integrity", "")) || fail_on.count(e.value("result", ""))) return true;
  return false;
}

std::set<std::string> parse_fail_on(const std::string& list) {
  std::set<std::string> fail_on;
  std::stringstream names(list);
  for (std::string f; std::getline(names, f, ',');) {
    if (f.empty()) continue;
    if (!fail_on_outcomes().count(f))
      throw std::invalid_argument("--fail-on: '" + f + "' is not a verdict outcome (cheat, benchmark-aware, "
                                  "unverified, not-run, incorrect, error, infrastructure-error)");
    fail_on.insert(f);
  }
  return fail_on;
}

void complete_summary(json& summary, const fs::path& out_dir, bool gpu_here) {
  const json& entries = summary["submissions"];
  int matched = 0, with_expectation = 0;
  for (const auto& e : entries) {
    if (!e.contains("matches")) continue;
    ++with_expectation;
    matched += e["matches"].get<bool>();
  }
  summary["gpu"] = gpu_of_batch(out_dir, entries, gpu_here);
  summary["counts"] = count_integrity(entries);
  summary.erase("expectations");
  if (with_expectation) summary["expectations"] = {{"matched", matched}, {"of", with_expectation}};
}

bool gpu_available() {
  FILE* p = popen("nvidia-smi -L 2>/dev/null", "r");
  if (!p) return false;
  char buf[256];
  std::string out;
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int rc = pclose(p);
  return rc == 0 && out.find("GPU ") != std::string::npos;
}

json run_audit(const std::vector<AuditItem>& all_items, const AuditOptions& o) {
  const std::vector<AuditItem> items = o.shard ? shard_items(all_items, *o.shard) : all_items;
  json shard_record;
  if (o.shard) {
    shard_record = {{"index", o.shard->index}, {"count", o.shard->count}, {"inputs", batch_inputs(all_items)}};
    check_shard_folder(o.out_dir, shard_record);
  }
  fs::create_directories(o.out_dir);
  const BatchLock lock(o.out_dir);  // one audit at a time writes a batch folder
  const bool have_gpu = o.device == "none" || o.device == "cpu" ? false : gpu_available();
  if (o.device == "auto" && !have_gpu && !o.quiet)
    std::cerr << "kaudit audit: no GPU here: static analysis for every submission, CPU runs for pure-PyTorch "
                 "ones; the rest are marked not-run, never clean\n";
  const BatchPlan plan = make_batch_plan(items, o, have_gpu);
  record_batch(items, plan, o);

  // Ctrl-C and SIGTERM from here on stop the runs and keep what was decided.
  const SignalWatch signals;
  // Stage 1, in order: the submission's record and its static analysis.
  std::vector<std::optional<StaticEvidence>> analyses;
  StaticStage static_stage(plan);
  for (std::size_t i = 0; i < items.size() && !signals.signal(); ++i)
    analyses.push_back(static_stage.analyze(items[i]));
  const json entries = signals.signal() ? json::array() : json(run_jobs(items, analyses, plan, o));
  if (signals.signal()) stop_interrupted(signals.signal(), entries, items.size());

  json summary = {{"schema", evidence::kAuditSchema},
                  {"kaudit_version", kaudit::kVersion},
                  {"root", fs::current_path().string()},  // where relative submission paths start
                  {"device", plan.device},
                  {"submissions", entries}};
  if (o.shard) summary["shard"] = shard_record;
  complete_summary(summary, o.out_dir, have_gpu);
  evidence::write_json_file(o.out_dir / "summary.json", summary);
  report::write_reports(o.out_dir);
  report::write_ci_outputs(o.out_dir, {o.sarif, o.junit, kaudit::kVersion}, catalog_rule_info());
  return summary;
}

json recompute_verdicts(const fs::path& dir) {
  if (!fs::exists(dir / "summary.json")) return verdict_from_folder(dir);
  const BatchLock lock(dir);
  const evidence::JsonDocument read = evidence::read_json_document(dir / "summary.json");
  if (read.status != evidence::JsonDocument::ok || !read.doc.is_object() || !read.doc.contains("submissions") ||
      !read.doc["submissions"].is_array())
    throw std::runtime_error((dir / "summary.json").string() + " " +
                             (read.error.empty() ? std::string("lists no submissions") : read.error) +
                             ": nothing was changed (kaudit audit of the batch's inputs into this folder writes it "
                             "again from the evidence folders)");
  json summary = read.doc;
  for (auto& e : summary["submissions"]) {
    const fs::path sub_dir = dir / e.value("key", "");
    const json v = verdict_from_folder(sub_dir);
    e["result"] = v["result"];
    e["integrity"] = v["integrity"];
    const auto run_doc = evidence::read_json_file(sub_dir / "run.json");
    if (run_doc && run_doc->contains("seconds") && (*run_doc)["seconds"].is_number()) e["seconds"] = (*run_doc)["seconds"];
    if (e.contains("expected")) e["matches"] = verdict_matches(e["expected"], v["result"], v["integrity"]);
  }
  complete_summary(summary, dir, summary.value("gpu", json()).is_string());
  evidence::write_json_file(dir / "summary.json", summary);
  report::write_reports(dir);
  return summary;
}

}  // namespace kaudit::audit
