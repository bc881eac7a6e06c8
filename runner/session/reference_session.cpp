#include "runner/session/reference_session.h"

#include "runner/session/channel.h"
#include "runner/session/channel_message.h"
#include "runner/judge/compare.h"
#include "runner/session/launch.h"
#include "common/utf8.h"

#include <csignal>
#include <fstream>
#include <random>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;

ReferenceSession::ReferenceSession(const RunPlan& plan, const Workspace& ws, RunResult& result, DeviceAccess& device,
                                   ReferenceSession* helper_of)
    : plan_(plan),
      ws_(ws),
      result_(result),
      device_(device),
      helper_of_(helper_of),
      jobs_(helper_of ? helper_of->jobs_ : std::make_shared<ReferenceJobs>()) {
  if (helper_of_) jobs_->helper = true;  // before any thread of the run takes a job
}

ReferenceSession::~ReferenceSession() { abandon_expected(); }

void ReferenceSession::abandon_expected() {
  if (!beside_.joinable()) return;
  {
    std::lock_guard lock(jobs_->mutex);
    jobs_->closing = abandoned_ = true;
    jobs_->own.clear();
    jobs_->samples.clear();
  }
  jobs_->queued.notify_all();
  if (child_) child_->kill_group();  // a batch in progress ends with the process
  beside_.join();
}

void ReferenceSession::write_config() const {
  std::mt19937_64 rng{std::random_device{}()};
  const std::string shapes_file =
      plan_.problem.shapes.empty() ? "" : plan_.in_copy(ws_.refwork(), plan_.problem.shapes).string();
  json cfg = {{"role", "reference"},
              {"helper", helper_of_ != nullptr},
              {"device", plan_.options.device},
              {"format", plan_.format},
              {"reference", plan_.in_copy(ws_.refwork(), plan_.problem.reference).string()},
              {"shapes_file", shapes_file},
              {"xfer", ws_.xfer().string()},
              {"channel_fd", kChannelFd},
              {"init_seed", plan_.options.init_seed},
              {"first_seed", plan_.first_seed()},
              {"bounds_seeds", plan_.bounds_seeds()},
              {"shape_selection", plan_.options.shapes},
              {"cases", plan_.cases_json()},
              {"seeded_case_bytes", plan_.options.seeded_case_bytes},
              {"probes", probe_request(plan_.options, rng)},
              {"nproc_limit", plan_.harness_nproc_limit()},
              {"trace", !helper_of_ && plan_.options.trace && plan_.options.trace_reference}};
  std::ofstream(config_path()) << common::json_text(cfg);
}

fs::path ReferenceSession::config_path() const {
  return ws_.private_dir() / (helper_of_ ? "reference-helper.json" : "reference.json");
}

void ReferenceSession::start() {
  started_at_ = clock_type::now();
  write_config();
  child_ = std::make_unique<Child>(child_spec(plan_, ws_, helper_of_ ? Role::reference_helper : Role::reference,
                                              config_path()));
}

double ReferenceSession::on_message(const json& m) {
  const std::string ev = m.value("event", std::string());
  if (ev == "hello") {
    result_.environment = m.value("environment", json::object());
    import_parts_ = measures_of(m, "parts");
    return 0;
  }
  if (ev == "shapes") return on_shapes(m);
  if (ev == "ready") {  // a helper's import is done
    ready_ = helper_of_ != nullptr;
    return -1;
  }
  if (ev == "reference_habits") return on_habits(m);
  if (ev == "reproducible") {
    if (m["reproducible"].get<bool>()) reproducible_.insert(m["shape"].get<int>());
    return plan_.phase_s;
  }
  if (ev == "case") {
    if (!valid_entries(m["inputs"], ws_.xfer(), "in")) return 0;  // never handed to the submission
    // A case drawn from its seed in both processes is {seed} instead of its files.
    inputs_[{m["shape"].get<int>(), m["case"].get<int>()}] =
        m.contains("seed") && m["inputs"].empty() ? json{{"seed", m["seed"]}} : m["inputs"];
    if (m.contains("probe")) {
      json probe = m["probe"];
      if (probe.contains("twin") && (!valid_entries(probe["twin"], ws_.xfer(), "in") || !probe.value("noise", json()).is_number()))
        probe.erase("twin");
      probes_.cases[{m["shape"].get<int>(), m["case"].get<int>()}] = probe;
    }
    return plan_.phase_s;
  }
  if (ev == "probe_shape" || ev == "probe_skipped") return on_probe(m);
  if (ev == "turn") {
    // A yield point between seeds or expected outputs: a run waiting to time
    // goes first (time that is not the reference's own).
    const auto waiting = clock_type::now();
    device_.resume(turn_);
    waited_for_device_s_ += std::chrono::duration<double>(clock_type::now() - waiting).count();
    child_->send_line("go");
    return 0;
  }
  if (ev == "device_idle") {  // file work follows: the device is given back until the next "turn"
    device_.set_aside(turn_);
    return 0;
  }
  if (ev == "generated") {
    generated_ = true;
    inputs_parts_ = measures_of(m, "parts");
    return -1;
  }
  if (ev == "done") {
    if (auto memory = measures_of(m, "device_memory"); !memory.empty()) result_.device_memory["reference"] = memory;
    return -1;
  }
  if (ev == "error") {
    error_ = m;
    return -1;
  }
  return 0;
}

