// `kaudit run`: the protocol as a sequence of steps over one RunPlan. Each
// step lives in its own file: the two sessions (reference_session.h,
// submission_session.h), the comparisons (compare.h), the timing
// (judge_timing.h) and the trace (attach_trace.h); this file orders them.
#include "runner/session/run.h"

#include "runner/judge/aten_ops.h"
#include "runner/judge/attach_trace.h"
#include "runner/judge/compare.h"
#include "runner/judge/input_probes.h"
#include "runner/judge/judge_timing.h"
#include "runner/judge/output_checks.h"
#include "runner/judge/probe_findings.h"
#include "runner/session/launch.h"
#include "runner/session/reference_session.h"
#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/session/submission_session.h"
#include "runner/process/workspace.h"
#include "common/utf8.h"

#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The problem's files as the submission sees them, hashed before and after.
std::vector<std::string> watched_files(const rules::Problem& problem) {
  std::vector<std::string> watched;
  for (auto& f : rules::problem_files(problem))
    if (f != "solution.py") watched.push_back(std::move(f));
  return watched;
}

void lay_out_workspace(const RunPlan& plan, const Workspace& ws) {
  const std::vector<std::string> files = rules::problem_files(plan.problem);
  copy_problem_files(plan.problem.dir, ws.work(), files);
  copy_problem_files(plan.problem.dir, ws.refwork(), files);
  fs::copy_file(plan.options.solution, ws.work() / "solution.py", fs::copy_options::overwrite_existing);
  fs::create_directories(ws.work() / "tmp");
  fs::create_directories(ws.refwork() / "tmp");
  if (plan.options.trace)
    for (const Role role : {Role::submission, Role::reference}) fs::create_directories(trace_dir_of(ws, role));
}

RunResult start_result(const RunPlan& plan, const Workspace& ws) {
  RunResult r;
  r.problem = {{"name", plan.problem.name}, {"dir", plan.problem.dir.string()}, {"format", plan.format}};
  r.solution = plan.options.solution.string();
  r.device = plan.options.device;
  r.python = plan.python.string();
  r.modes = plan.options.modes;
  r.settings = plan.settings();
  r.isolation = plan.isolation.to_json();
  if (plan.options.keep_temp) r.temp_dir = ws.root().string();
  return r;
}

std::optional<Hardware> hardware_of(const RunPlan& plan, const RunResult& result) {
  const std::string device_name = result.environment.value("gpu", std::string());
  if (plan.options.hardware) return load_hardware(*plan.options.hardware);
  if (!plan.cpu && !device_name.empty()) return find_hardware(device_name);
  return std::nullopt;
}

// The reference's input files, sealed before the submission can reach them.
FileSeal seal_reference_inputs(const ReferenceSession& ref, const Workspace& ws) {
  std::vector<std::string> files;
  for (const auto& [key, entries] : ref.inputs())
    for (const auto& e : entries)
      if (e.contains("file") && e["file"].is_string()) files.push_back(e["file"]);
  for (const auto& [key, about] : ref.probes().cases)  // the conditioning twins (runner/judge/input_probes.h)
    for (const auto& e : about.value("twin", json::array()))
      if (e.contains("file") && e["file"].is_string()) files.push_back(e["file"]);
  return seal_files(ws.xfer(), files);
}

void judge_problem_files(const FileSnapshot& before, const FileSnapshot& after, RunResult& result) {
  result.problem_files = compare_snapshots(before, after);
  for (const auto& f : result.problem_files)
    if (f["status"] != "unchanged")
      result.findings.push_back(make_probe_finding("problem-file-changed", f["path"].get<std::string>(), "",
                                                   "The problem file " + f["path"].get<std::string>() + " was " +
                                                       f["status"].get<std::string>() + " while the submission ran."));
}

// Inputs changed under the reference would make its expected outputs answer
// the submission's question, not the problem's: then nothing is compared.
bool reference_inputs_intact(const Workspace& ws, const FileSeal& seal, RunResult& result) {
  const auto broken = broken_seals(ws.xfer(), seal);
  if (broken.empty()) return true;
  result.findings.push_back(make_probe_finding("problem-file-changed", broken.front(), "",
                                               std::to_string(broken.size()) + " of the reference's input files (first: " +
                                                   broken.front() + ") were changed, replaced or deleted while the "
                                                   "submission ran."));
  result.set_error("reference",
                   "the reference's input files were changed while the submission ran: no expected output can be trusted");
  return false;
}

