#include "audit/submission_audit.h"

#include "audit/environment.h"

#include "evidence/json_file.h"
#include "evidence/schemas.h"
#include "evidence/verdict_document.h"
#include "runner/process/child_process.h"
#include "runner/session/run.h"
#include "runner/plan/run_result.h"

#ifdef KAUDIT_HAVE_ANALYZER
#include "analyzer/analyzer.h"
#include "analyzer/report.h"
#endif

#include <chrono>

namespace kaudit::audit {
namespace fs = std::filesystem;
using json = nlohmann::json;

const rules::Problem* BatchPlan::problem_of(const AuditItem& item) const {
  if (!item.problem) return nullptr;
  const auto it = problems.find(*item.problem);
  return it == problems.end() ? nullptr : &it->second;
}

const rules::RulePack& BatchPlan::pack_of(const AuditItem& item) const {
  static const rules::RulePack fallback = rules::default_rule_pack();
  if (!item.problem) return fallback;
  const auto it = packs.find(*item.problem);
  return it == packs.end() ? fallback : it->second;
}

namespace {

// Submissions that need a GPU toolchain cannot run in CPU mode; only
// pure-PyTorch ones do (DESIGN.md, runner, --device cpu). The analysis says
// which toolchains a submission imports or calls; without that (an analysis
// made by an older kaudit, or none at all) any marker in the text counts.
bool needs_gpu(const fs::path& source, const std::optional<StaticEvidence>& analysis) {
  if (analysis && analysis->gpu_toolchains) return !analysis->gpu_toolchains->empty();
  const std::string text = evidence::read_text_file(source);
  for (const char* marker : {"triton", "load_inline", "cpp_extension", "cupy", "RawKernel", "nvrtc", "numba", "ctypes"})
    if (text.find(marker) != std::string::npos) return true;
  return false;
}

// A saved analysis.json read back (resuming a batch, or one made elsewhere).
StaticEvidence static_evidence_of(const json& doc) {
  StaticEvidence e;
  try {
    e.findings = evidence::analysis_findings(doc);
    const json files = doc.value("files", json::array());
    if (files.is_array() && files.size() == 1 && files[0].is_object() && files[0].contains("gpu_toolchains"))
      e.gpu_toolchains = files[0]["gpu_toolchains"].get<std::vector<std::string>>();
  } catch (const std::exception& ex) {
    e.unreadable = std::string("analysis.json: ") + ex.what();
  }
  return e;
}

// What the verdict reads of a run: made now, or saved by an earlier audit.
struct RunEvidence {
  rules::RunFacts facts;
  std::vector<evidence::ShapeTiming> timing;
  std::optional<double> seconds;
};

// A corrupt run.json is an `error` run that says so (evidence::read_saved_run).
std::optional<RunEvidence> saved_run(const fs::path& path) {
  auto saved = evidence::read_saved_run(path);
  if (!saved) return std::nullopt;
  const json& doc = saved->doc;
  RunEvidence r{std::move(saved->facts), evidence::timing_of(doc.is_object() ? &doc : nullptr), std::nullopt};
  if (doc.is_object() && doc.contains("seconds") && doc["seconds"].is_number())
    r.seconds = doc["seconds"].get<double>();
  return r;
}

run::RunOptions run_options(const AuditItem& item, const BatchPlan& plan, const JobSlot& slot) {
  run::RunOptions ro;
  ro.problem = *item.problem;
  ro.solution = item.source;
  ro.device = plan.device;
  ro.trace = plan.trace && plan.device == "cuda";
  ro.python = plan.python;
  ro.trials = plan.trials;
  ro.shapes = plan.shapes;
  ro.unsafe_no_sandbox = plan.unsafe_no_sandbox;
  ro.max_tasks = plan.max_tasks;
  if (!slot.gpu.empty()) ro.env["CUDA_VISIBLE_DEVICES"] = slot.gpu;
  ro.device_turns = slot.device_turns;
  ro.trace_output = plan.out_dir / item.key;
  if (slot.on_phase) ro.on_phase = [tell = slot.on_phase, key = item.key](const std::string& step) { tell(key, step); };
  return ro;
}

}  // namespace

// The analyzers by problem folder ("" without a problem); empty where the analyzer is not built.
struct StaticStage::Analyzers {
#ifdef KAUDIT_HAVE_ANALYZER
  std::map<std::string, std::unique_ptr<analyzer::Analyzer>> by_problem;
#endif
};

StaticStage::StaticStage(const BatchPlan& plan) : plan_(plan), analyzers_(std::make_unique<Analyzers>()) {}
StaticStage::~StaticStage() = default;

std::optional<StaticEvidence> StaticStage::analyze(const AuditItem& item) {
  const fs::path dir = plan_.out_dir / item.key;
  fs::create_directories(dir);
  evidence::write_json_file(dir / "submission.json",
                            {{"schema", evidence::kSubmissionSchema},
                             {"path", item.source.string()},
                             {"problem_dir", item.problem ? json(item.problem->string()) : json(nullptr)},
                             {"expected", item.expected}});
#ifdef KAUDIT_HAVE_ANALYZER
  // A saved analysis that cannot be read is made again: it costs little.
  if (plan_.force || evidence::read_json_document(dir / "analysis.json").status != evidence::JsonDocument::ok) {
    const rules::Problem* problem = plan_.problem_of(item);
    auto& slot = analyzers_->by_problem[item.problem ? item.problem->string() : ""];
    if (!slot) {
      analyzer::AnalyzerOptions ao;
      if (problem) ao.problem = *problem;
      slot = std::make_unique<analyzer::Analyzer>(std::move(ao));
    }
    const analyzer::Analyzer& an = *slot;
    const analyzer::FileReport report = analyzer::report_file(an, item.source);
    evidence::write_json_file(dir / "analysis.json",
                              analyzer::render_json({report}, {an.rules().name, problem ? problem->name : ""}));
    return StaticEvidence{report.findings, report.gpu_toolchains, ""};
  }
#endif
  const evidence::JsonDocument doc = evidence::read_json_document(dir / "analysis.json");
  if (doc.status == evidence::JsonDocument::missing) return std::nullopt;
  if (doc.status == evidence::JsonDocument::corrupt)
    return StaticEvidence{{}, std::nullopt, "analysis.json " + doc.error};
  return static_evidence_of(doc.doc);
}

// What a run stopped by SIGINT or SIGTERM had reached (interrupted.json):
// no evidence, and not resumed (docs/audit.md, "Interrupting a batch"), but
// it says where a stopped batch's time went and which phase each run in
// flight was in (a first call on its build's budget, say).
static json interrupted_record(const run::RunResult& r) {
  // The runner's own steps after the kill (a comparison of nothing) are the
  // run unwinding: it stopped in a step of a child's. The two children's
  // steps overlap (began_s): it stopped in the submission's last step,
  // unless one of the reference's began once that had ended (its inputs
  // while the submission waited for them, its last expected outputs); the
  // reference's work beside the submission's calls is not where it stopped.
  const evidence::RunPhase *submission = nullptr, *reference = nullptr;
  for (const auto& p : r.phases) {
    if (p.process == "submission") submission = &p;
    if (p.process == "reference") reference = &p;
  }
  const evidence::RunPhase* at = submission;
  if (!at || (reference && reference->began_s && submission->began_s &&
              *reference->began_s >= *submission->began_s + submission->seconds))
    at = reference;
  const json stopped_in = at ? evidence::to_json(*at) : json(nullptr);
  json record = {{"schema", "kaudit-interrupted/1"},
                 {"seconds", r.seconds},
                 {"stopped_in", stopped_in},
                 {"phases", evidence::to_json(r.phases)},
                 {"first_calls", evidence::to_json(r.first_calls)}};
  // A run stopped while it was to be made again alone: why (audit/environment.h).
  if (r.environment_retry) record["environment_retry"] = evidence::to_json(*r.environment_retry);
  return record;
}

// Room on the device for a run of the item's problem beside the others
// (audit/device_memory.h): what was kept for it when its worker took it, or
// waited for; the progress line says when it has to wait.
static DeviceMemoryBudget::Reservation reserve_device_memory(const AuditItem& item, const JobSlot& slot) {
  if (!slot.device_memory || !item.problem) return {};
  return slot.device_memory->admit(
      problem_key(*item.problem), [] { return run::children_interrupted(); },
      [&](double need_mib) {
        char text[96];
        std::snprintf(text, sizeof text, "waiting for device memory (needs %.1f GiB beside the runs under way)",
                      need_mib / 1024);
        if (slot.on_phase) slot.on_phase(item.key, text);
      },
      item.key);
}

// The run of a submission that can run and has none saved (or --force, or
// `redo`: the saved one failed for the environment): made now and written
// as run.json; else the saved one, if any.
std::optional<RunEvidence> run_evidence(const AuditItem& item, const BatchPlan& plan, const JobSlot& slot,
                                        bool runnable, bool redo, SubmissionOutcome& out) {
  const fs::path path = plan.out_dir / item.key / "run.json";
  if (!runnable || (!plan.force && !redo && fs::exists(path))) return saved_run(path);
  try {
    // A run that could not even start for the machine's sake (no space for
    // its workspace...) is retried like one that failed for it.
    // The retry alone has the device to itself: its reference computes the
    // expected outputs only once the submission is done.
    int attempts = 0;
    const auto attempt = [&] {
      try {
        const DeviceMemoryBudget::Reservation room = reserve_device_memory(item, slot);
        run::RunOptions options = run_options(item, plan, slot);
        options.expected_beside = ++attempts == 1;
        run::RunResult r = run::run_protocol(options);
        if (slot.device_memory && item.problem)
          if (const auto need = run_need_mib(r.device_memory)) slot.device_memory->learn(problem_key(*item.problem), *need);
        return r;
      } catch (const std::exception& e) {
        if (!environment_cause(e.what(), false)) throw;
        run::RunResult r;
        r.set_error("start", std::string("the run could not start: ") + e.what());
        return r;
      }
    };
    GuardSettings guard{workspace_root(), plan.min_free_bytes, slot.device_turns != nullptr};
    guard.min_free_memory_bytes = plan.min_free_memory_bytes;
    guard.on_retry_wait = [&](const std::string& cause) {
      if (slot.on_phase) slot.on_phase(item.key, "failed for the machine (" + cause + "): to run again alone at the end");
      if (slot.lend_place) slot.lend_place();
    };
    const run::RunResult result = run_guarded(attempt, slot.gate.get(), guard);
    if (run::children_interrupted()) {  // its children were killed: nothing of it is evidence
      out.status = "interrupted";
      try {
        evidence::write_json_file(path.parent_path() / "interrupted.json", interrupted_record(result));
      } catch (const std::exception&) {  // a record of where it stopped, not evidence: the audit stops anyway
      }
      return std::nullopt;
    }
    evidence::write_json_file(path, result.to_json());
    fs::remove(path.parent_path() / "interrupted.json");
    return RunEvidence{result.facts(), result.timing, result.seconds};
  } catch (const std::exception& e) {
    out.status = run::children_interrupted() ? "interrupted" : "failed";
    out.error = std::string("the run could not start: ") + e.what();
    return std::nullopt;
  }
}

SubmissionOutcome audit_submission(const AuditItem& item, const std::optional<StaticEvidence>& analysis,
                                   const BatchPlan& plan, const JobSlot& slot) {
  const fs::path dir = plan.out_dir / item.key;
  const auto start = std::chrono::steady_clock::now();
  SubmissionOutcome out{json(), "done", 0, ""};
  const bool runnable = item.problem && item.source.extension() == ".py" && plan.device != "none" &&
                        (plan.device == "cuda" || !needs_gpu(item.source, analysis));
  const auto old = evidence::read_json_file(dir / "verdict.json");
  // Resuming keeps what was decided; what was not run before is run now
  // when it can be (a static-only batch finished on a GPU machine).
  const bool old_not_run = old && old->value("result", "") == "not-run";
  // A run that failed for the machine is made again when the batch resumes.
  const bool old_infrastructure = old && old->value("result", "") == "infrastructure-error" && runnable;
  std::optional<double> run_seconds;
  if (old && !plan.force && !old_infrastructure && !(old_not_run && runnable && !fs::exists(dir / "run.json"))) {
    out.verdict = *old;
    out.status = old_not_run ? "not-run" : "done";
    try {
      if (const auto saved = saved_run(dir / "run.json")) run_seconds = saved->seconds;
    } catch (const std::exception&) {  // the kept verdict stands; its time is this audit's
    }
  } else {
    if (!runnable) out.status = "not-run";
    try {
      if (analysis && !analysis->unreadable.empty()) throw std::runtime_error(analysis->unreadable);
      const std::optional<RunEvidence> ran = run_evidence(item, plan, slot, runnable, old_infrastructure, out);
      if (out.status == "interrupted") return out;  // no verdict: the next audit runs it
      rules::VerdictInput in{item.source.string(), std::nullopt, std::nullopt};
      if (analysis) in.static_findings = analysis->findings;
      if (ran) in.run = ran->facts;
      out.verdict = evidence::verdict_to_json(rules::decide_verdict(in, plan.pack_of(item).verdict),
                                              ran ? ran->timing : std::vector<evidence::ShapeTiming>{});
      evidence::write_json_file(dir / "verdict.json", out.verdict);
      if (ran) run_seconds = ran->seconds;
    } catch (const std::exception& e) {
      out.status = "failed";
      out.verdict = {{"result", "not-run"}, {"integrity", "not-run"}};
      out.error = std::string("no verdict: ") + e.what();
    }
  }
  // A submission's time: its run's wall time when it was run (also when a
  // resumed batch kept it), else what this audit spent on it.
  out.seconds = run_seconds ? *run_seconds
                            : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

json verdict_from_folder(const fs::path& dir) {
  const auto record = evidence::read_json_file(dir / "submission.json");
  json sub = record.value_or(json::object());
  if (!record) sub["path"] = dir.filename().string();
  const auto analysis = evidence::read_json_file(dir / "analysis.json");
  const auto saved = evidence::read_saved_run(dir / "run.json");  // a corrupt one is an error that says so
  std::optional<rules::Problem> problem;
  if (sub.contains("problem_dir") && sub["problem_dir"].is_string())
    problem = rules::load_problem(sub["problem_dir"].get<std::string>());
  const rules::RulePack pack = problem ? rules::rule_pack_for_problem(*problem) : rules::default_rule_pack();
  rules::VerdictInput in = evidence::verdict_input(sub.value("path", ""), analysis ? &*analysis : nullptr, nullptr);
  if (saved) in.run = saved->facts;
  json v = evidence::verdict_to_json(rules::decide_verdict(in, pack.verdict),
                                     evidence::timing_of(saved && saved->doc.is_object() ? &saved->doc : nullptr));
  evidence::write_json_file(dir / "verdict.json", v);
  return v;
}

}  // namespace kaudit::audit