double ReferenceSession::on_shapes(const json& m) {
  if (have_shapes_ || !m.contains("shapes") || !m["shapes"].is_array()) return 0;
  shapes_ = m["shapes"];
  have_shapes_ = true;
  // Which of the problem's graded shapes these are (--shapes smallest).
  if (result_.settings && m.contains("graded") && m["graded"].is_number_integer() && m.contains("indices") &&
      m["indices"].is_array()) {
    result_.settings->shapes.graded = m["graded"].get<int>();
    std::vector<int> run;
    for (const auto& i : m["indices"])
      if (i.is_number_integer()) run.push_back(i.get<int>());
    result_.settings->shapes.run = run;
  }
  return -1;
}

double ReferenceSession::on_habits(const json& m) {
  json changes = json::array();
  for (const auto& k : m.value("changes_inputs", json::array()))
    if (k.is_number_integer()) changes.push_back(k.get<int>());
  habits_[m.value("shape", -1)] = {{"changes_inputs", changes}, {"aliases_input", m.value("aliases_input", false)}};
  return plan_.phase_s;
}

double ReferenceSession::on_probe(const json& m) {
  if (m["event"] == "probe_shape") {
    probes_.shapes.push_back(m);
    probes_.base_shape = m["base"].get<int>();
  } else {
    probes_.skipped.push_back(m);
    if (m["probe"] == "off-grid") probes_.base_shape = m["shape"].get<int>();
  }
  return plan_.phase_s;
}

std::string ReferenceSession::failure_reason(bool timed_out) {
  if (inputs_over_budget_) {
    char budget[32];
    std::snprintf(budget, sizeof budget, "%g", plan_.setup_s);
    return std::string("the reference did not finish generating inputs within the set-up budget of ") + budget +
           " s (--setup-timeout): too slow for this device";
  }
  if (timed_out) return "the reference timed out while generating inputs";
  if (error_.is_object())
    return "the reference failed: " + error_.value("type", std::string()) + ": " + error_.value("message", std::string());
  return "the reference process ended (" + child_->finish(std::chrono::seconds(2)).describe() +
         ") before generating inputs";
}

bool ReferenceSession::prepare() {
  auto handler = [this](const json& m) { return on_message(m); };
  auto since = clock_type::now();
  Outcome out = drive(*child_, Speaker::reference, plan_.setup_s, handler);
  json import_step = {{"phase", "import"}};
  if (!import_parts_.empty()) import_step["parts"] = import_parts_;
  result_.add_phase("reference", import_step, since);
  if (have_shapes_) {
    // Input generation is untimed GPU work: a shared turn on the device.
    turn_ = device_.take(DeviceTurns::Kind::shared);
    since = clock_type::now();
    child_->send_line("go");
    // Each step has the step limit, and the whole the set-up budget (less
    // the time it gave way to runs that time): a reference too slow for this
    // device ends the run rather than holding the batch for as many steps
    // as it has cases.
    waited_for_device_s_ = 0;
    out = drive(*child_, Speaker::reference, plan_.phase_s, handler, [&] {
      return std::chrono::duration<double>(clock_type::now() - since).count() - waited_for_device_s_ > plan_.setup_s
                 ? -1.0
                 : 0.0;
    });
    inputs_over_budget_ = out.stopped;
    turn_.release();
    json step = {{"phase", "inputs"}};
    if (!inputs_parts_.empty()) step["parts"] = inputs_parts_;
    result_.add_phase("reference", step, since);
  }
  if (generated_) return true;
  json detail = {{"stderr_tail", tail(child_->stderr_text(), 4000)}};
  if (error_.is_object() && error_.contains("traceback")) detail["traceback"] = error_["traceback"];  // where it raised
  result_.set_error("reference", failure_reason(out.timed_out), detail);
  child_->kill_group();
  return false;
}