// A file the submission's process handed over and then changed (its seal,
// taken as the message named it, broken) makes every comparison moot: what
// was compared would not be what the call returned.
bool handed_files_intact(const Workspace& ws, const SubmissionSession& sub, RunResult& result) {
  const auto broken = broken_seals(ws.xfer(), sub.handed_files());
  if (broken.empty()) return true;
  result.findings.push_back(make_probe_finding(
      "harness-tampered", result.solution, "",
      std::to_string(broken.size()) + " of the files the harness handed over (first: " + broken.front() +
          ") were changed, replaced or deleted after the message that named them: code in the submission's "
          "process rewrote what its calls returned."));
  result.set_error("submission", "the submission's output files were changed after the harness handed them over: "
                                 "no comparison can be trusted");
  return false;
}

// A seeded sample or case is checked on inputs the reference drew from its
// seed; where the submission's process drew other inputs from it (its
// fingerprint differs: a generator changed there, by rigging or by global
// settings), its output answers another question: it cannot pass.
void hold_seeded_inputs(const SubmissionReport& report, const std::map<std::string, std::string>& reference_digests,
                        std::map<std::string, json>& expected) {
  auto hold = [&](const std::string& id, const std::string& digest, const std::string& what) {
    const auto ref = reference_digests.find(id);
    if (expected.count(id) && ref != reference_digests.end() && digest != ref->second)
      expected[id] = {{"unverifiable", "the inputs the submission's process drew from this " + what +
                                           "'s seed are not the ones the seed draws in the reference's (their "
                                           "fingerprints differ): the problem's generator was changed in the "
                                           "submission's process"}};
  };
  for (const auto& [key, digest] : report.case_digests)  // correctness cases drawn from their seed
    hold(correctness_case_id(key.first, key.second), digest, "case");
  for (const auto& [key, t] : report.timings)
    for (const auto& s : t.value("samples", json::array()))
      if (s.contains("seed"))
        hold(timed_sample_id(key.first, key.second, s.value("call", 0)), s.value("inputs_digest", std::string()),
             "call");
}

// The reference's jobs asked beside the submission's calls, by id: what is
// left to ask once the submission is done (not_asked).
void ask(ReferenceSession& ref, std::set<std::string>& asked, json jobs) {
  for (const auto& job : jobs) asked.insert(job["id"].get<std::string>());
  ref.queue_expected(std::move(jobs));
}

// The submission's second configuration (its inputs, the calls it makes,
// the probes), written where its process reads it.
json write_submission_stage(const RunPlan& plan, const Workspace& ws, const ReferenceSession& ref, int nshapes,
                            const std::optional<Hardware>& hw, const fs::path& path) {
  const double l2 = hw && hw->l2_bytes > 0 ? hw->l2_bytes : 64.0 * (1 << 20);
  json stage = stage_config(plan, ws, ref.inputs(), ref.habits(), ref.reproducible_shapes(), nshapes, l2);
  std::mt19937_64 rng{std::random_device{}()};
  add_probe_calls(stage, ref.probes(), nshapes, ref.inputs(), rng);
  std::ofstream(path) << common::json_text(stage);
  return stage;
}

using HelperStart = RunOptions::HelperStart;

// The helper's own record: only its phases join the run's, and their began_s
// count from the run's start, as the run's own phases do.
RunResult helper_record(const RunResult& run) {
  RunResult record;
  record.started = run.started;
  return record;
}

// The reference's helper, started where the run has one (RunOptions::reference_helper)
// and this is when it starts (RunOptions::reference_helper_start).
std::unique_ptr<ReferenceSession> start_reference_helper(const RunPlan& plan, const Workspace& ws, bool beside,
                                                         DeviceAccess& device, ReferenceSession& ref,
                                                         RunResult& helper_result, HelperStart now) {
  if (plan.options.reference_helper_start != now) return nullptr;
  const bool wanted = plan.options.reference_helper ? *plan.options.reference_helper && beside
                                                    : beside && !plan.cpu && !device.shared_device();
  if (!wanted) return nullptr;
  auto helper = std::make_unique<ReferenceSession>(plan, ws, helper_result, device, &ref);
  helper->start();
  return helper;
}

