#include "runner/plan/run_result.h"

#include "evidence/schemas.h"
#include "evidence/verdict_document.h"

namespace kaudit::run {
using json = nlohmann::json;

void RunResult::set_error(const std::string& phase, const std::string& reason, const json& detail) {
  if (error) return;
  error = RunError{phase, reason, detail};
}

evidence::RunPhase RunResult::phase(const std::string& process, const json& step, clock_type::time_point since) const {
  evidence::RunPhase p =
      evidence::run_phase(process, step, std::chrono::duration<double>(clock_type::now() - since).count());
  p.began_s = std::chrono::duration<double>(since - started).count();
  return p;
}

void RunResult::add_phase(const std::string& process, const json& step, clock_type::time_point since) {
  phases.push_back(phase(process, step, since));
}

json RunResult::to_json() const {
  json doc = {{"schema", evidence::kRunSchema},
              {"problem", problem},
              {"solution", solution},
              {"device", device},
              {"python", python},
              {"modes", modes},
              {"settings", settings ? evidence::to_json(*settings) : nlohmann::json()},
              {"environment", environment},
              {"correctness", evidence::to_json(correctness)},
              {"timing", evidence::to_json(timing)},
              {"findings", json::array()},
              {"problem_files", problem_files},
              {"phases", evidence::to_json(phases)},
              {"first_calls", evidence::to_json(first_calls)},
              {"isolation", isolation},
              {"seconds", seconds}};
  doc["result"] = error ? "error" : all_correct ? "correct" : "incorrect";
  doc["error"] = nullptr;
  if (error) {
    doc["error"] = {{"phase", error->phase}, {"reason", error->reason}};
    if (!error->detail.is_null()) doc["error"]["detail"] = error->detail;
  }
  if (!error && !all_correct) doc["result_reason"] = result_reason;
  if (temp_dir) doc["temp_dir"] = *temp_dir;
  if (shapes) doc["shapes"] = *shapes;
  if (submission_process) doc["submission_process"] = *submission_process;
  if (infrastructure) doc["infrastructure"] = evidence::to_json(*infrastructure);
  if (environment_retry) doc["environment_retry"] = evidence::to_json(*environment_retry);
  if (trace) doc["trace"] = evidence::to_json(*trace);
  if (trace_incomplete) doc["trace_incomplete"] = *trace_incomplete;
  if (aten_ops) doc["aten_ops"] = evidence::to_json(*aten_ops);
  if (state_dict) doc["state_dict"] = evidence::to_json(*state_dict);
  if (input_probes) doc["input_probes"] = evidence::to_json(*input_probes);
  if (hardware) doc["hardware"] = *hardware;
  if (device_wait_seconds) doc["device_wait_seconds"] = *device_wait_seconds;
  if (device_turns) doc["device_turns"] = *device_turns;
  if (!device_memory.empty()) doc["device_memory"] = device_memory;
  std::vector<rules::Finding> sorted = findings;
  rules::sort_and_deduplicate(sorted);
  for (const auto& x : sorted) doc["findings"].push_back(rules::to_json(x));
  return doc;
}

// Read from the document itself, as a saved run.json is read later
// (evidence::run_facts): one reader, so a verdict decided now and one decided
// again from the folder agree.
rules::RunFacts RunResult::facts() const { return evidence::run_facts(to_json()); }

void DeviceAccess::waited(double seconds) {
  std::lock_guard lock(mutex_);
  wait_s_ += seconds;
}

double DeviceAccess::wait_seconds() const {
  std::lock_guard lock(mutex_);
  return wait_s_;
}

DeviceTurns::Turn DeviceAccess::take(DeviceTurns::Kind kind) {
  if (!turns_) return DeviceTurns::Turn();
  {
    std::lock_guard lock(mutex_);
    ++(kind == DeviceTurns::Kind::exclusive ? exclusive_taken_ : shared_taken_);
  }
  const auto asked = clock_type::now();
  DeviceTurns::Turn turn = kind == DeviceTurns::Kind::exclusive ? turns_->exclusive() : turns_->shared();
  waited(std::chrono::duration<double>(clock_type::now() - asked).count());
  return turn;
}

double DeviceAccess::yield_to_timing(DeviceTurns::Turn& turn) {
  if (!turns_) return 0;
  const auto asked = clock_type::now();
  if (!turns_->yield_to_timing(turn)) return 0;
  const double seconds = std::chrono::duration<double>(clock_type::now() - asked).count();
  std::lock_guard lock(mutex_);
  ++yields_;
  wait_s_ += seconds;
  return seconds;
}

void DeviceAccess::set_aside(DeviceTurns::Turn& turn) {
  if (!turns_ || turn.kind() == DeviceTurns::Kind::none) return;
  turn.release();
  std::lock_guard lock(mutex_);
  ++set_aside_;
}

double DeviceAccess::resume(DeviceTurns::Turn& turn) {
  if (!turns_) return 0;
  if (turn.kind() != DeviceTurns::Kind::none) return yield_to_timing(turn);
  const auto asked = clock_type::now();
  turn = take(DeviceTurns::Kind::shared);
  return std::chrono::duration<double>(clock_type::now() - asked).count();
}

std::optional<double> DeviceAccess::hand_over_between_modes(DeviceTurns::Turn& turn, clock_type::time_point since,
                                                            clock_type::duration after) {
  if (!shared_with_others_ || turn.kind() != DeviceTurns::Kind::exclusive || clock_type::now() - since < after ||
      turns_->exclusive_waiting() + turns_->shared_waiting() == 0)
    return std::nullopt;
  turn.release();
  {
    std::lock_guard lock(mutex_);
    ++handed_over_;
  }
  const auto asked = clock_type::now();
  turn = take(DeviceTurns::Kind::exclusive);
  return std::chrono::duration<double>(clock_type::now() - asked).count();
}

nlohmann::json DeviceAccess::turns_json() const {
  std::lock_guard lock(mutex_);
  return {{"exclusive", exclusive_taken_},
          {"shared", shared_taken_},
          {"yields", yields_},
          {"set_aside", set_aside_},
          {"handed_over", handed_over_}};
}

}  // namespace kaudit::run