// While a batch runs only its own events (and the device's turns, and an
// error) are heard: nothing of the set-up may change once the submission runs.
double ReferenceSession::on_batch_message(const json& m) {
  const std::string ev = m.value("event", std::string());
  if (ev == "expected") {
    if (!valid_entries(m["outputs"], ws_.xfer(), "exp")) return plan_.phase_s;
    const std::string id = m["id"];
    expected_[id] = m["outputs"];
    if (m.contains("inputs_digest")) input_digests_[id] = m["inputs_digest"];
    if (listener_) listener_(id, m["outputs"]);
    return plan_.phase_s;
  }
  if (ev == "expected_failed") {
    failed_[m["id"].get<std::string>()] = m["type"].get<std::string>() + ": " + m["message"].get<std::string>();
    return plan_.phase_s;
  }
  if (ev == "expected_batch") {
    batch_over_ = true;
    batch_parts_ = measures_of(m, "parts");
    batch_known_ = m.value("known", 0);
    return -1;
  }
  if (ev == "turn" || ev == "device_idle" || ev == "error") return on_message(m);
  return 0;
}

bool ReferenceSession::run_batch(const json& jobs) {
  const fs::path check_cfg =
      ws_.private_dir() / ((helper_of_ ? "helper-check-" : "check-") + std::to_string(batches_++) + ".json");
  // The shapes whose reference writes into its inputs read them afresh every job.
  json mutating = json::array();
  for (const auto& [shape, h] : (helper_of_ ? helper_of_->habits_ : habits_))
    if (!h["changes_inputs"].empty()) mutating.push_back(shape);
  std::ofstream(check_cfg) << common::json_text(json{{"jobs", jobs}, {"mutating_shapes", mutating}});
  if (helper_of_)
    for (const auto& job : jobs) sent_.push_back(job);
  turn_ = device_.take(DeviceTurns::Kind::shared);
  const auto since = clock_type::now();
  batch_over_ = false;
  batch_parts_.clear();
  batch_known_ = 0;
  if (child_->send_line(check_cfg.string()))
    last_batch_ = drive(*child_, Speaker::reference, plan_.phase_s, [this](const json& m) { return on_batch_message(m); });
  turn_.release();
  json step = {{"phase", "expected outputs"}, {"jobs", jobs.size()}};
  if (!batch_parts_.empty()) step["parts"] = batch_parts_;
  if (batch_known_ > 0) step["known"] = batch_known_;
  batch_phases_.push_back(result_.phase(helper_of_ ? "reference helper" : "reference", step, since));
  batch_failed_ = !batch_over_;
  return batch_over_;
}

// The first process takes its own jobs (among them the calls its trace
// marks), and timed samples where no helper works or once no more jobs come;
// a helper takes timed samples only, once it has imported the problem. Each
// takes every batch waiting on its list at once.
void ReferenceSession::send_queued() {
  if (!helper_of_) {
    take_jobs();
    return;
  }
  if (await_ready()) take_jobs();
  {
    std::lock_guard lock(jobs_->mutex);
    jobs_->helper = false;  // what is left of the samples is the first's
  }
  jobs_->queued.notify_all();
}

void ReferenceSession::take_jobs() {
  for (;;) {
    json jobs = json::array();
    {
      std::unique_lock lock(jobs_->mutex);
      auto takes_samples = [this] {
        return !jobs_->samples.empty() && (helper_of_ || jobs_->closing || !jobs_->helper);
      };
      auto takes = [&] { return takes_samples() || (!helper_of_ && !jobs_->own.empty()); };
      jobs_->queued.wait(lock, [&] { return takes() || jobs_->closing; });
      if (!takes()) return;
      auto& from = !helper_of_ && !jobs_->own.empty() ? jobs_->own : jobs_->samples;
      for (auto& batch : from)
        for (auto& job : batch) jobs.push_back(std::move(job));
      from.clear();
    }
    if (!run_batch(jobs)) return;  // the process failed: nothing more is sent
  }
}