// The comparisons, and what is judged from them (the runner's `comparison` phase).
void judge_comparisons(const RunPlan& plan, const Workspace& ws, const SubmissionSession& sub,
                       const ReferenceSession& ref, const std::map<std::string, json>& expected,
                       const std::optional<Hardware>& hw, int nshapes, OutputChecks& checks, RunResult& result) {
  const auto compare_started = clock_type::now();
  // A reference that died left comparisons that did not happen: no finding
  // is drawn from them (audit/environment.h retries the run alone).
  if (handed_files_intact(ws, sub, result) && !ref.died_before_answering()) {
    result.all_correct = true;
    const auto shape_correct =
        judge_correctness(plan, sub.report(), expected, ref.habits(), ref.shapes(), checks, result);
    judge_timing(plan, sub.report(), expected, ref.habits(), shape_correct, ref.shapes(), hw, ws.xfer(), checks,
                 result);
    // Reported apart from the graded correctness; judged only where it passed.
    judge_input_probes(plan, sub.report(), ref.probes(), expected, ws.xfer(), checks,
                       result.all_correct && !result.error, result);
  }
  judge_aten_ops(plan, sub.report(), nshapes, result);
  result.add_phase("runner", {{"phase", "comparison"}, {"checks_begun_early", checks.started()},
                              {"checks_read_back", checks.reused()}}, compare_started);
}

// The reference's answers to every job: the first process's, and its
// helper's where the helper answered; the jobs the helper took and did not
// answer (it raised, or its process failed) the first answers again, so that
// a helper can cost time but never change a verdict. The helper's phases
// join the run's; nothing else of its result does. `digests` gets both
// processes' input fingerprints (ReferenceSession::input_digests).
// `first_done` is called once the first has answered its own jobs.
std::map<std::string, json> reference_answers(ReferenceSession& ref, ReferenceSession* helper, RunResult& helper_result,
                                              const json& last_jobs, RunResult& result,
                                              std::map<std::string, std::string>& digests,
                                              const std::function<void()>& first_done) {
  if (!helper) {
    auto expected = ref.expected_outputs(last_jobs);
    digests = ref.input_digests();
    return expected;
  }
  ref.close_beside(last_jobs);
  first_done();
  helper->expected_outputs(json::array());
  for (auto& phase : helper_result.phases) result.phases.push_back(std::move(phase));
  auto expected = ref.expected_outputs(helper->unanswered());
  digests = ref.input_digests();
  for (const auto& [id, outputs] : helper->answered()) {
    expected.emplace(id, outputs);
    if (const auto d = helper->input_digests().find(id); d != helper->input_digests().end()) digests.emplace(id, d->second);
  }
  return expected;
}

// While the submission runs: in the sandbox (`beside`) the reference begins
// on the jobs known before its calls come back, every correctness case and
// noisy twin now, each timing mode's seeded samples once its summary is in
// (`asked` gets their ids, and outlives the submission's run); and each
// output check begins once both sides are in, the submission's as its calls
// come back, the reference's as its expected outputs do.
void begin_beside(const RunPlan& plan, const Workspace& ws, bool beside, int graded_shapes, ReferenceSession& ref,
                  ReferenceSession* helper, SubmissionSession& sub, OutputChecks& checks, std::set<std::string>& asked) {
  if (beside) {
    ref.compute_beside();
    if (helper) helper->compute_beside();
    json known = correctness_case_jobs(ref.inputs());
    for (auto& job : twin_jobs(ref.probes())) known.push_back(std::move(job));
    ask(ref, asked, std::move(known));
  }
  sub.on_call([&plan, &checks, graded_shapes](int shape, int c, const json& got) {
    checks.expect(case_check(plan, graded_shapes, shape, c, got));
  });
  sub.on_samples([&ws, &ref, &checks, &asked, beside](int shape, const std::string& mode, const json& samples) {
    if (beside) ask(ref, asked, seeded_sample_jobs(shape, mode, samples, ref.inputs()));
    for (const auto& s : samples)
      if (on_first_case_inputs(s, shape, ref.inputs()))
        checks.alias(timed_sample_id(shape, mode, s.value("call", 0)), correctness_case_id(shape, 0));
    checks.expect(sample_checks(shape, mode, samples, ws.xfer()));
  });
}

