#include "run/submission_session.h"

#include "run/channel.h"
#include "run/child_env.h"
#include "run/compare.h"
#include "run/probe_findings.h"
#include "run/tensor_file.h"

#include <fstream>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;

SubmissionSession::SubmissionSession(const RunPlan& plan, const Workspace& ws, RunResult& result,
                                     DeviceAccess& device)
    : plan_(plan), ws_(ws), result_(result), device_(device) {}

void SubmissionSession::start() {
  const std::string shapes_file =
      plan_.problem.shapes.empty() ? "" : plan_.in_copy(ws_.work(), plan_.problem.shapes).string();
  const fs::path cfg_path = ws_.private_dir() / "submission.json";
  json cfg = {{"role", "submission"},
              {"device", plan_.options.device},
              {"format", plan_.format},
              {"reference", plan_.in_copy(ws_.work(), plan_.problem.reference).string()},
              {"shapes_file", shapes_file},
              {"solution", (ws_.work() / "solution.py").string()},
              {"xfer", ws_.xfer().string()},
              {"channel_fd", kChannelFd},
              {"init_seed", plan_.options.init_seed},
              {"trace", plan_.options.trace}};
  std::ofstream(cfg_path) << cfg.dump();
  started_ = phase_started_ = clock_type::now();
  timeout_s_ = plan_.setup_s;
  child_ = std::make_unique<Child>(ChildSpec{{plan_.python.string(), "-B", plan_.harness.string(), cfg_path.string()},
                                             child_env(plan_.options, ws_.work(), ws_.root() / "trace", plan_.tracer_lib),
                                             ws_.work()});
}

void SubmissionSession::run(const fs::path& stage_config_path, const std::map<std::pair<int, int>, json>& inputs) {
  inputs_ = &inputs;
  auto handler = [this](const json& m) { return on_message(m); };
  // Import and build first, without the device's turn; then the calls.
  Outcome out = drive(*child_, plan_.setup_s, handler);
  bad_messages_ = std::move(out.bad_messages);
  if (ready_ && !report_.error.is_object()) {
    turn_ = device_.take(DeviceTurns::Kind::shared);
    phase_started_ = clock_type::now();  // the wait is device_wait_seconds
    timeout_s_ = plan_.phase_s;
    child_->send_line(stage_config_path.string());
    out = drive(*child_, plan_.phase_s, handler);
    bad_messages_.insert(bad_messages_.end(), out.bad_messages.begin(), out.bad_messages.end());
  }
  timed_out_ = out.timed_out;
}

double SubmissionSession::on_message(const json& m) {
  const std::string ev = m.value("event", std::string());
  if (ev == "hello") {
    report_.pid = m.value("pid", 0L);
    return 0;
  }
  if (ev == "ready" && !ready_) return on_ready();
  if (ev == "turn" && device_.shared_device()) return on_turn();
  if (ev == "turn_done" && turn_.kind() == DeviceTurns::Kind::exclusive) return on_turn_done();
  if (ev == "phase") return on_phase(m);
  if (ev == "call" && m.value("kind", std::string()) == "correctness") return on_correctness_call(m);
  if (ev == "checks") {
    report_.correctness_counts[m.value("shape", -1)] = m;
    return 0;
  }
  if (ev == "probe" && m.value("probe", std::string()) == "stream-order") {
    report_.stream_order[m.value("shape", -1)] = {{"outputs", m.value("outputs", 0)},
                                                  {"differing", m.value("differing", 0)}};
    return plan_.call_s;
  }
  if (ev == "timing") {
    report_.timings[{m.value("shape", -1), m.value("mode", std::string())}] = m;
    return 0;
  }
  if (ev == "error") {
    report_.error = m;
    return -1;
  }
  if (ev == "done") {
    report_.done = true;
    return -1;
  }
  return 0;
}

double SubmissionSession::on_ready() {
  ready_ = true;
  end_phase();
  current_phase_ = {{"phase", "inputs"}};  // reading them, once its turn on the device came
  return -1;  // set up: it waits for its inputs and its turn on the device
}