// A helper's import, within the set-up budget; false when it failed (its
// process is then stopped, and it takes no job).
bool ReferenceSession::await_ready() {
  drive(*child_, Speaker::reference, plan_.setup_s, [this](const json& m) { return on_message(m); });
  json step = {{"phase", "import"}};
  if (!import_parts_.empty()) step["parts"] = import_parts_;
  batch_phases_.push_back(result_.phase("reference helper", step, started_at_));
  if (!ready_) child_->kill_group();
  return ready_;
}

void ReferenceSession::compute_beside() {
  if (!beside_.joinable()) beside_ = std::thread([this] { send_queued(); });
}

void ReferenceSession::queue_expected(json jobs) {
  if (jobs.empty()) return;
  json own = json::array(), samples = json::array();
  for (auto& job : jobs) (job["id"].get<std::string>().rfind("t_s", 0) == 0 ? samples : own).push_back(std::move(job));
  {
    std::lock_guard lock(jobs_->mutex);
    if (jobs_->closing) return;
    if (!own.empty()) jobs_->own.push_back(std::move(own));
    if (!samples.empty()) jobs_->samples.push_back(std::move(samples));
  }
  jobs_->queued.notify_all();
}

void ReferenceSession::close_beside(const json& last_jobs) {
  if (!beside_.joinable()) return;
  queue_expected(last_jobs);
  {
    std::lock_guard lock(jobs_->mutex);
    jobs_->closing = true;
  }
  jobs_->queued.notify_all();
  // A helper still importing when the jobs are over has nothing left to do:
  // it is not waited for.
  if (helper_of_ && !ready_) child_->kill_group();
  beside_.join();
}

json ReferenceSession::unanswered() const {
  json left = json::array();
  for (const auto& job : sent_)
    if (!expected_.count(job["id"].get<std::string>())) left.push_back(job);
  return left;
}

std::map<std::string, json> ReferenceSession::expected_outputs(const json& last_jobs) {
  if (beside_.joinable()) {
    close_beside(last_jobs);
  } else if (!abandoned_ && !last_jobs.empty()) {
    run_batch(last_jobs);
  }
  for (auto& p : batch_phases_) result_.phases.push_back(std::move(p));
  batch_phases_.clear();
  if (abandoned_) return {};
  if (batches_ == 0) {  // nothing asked: only stop the process
    child_->send_line("");
    return {};
  }
  if (!batch_failed_) {
    // Its last word (the device memory's peaks); the outputs are all in.
    if (child_->send_line("")) drive(*child_, Speaker::reference, plan_.phase_s, [this](const json& m) { return on_message(m); });
  } else {
    report_expected_failure();
  }
  return expected_;
}

void ReferenceSession::report_expected_failure() {
  // Submission errors come first: they are what the user needs to see.
  std::string reason;
  json detail = {{"stderr_tail", tail(child_->stderr_text(), 4000)}};
  if (last_batch_.timed_out) {
    reason = "the reference timed out while computing expected outputs";
  } else if (error_.is_object()) {
    reason = "the reference failed on the submitted calls' inputs: " + error_.value("type", std::string()) + ": " +
             error_.value("message", std::string());
  } else {
    died_ = true;
    const ExitStatus end = child_->finish(std::chrono::seconds(2));
    // The sandbox's first process reports a signal as exit status 128 + N.
    const int signal = !end.exited ? end.signal : end.code > 128 && end.code <= 128 + 64 ? end.code - 128 : 0;
    ExitStatus as_signal;
    as_signal.signal = signal;
    const std::string how = end.describe() + (end.exited && signal ? ", " + as_signal.describe() : std::string());
    detail["reference_exit"] = how;
    reason = "the reference process ended (" + how + ") before computing expected outputs" +
             (signal == SIGKILL ? ", killed from outside the run (kaudit did not send it: the kernel's OOM "
                                  "killer is the usual sender)"
                                : "") +
             "; a fault of the machine: nothing was judged from the comparison";
  }
  result_.set_error("reference", reason, detail);
}

void ReferenceSession::finish() { child_->finish(std::chrono::seconds(5)); }

}  // namespace kaudit::run