// A job the reference must answer for the run to be judged: a graded
// shape's seed case, a timed sample (both drawn by the problem's generator).
// A stress case, a bounds case (integer draws at their range's ends, which a
// reference may not handle either) or an input probe's job (inputs kaudit
// made) it may reject: the case is then skipped.
bool must_answer(const RunPlan& plan, int graded_shapes, const std::string& id) {
  if (id.rfind("t_s", 0) == 0) return true;
  for (int i = 0; i < graded_shapes; ++i)
    for (std::size_t j = 0; j < plan.cases.size(); ++j)
      if (plan.cases[j].kind == "seed" && id == correctness_case_id(i, static_cast<int>(j))) return true;
  return false;
}

// A failure of the device or its memory rather than of the inputs: on a
// shared device another run's doing, or a submission's that fills the
// memory to keep its probes from being checked. Never taken for inputs the
// reference rejects: the run's error, retried alone (audit/environment.h).
bool device_failure(const std::string& why) {
  for (const char* text : {"out of memory", "CUDA error", "CUBLAS_STATUS", "cuDNN error", "CUDA driver error"})
    if (why.find(text) != std::string::npos) return true;
  return false;
}

// The jobs the reference raised on, or never answered once its batch
// failed, get `{"reference_failed": why}` where their expected output would
// be: their checks are skipped, never counted against the submission (a
// false "wrong" there once made a clean MoE kernel's timed samples
// `correct-only-untimed`, a cheat). A job it must answer and raised on, or
// any job it failed for the device's sake, is the run's error, whose text
// audit/environment.h reads (an out-of-memory on a shared device is retried alone).
void mark_reference_failures(const RunPlan& plan, int graded_shapes, const ReferenceSession& ref,
                             std::set<std::string> asked, const json& last_jobs, std::map<std::string, json>& expected,
                             RunResult& result) {
  for (const auto& job : last_jobs) asked.insert(job["id"].get<std::string>());
  const bool stopped = ref.stopped_answering();
  std::string first;
  for (const auto& id : asked) {
    if (expected.count(id)) continue;
    const auto raised = ref.failed_jobs().find(id);
    if (raised == ref.failed_jobs().end() && !stopped) continue;
    const bool answered = raised != ref.failed_jobs().end();
    expected[id] = {{"reference_failed", answered ? "the reference raised on these inputs: " + raised->second
                                                  : std::string("the reference stopped before answering (the run's "
                                                                "error says why)")}};
    if (answered && first.empty() && (must_answer(plan, graded_shapes, id) || device_failure(raised->second)))
      first = raised->second + " (job " + id + ")";
  }
  if (!first.empty()) result.set_error("reference", "the reference failed on the submitted calls' inputs: " + first);
}

json not_asked(json jobs, const std::set<std::string>& asked) {
  json left = json::array();
  for (auto& job : jobs)
    if (!asked.count(job["id"].get<std::string>())) left.push_back(std::move(job));
  return left;
}

}  // namespace

json run_submission(const RunOptions& o) { return run_protocol(o).to_json(); }