double SubmissionSession::on_turn() {
  // A timing mode: the device alone (the harness waits for "go").
  turn_.release();
  const auto asked = clock_type::now();
  turn_ = device_.take(DeviceTurns::Kind::exclusive);
  phase_started_ += clock_type::now() - asked;  // the wait is device_wait_seconds
  child_->send_line("go");
  return plan_.phase_s;
}

double SubmissionSession::on_turn_done() {
  turn_.release();
  const auto asked = clock_type::now();
  turn_ = device_.take(DeviceTurns::Kind::shared);
  phase_started_ += clock_type::now() - asked;
  return plan_.phase_s;
}

double SubmissionSession::on_phase(const json& m) {
  end_phase();
  current_phase_ = m;
  const std::string ph = m.value("phase", std::string());
  timeout_s_ = ph == "setup" ? plan_.setup_s : ph == "correctness" ? plan_.call_s : plan_.phase_s;
  return timeout_s_;
}

double SubmissionSession::on_correctness_call(const json& m) {
  const int i = m.value("shape", -1), j = m.value("case", -1);
  if (!inputs_) return plan_.call_s;
  const auto orig_it = inputs_->find({i, j});
  if (orig_it == inputs_->end() || !valid_entries(m.value("outputs", json()), ws_.xfer())) return plan_.call_s;
  report_.outputs[{i, j}] = m["outputs"];
  // Inputs after the call against the bytes handed over: compared here,
  // then the copies go.
  const json after = m.value("inputs_after", json::array());
  const json& orig = orig_it->second;
  for (std::size_t k = 0; k < after.size() && k < orig.size(); ++k) {
    if (!valid_entry(after[k], ws_.xfer())) continue;
    bool same = true;
    if (after[k].contains("file") && orig[k].contains("file")) {
      try {
        same = same_bytes(read_tensor_file(ws_.xfer() / after[k]["file"].get<std::string>()),
                          read_tensor_file(ws_.xfer() / orig[k]["file"].get<std::string>()));
      } catch (const std::exception&) {
        same = false;
      }
      std::error_code ec;
      fs::remove(ws_.xfer() / after[k]["file"].get<std::string>(), ec);
    } else {
      same = after[k] == orig[k];
    }
    if (!same) report_.mutated[{i, j}].push_back(static_cast<int>(k));
  }
  return plan_.call_s;
}

// The harness's phases (set-up, then correctness and timing per shape and
// mode) each end where the next begins, or where the process stops talking.
void SubmissionSession::end_phase() {
  json step = {{"phase", current_phase_.value("phase", std::string("start"))}};
  for (const char* k : {"shape", "mode"})
    if (current_phase_.contains(k)) step[k] = current_phase_[k];
  result_.add_phase("submission", step, phase_started_);
  phase_started_ = clock_type::now();
}

std::string SubmissionSession::phase_text() const {
  std::string t = current_phase_.value("phase", std::string("start"));
  if (current_phase_.contains("shape")) t += ", shape " + std::to_string(current_phase_.value("shape", 0));
  if (current_phase_.contains("mode")) t += ", mode " + current_phase_.value("mode", std::string());
  return t;
}

void SubmissionSession::finish(int shapes, int cases) {
  end_phase();
  const ExitStatus status = child_->finish(std::chrono::seconds(timed_out_ ? 0 : 5));
  turn_.release();
  record_process(status);
  judge_ending(status, shapes, cases);
}

void SubmissionSession::record_process(const ExitStatus& status) {
  json p = {{"exit", status.describe()},
            {"seconds", std::chrono::duration<double>(clock_type::now() - started_).count()},
            {"stdout_tail", tail(child_->stdout_text(), 4000)},
            {"stderr_tail", tail(child_->stderr_text(), 4000)}};
  if (!bad_messages_.empty()) p["bad_messages"] = bad_messages_;
  result_.submission_process = p;
}

