#include "runner/judge/output_checks.h"

#include "common/utf8.h"

namespace kaudit::run {
using json = nlohmann::json;

namespace {

// The arguments that decide a check (the run's folder, tolerances and
// near-miss allowance are the object's own).
std::string key_of(const json& got, const json& expected, double stress_allowance) {
  return common::json_text(json{{"got", got}, {"expected", expected}, {"allowance", stress_allowance}});
}

}  // namespace

OutputChecks::OutputChecks(std::filesystem::path xfer, ToleranceTable tolerances, NearMissAllowance near_miss)
    : xfer_(std::move(xfer)), tolerances_(std::move(tolerances)), near_miss_(near_miss) {}

OutputChecks::~OutputChecks() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

// A check against another expected output's magnitude is decided by that
// output's id, whatever the magnitude turns out to be.
std::string key_against(const json& got, const json& expected, const std::string& baseline_id, double stress_allowance) {
  return common::json_text(
      json{{"got", got}, {"expected", expected}, {"baseline_of", baseline_id}, {"allowance", stress_allowance}});
}

double OutputChecks::magnitude_of(const std::string& id, const json& entries) {
  std::lock_guard lock(magnitudes_mutex_);
  if (const auto known = magnitudes_.find(id); known != magnitudes_.end()) return known->second;
  double m = 0.0;  // unreadable or never computed: the tolerance stays as it is
  try {
    if (entries.is_array()) m = magnitude(read_output_files(entries, xfer_));
  } catch (const std::exception&) {
  }
  return magnitudes_[id] = m;
}

bool OutputChecks::all_finite(const json& entries) const {
  try {
    if (!entries.is_array()) return true;
    for (const auto& t : read_output_files(entries, xfer_))
      if (!t.all_finite()) return false;
  } catch (const std::exception&) {
  }
  return true;
}

OutputCheck OutputChecks::check_excusing_non_finite(const json& got, const json& expected) const {
  ToleranceTable excusing = tolerances_;
  excusing.non_finite_expected_excused = true;
  return check_outputs(got, expected, xfer_, excusing, std::nullopt, 0.0, near_miss_);
}

OutputCheck OutputChecks::run(const Job& job) {
  const std::optional<double> baseline =
      job.baseline_id.empty() ? std::nullopt : std::optional<double>(magnitude_of(job.baseline_id, job.baseline));
  return check_outputs(job.got, job.expected, xfer_, tolerances_, baseline, job.stress_allowance, near_miss_);
}

void OutputChecks::enqueue(const std::string& key, Job job) {
  std::lock_guard lock(mutex_);
  if (stopping_ || results_.count(key)) return;
  results_[key] = job.result.get_future().share();
  queue_.push_back(std::move(job));
  ++started_count_;
  if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
  wake_.notify_one();
}

void OutputChecks::start(const json& got, const json& expected, double stress_allowance) {
  enqueue(key_of(got, expected, stress_allowance), Job{got, expected, stress_allowance, {}, {}, {}});
}

// Under arrivals_mutex_.
void OutputChecks::begin_if_ready(const PendingCheck& check, const json& expected) {
  if (check.baseline_id.empty()) return start(check.got, expected, check.stress_allowance);
  const auto base = arrived_.find(check.baseline_id);
  if (base == arrived_.end()) return;
  enqueue(key_against(check.got, expected, check.baseline_id, check.stress_allowance),
          Job{check.got, expected, check.stress_allowance, {}, check.baseline_id, base->second});
}

void OutputChecks::arrived(const std::string& id, const json& outputs) {
  std::lock_guard lock(arrivals_mutex_);
  arrive(id, outputs);
  const auto [first, last] = aliases_.equal_range(id);
  for (auto a = first; a != last; ++a) arrive(a->second, outputs);
}

// Under arrivals_mutex_.
void OutputChecks::arrive(const std::string& id, const json& outputs) {
  arrived_[id] = outputs;
  for (const auto& [pending_id, check] : pending_) {
    if (pending_id == id) begin_if_ready(check, outputs);
    else if (check.baseline_id == id)  // the baseline came after the output it is a baseline for
      if (const auto own = arrived_.find(pending_id); own != arrived_.end()) begin_if_ready(check, own->second);
  }
}

void OutputChecks::alias(const std::string& id, const std::string& same_as) {
  std::lock_guard lock(arrivals_mutex_);
  aliases_.emplace(same_as, id);
  if (const auto a = arrived_.find(same_as); a != arrived_.end()) arrive(id, json(a->second));
}

void OutputChecks::expect(std::map<std::string, PendingCheck> pending) {
  std::lock_guard lock(arrivals_mutex_);
  for (auto& [id, check] : pending) {
    if (const auto a = arrived_.find(id); a != arrived_.end()) begin_if_ready(check, a->second);
    pending_[id] = std::move(check);
  }
}

void OutputChecks::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      job.result.set_value(run(job));
    } catch (...) {  // given to whoever reads it, as a check made on its own thread would throw
      job.result.set_exception(std::current_exception());
    }
  }
}

