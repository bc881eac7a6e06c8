#include "runner/judge/output_checks.h"

#include "common/utf8.h"

namespace kaudit::run {
using json = nlohmann::json;

namespace {

// The arguments that decide a check (the run's folder, tolerances and
// near-miss allowance are the object's own).
std::string key_of(const json& got, const json& expected, std::optional<double> stress_baseline,
                   double stress_allowance) {
  return common::json_text(json{{"got", got},
                                {"expected", expected},
                                {"baseline", stress_baseline ? json(*stress_baseline) : json(nullptr)},
                                {"allowance", stress_allowance}});
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

OutputCheck OutputChecks::run(const Job& job) const {
  return check_outputs(job.got, job.expected, xfer_, tolerances_, job.stress_baseline, job.stress_allowance,
                       near_miss_);
}

void OutputChecks::start(const json& got, const json& expected, std::optional<double> stress_baseline,
                         double stress_allowance) {
  const std::string key = key_of(got, expected, stress_baseline, stress_allowance);
  std::lock_guard lock(mutex_);
  if (stopping_ || results_.count(key)) return;
  Job job{got, expected, stress_baseline, stress_allowance, {}};
  results_[key] = job.result.get_future().share();
  queue_.push_back(std::move(job));
  ++started_count_;
  if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
  wake_.notify_one();
}

void OutputChecks::arrived(const std::string& id, const json& outputs) {
  std::lock_guard lock(arrivals_mutex_);
  arrived_[id] = outputs;
  if (const auto p = pending_.find(id); p != pending_.end())
    start(p->second.got, outputs, p->second.stress_baseline, p->second.stress_allowance);
}

void OutputChecks::expect(std::map<std::string, PendingCheck> pending) {
  std::lock_guard lock(arrivals_mutex_);
  for (auto& [id, check] : pending) {
    if (const auto a = arrived_.find(id); a != arrived_.end())
      start(check.got, a->second, check.stress_baseline, check.stress_allowance);
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

OutputCheck OutputChecks::check(const json& got, const json& expected, std::optional<double> stress_baseline,
                                double stress_allowance) {
  std::shared_future<OutputCheck> started;
  {
    std::lock_guard lock(mutex_);
    const auto it = results_.find(key_of(got, expected, stress_baseline, stress_allowance));
    if (it != results_.end()) started = it->second, ++reused_count_;
  }
  if (started.valid()) return started.get();
  return run(Job{got, expected, stress_baseline, stress_allowance, {}});
}

std::map<std::string, PendingCheck> case_check(const RunPlan& plan, int graded_shapes, int shape, int c,
                                              const json& got) {
  if (shape < graded_shapes && c >= 0 && c < static_cast<int>(plan.cases.size()) &&
      plan.cases[static_cast<std::size_t>(c)].kind != "stress")
    return {{correctness_case_id(shape, c), {got, std::nullopt, plan.stress_allowance}}};
  if (shape >= graded_shapes && c == 0)  // an off-grid shape's one call
    return {{correctness_case_id(shape, c), {got, std::nullopt, 0.0}}};
  return {};
}

std::map<std::string, PendingCheck> sample_checks(int shape, const std::string& mode, const json& samples,
                                                 const std::filesystem::path& xfer) {
  std::map<std::string, PendingCheck> pending;
  for (const auto& s : samples)
    if (s.is_object() && valid_entries(s.value("outputs", json()), xfer, "out"))
      pending[timed_sample_id(shape, mode, s.value("call", 0))] = {s["outputs"], std::nullopt, 0};
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