// A timeout, an error the harness reported, an exit before "done", or
// results missing after it: each is the run's error; an exit with status 0
// before the results is also a finding (a printed PASS counts for nothing).
void SubmissionSession::judge_ending(const ExitStatus& status, int shapes, int cases) {
  const std::string phase = current_phase_.value("phase", std::string("start"));
  const std::string solution = plan_.options.solution.string();
  const std::string exited_early = " before the harness handed over any result; an exit status or a printed PASS "
                                   "counts for nothing.";
  const json& error = report_.error;
  if (timed_out_) {
    result_.set_error(phase, "timed out after " + std::to_string(static_cast<int>(timeout_s_)) + " s in " +
                                 phase_text() + "; the process group was killed");
  } else if (error.is_object()) {
    result_.set_error(error.value("phase", std::string("start")),
                      error.value("type", std::string("Error")) + ": " + error.value("message", std::string()),
                      {{"traceback", error.value("traceback", std::string())}});
    const std::string code = error.value("message", std::string());
    if (error.value("type", std::string()) == "SystemExit" && (code.empty() || code == "0" || code == "None"))
      result_.findings.push_back(make_probe_finding("exited-before-results", solution, phase_text(),
                                                    "The submission called sys.exit(0) in " + phase_text() + exited_early));
  } else if (!report_.done) {
    result_.set_error(phase, "the process ended (" + status.describe() + ") in " + phase_text() +
                                 " without handing over its results");
    if (status.exited && status.code == 0)
      result_.findings.push_back(make_probe_finding("exited-before-results", solution, phase_text(),
                                                    "The submission's process exited with status 0 in " +
                                                        phase_text() + exited_early));
  } else {
    // Done: every expected result must be there.
    for (int i = 0; i < shapes; ++i) {
      for (int j = 0; j < cases; ++j)
        if (!report_.outputs.count({i, j})) result_.set_error("correctness", "results missing for shape " + std::to_string(i));
      for (const auto& mode : plan_.options.modes)
        if (!report_.timings.count({i, mode}))
          result_.set_error("timing", "timings missing for shape " + std::to_string(i) + ", mode " + mode);
    }
  }
}

json stage_config(const RunPlan& plan, const Workspace& ws, const std::map<std::pair<int, int>, json>& inputs,
                  const std::map<int, json>& habits, int shapes, double l2_bytes) {
  const RunOptions& o = plan.options;
  const int cases = static_cast<int>(plan.cases.size());
  auto inputs_of = [&](int i, int j) {
    const auto it = inputs.find({i, j});
    return it == inputs.end() ? json() : it->second;
  };
  json correctness = json::array();
  for (int i = 0; i < shapes; ++i)
    for (int j = 0; j < cases; ++j) correctness.push_back({{"shape", i}, {"case", j}, {"inputs", inputs_of(i, j)}});
  std::vector<int> samples;
  for (int k = 0; k < o.samples && plan.trials > 0; ++k) {
    const int idx = o.samples == 1 ? plan.trials - 1 : k * (plan.trials - 1) / std::max(1, o.samples - 1);
    if (samples.empty() || samples.back() != idx) samples.push_back(idx);
  }
  // Shapes with large inputs: one sample per mode (RunOptions::large_input_bytes).
  json samples_by_shape = json::array();
  for (int i = 0; i < shapes; ++i) {
    std::uintmax_t bytes = 0;
    for (const auto& e : inputs_of(i, 0)) {
      std::error_code ec;
      if (e.contains("file") && e["file"].is_string()) bytes += fs::file_size(ws.xfer() / e["file"].get<std::string>(), ec);
    }
    samples_by_shape.push_back(bytes > o.large_input_bytes && !samples.empty() ? json::array({samples.back()})
                                                                                : json(samples));
  }
  json reference_changing = json::array();  // shapes whose reference writes into its inputs
  for (const auto& [shape, h] : habits)
    if (!h["changes_inputs"].empty()) reference_changing.push_back(shape);
  return {{"correctness", correctness},
          {"modes", o.modes},
          {"warmup", o.warmup},
          {"trials", plan.trials},
          {"samples_by_shape", samples_by_shape},
          {"mode_seeds", {{"bench", 0}, {"fresh", 100000}, {"rewrite", 200000}}},
          {"flush_bytes", plan.cpu ? 0.0 : 2 * l2_bytes},
          {"keep_alive_bytes", plan.cpu ? 256.0 * (1 << 20) : 16.0 * (1 << 30)},
          {"poison", o.poison},
          {"timing_turns", o.device_turns != nullptr},
          {"reference_changes_inputs", reference_changing}};
}

}  // namespace kaudit::run