RunResult run_protocol(const RunOptions& o) {
  const RunPlan plan = make_run_plan(o);
  Workspace ws;
  ws.keep(o.keep_temp);
  lay_out_workspace(plan, ws);
  const std::vector<std::string> watched = watched_files(plan.problem);
  const FileSnapshot before = snapshot_files(ws.work(), watched);
  RunResult result = start_result(plan, ws);
  // In the sandbox, where the submission's process cannot see exp/, the
  // reference computes expected outputs beside the submission's calls; its
  // work then takes turns with the submission's timing, through the batch's
  // turns or the run's own.
  const bool beside = plan.isolation.sandboxed && o.expected_beside;
  result.expected_beside = beside;
  DeviceAccess device(o.device_turns ? o.device_turns : beside ? std::make_shared<DeviceTurns>() : nullptr,
                      o.device_turns != nullptr);
  const auto run_started = result.started;
  auto finished = [&]() {
    result.seconds = std::chrono::duration<double>(clock_type::now() - run_started).count();
    if (device.shared_device()) {  // with other runs
      result.device_wait_seconds = device.wait_seconds();
      result.device_turns = device.turns_json();
    }
    return std::move(result);
  };

  // The submission starts at once: its import and build overlap the
  // reference's input generation; it waits for its inputs on stdin.
  if (plan.options.on_phase) plan.options.on_phase("reference, set-up and inputs");
  // Each output check begins as its expected output comes in, beside the
  // reference's work on the next (runner/judge/output_checks.h). Made
  // before the sessions, so that it outlives the reference's thread.
  OutputChecks checks(ws.xfer(), plan.tolerance, plan.near_miss);
  ReferenceSession ref(plan, ws, result, device);
  ref.start();
  RunResult helper_result = helper_record(result);
  auto helper = start_reference_helper(plan, ws, beside, device, ref, helper_result, HelperStart::with_reference);
  SubmissionSession sub(plan, ws, result, device);
  sub.start();
  if (!ref.prepare()) return finished();
  if (!helper) helper = start_reference_helper(plan, ws, beside, device, ref, helper_result, HelperStart::after_inputs);
  result.shapes = ref.shapes();
  // Nothing to check proves nothing: never "correct" for want of cases.
  if (ref.shapes().empty() || plan.cases.empty()) {
    result.set_error("reference", ref.shapes().empty() ? "the problem yields no case to check: its SHAPES is empty"
                                                        : "no case to check: no seeds and no stress scales");
    return finished();
  }
  const FileSeal input_seal = seal_reference_inputs(ref, ws);
  const std::optional<Hardware> hw = hardware_of(plan, result);
  const int nshapes = static_cast<int>(ref.shapes().size());
  const fs::path stage_path = ws.submission_config_dir() / "submission-inputs.json";
  const json stage = write_submission_stage(plan, ws, ref, nshapes, hw, stage_path);
  for (ReferenceSession* r : {&ref, helper.get()})
    if (r) r->listen([&checks](const std::string& id, const json& outputs) { checks.arrived(id, outputs); });
  std::set<std::string> asked_beside;  // job ids
  begin_beside(plan, ws, beside, nshapes, ref, helper.get(), sub, checks, asked_beside);
  sub.run(stage_path, ref.inputs(), stage["samples_per_shape"].get<std::vector<int>>(), ref.reproducible_shapes());
  sub.finish(nshapes, static_cast<int>(plan.cases.size()));
  // Its processes have ended: its journals are read (and exported) from now,
  // beside the reference's last expected outputs.
  std::optional<JournalRead> journals;
  if (o.trace) journals.emplace(trace_dir_of(ws, Role::submission), sub.report().pid, plan.options.trace_output);
  if (!sub.report().device_memory.empty()) result.device_memory["submission"] = sub.report().device_memory;
  if (sub.report().outputs.empty() && sub.report().timings.empty())  // nothing to compare
    for (ReferenceSession* r : {&ref, helper.get()})
      if (r) r->abandon_expected();
  judge_problem_files(before, snapshot_files(ws.work(), watched), result);

  // The reference checks every output that came back: what it was not
  // asked beside the calls is asked now.
  json jobs = expected_output_jobs(sub.report(), ref.inputs(), ws.xfer());
  add_twin_jobs(jobs, ref.probes(), sub.report());
  const bool inputs_intact = reference_inputs_intact(ws, input_seal, result);
  const json last_jobs = inputs_intact ? not_asked(std::move(jobs), asked_beside) : json::array();
  checks.expect(checks_to_start(plan, sub.report(), nshapes, ws.xfer()));
  std::map<std::string, std::string> input_digests;
  // The reference's journals are read from when its first process is done
  // (beside the helper's last samples, if it has one), else at the trace step.
  std::optional<JournalRead> reference_journals;
  auto read_reference_journals = [&] {
    if (o.trace && o.trace_reference) reference_journals.emplace(trace_dir_of(ws, Role::reference), 0, fs::path());
  };
  std::map<std::string, json> expected = reference_answers(ref, helper.get(), helper_result, last_jobs, result,
                                                           input_digests, read_reference_journals);
  if (!inputs_intact) expected.clear();  // what was computed beside answers another question
  else mark_reference_failures(plan, nshapes, ref, asked_beside, last_jobs, expected, result);
  alias_first_case_samples(sub.report(), ref.inputs(), expected);
  ref.finish();
  if (helper) helper->finish();
  hold_seeded_inputs(sub.report(), input_digests, expected);

  judge_comparisons(plan, ws, sub, ref, expected, hw, nshapes, checks, result);
  if (o.trace) {
    if (!reference_journals) read_reference_journals();
    attach_trace(plan, sub.report(), nshapes, *journals, reference_journals ? &*reference_journals : nullptr, result);
  }
  if (hw) result.hardware = {{"name", hw->name}, {"peak_basis", o.peak_basis}};
  return finished();
}

}  // namespace kaudit::run