OutputCheck OutputChecks::check(const json& got, const json& expected, double stress_allowance) {
  std::shared_future<OutputCheck> started;
  {
    std::lock_guard lock(mutex_);
    const auto it = results_.find(key_of(got, expected, stress_allowance));
    if (it != results_.end()) started = it->second, ++reused_count_;
  }
  if (started.valid()) return started.get();
  return run(Job{got, expected, stress_allowance, {}, {}, {}});
}

OutputCheck OutputChecks::check_against(const json& got, const json& expected, const std::string& baseline_id,
                                        const json& baseline, double stress_allowance) {
  std::shared_future<OutputCheck> started;
  {
    std::lock_guard lock(mutex_);
    const auto it = results_.find(key_against(got, expected, baseline_id, stress_allowance));
    if (it != results_.end()) started = it->second, ++reused_count_;
  }
  if (started.valid()) return started.get();
  return run(Job{got, expected, stress_allowance, {}, baseline_id, baseline});
}

std::map<std::string, PendingCheck> case_check(const RunPlan& plan, int graded_shapes, int shape, int c,
                                              const json& got) {
  if (c < 0) return {};
  const std::string id = correctness_case_id(shape, c);
  if (shape >= graded_shapes) return c == 0 ? std::map<std::string, PendingCheck>{{id, {got, 0.0, {}}}}
                                            : std::map<std::string, PendingCheck>{};  // an off-grid shape's one call
  // A stress case (judge_case) or a distribution probe (judge_probe_call):
  // against the magnitude of the shape's first case's expected output.
  const bool graded = c < static_cast<int>(plan.cases.size());
  if (!graded || plan.cases[static_cast<std::size_t>(c)].kind == "stress")
    return {{id, {got, plan.stress_allowance, correctness_case_id(shape, 0)}}};
  return {{id, {got, plan.stress_allowance, {}}}};
}

std::map<std::string, PendingCheck> sample_checks(int shape, const std::string& mode, const json& samples,
                                                 const std::filesystem::path& xfer) {
  std::map<std::string, PendingCheck> pending;
  for (const auto& s : samples)
    if (s.is_object() && valid_entries(s.value("outputs", json()), xfer, "out"))
      pending[timed_sample_id(shape, mode, s.value("call", 0))] = {s["outputs"], 0, {}};
  return pending;
}

std::map<std::string, PendingCheck> checks_to_start(const RunPlan& plan, const SubmissionReport& report,
                                                   int graded_shapes, const std::filesystem::path& xfer) {
  std::map<std::string, PendingCheck> pending;
  for (const auto& [key, got] : report.outputs) pending.merge(case_check(plan, graded_shapes, key.first, key.second, got));
  for (const auto& [key, t] : report.timings)
    pending.merge(sample_checks(key.first, key.second, t.value("samples", json::array()), xfer));
  return pending;
}

}  // namespace kaudit::run
