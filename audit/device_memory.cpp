#include "audit/device_memory.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>

namespace kaudit::audit {

std::optional<double> run_need_mib(const std::map<std::string, std::map<std::string, double>>& device_memory) {
  auto measure = [&](const std::string& process, const std::string& name) {
    const auto p = device_memory.find(process);
    if (p == device_memory.end()) return 0.0;
    const auto it = p->second.find(name);
    return it == p->second.end() ? 0.0 : it->second;
  };
  double peak = 0;
  for (const auto& [process, peaks] : device_memory) peak = std::max(peak, measure(process, "peak_reserved_mib"));
  if (peak <= 0) return std::nullopt;
  peak = std::max({peak, measure("reference", "peak_reserved_mib") + measure("submission", "import_peak_allocated_mib"),
                   measure("submission", "peak_reserved_mib") + measure("reference", "expected_peak_allocated_mib")});
  return peak + 2 * kProcessBaseMib;
}

std::optional<double> run_need_mib(const nlohmann::json& run_doc) {
  std::map<std::string, std::map<std::string, double>> record;
  const auto it = run_doc.is_object() ? run_doc.find("device_memory") : run_doc.end();
  if (it == run_doc.end() || !it->is_object()) return std::nullopt;
  for (const auto& [process, peaks] : it->items())
    if (peaks.is_object())
      for (const auto& [name, value] : peaks.items())
        if (value.is_number() && value.get<double>() >= 0 && value.get<double>() <= 1e9)
          record[process][name] = value.get<double>();
  return run_need_mib(record);
}

std::string problem_key(const std::filesystem::path& problem_dir) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(problem_dir, ec);
  return (ec ? problem_dir : canonical).string();
}

DeviceMemoryBudget::Reservation& DeviceMemoryBudget::Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    release();
    owner_ = std::exchange(o.owner_, nullptr);
    mib_ = o.mib_;
    scout_ = std::move(o.scout_);
  }
  return *this;
}

void DeviceMemoryBudget::Reservation::release() {
  if (owner_) std::exchange(owner_, nullptr)->give_back(mib_, scout_);
}

std::optional<double> DeviceMemoryBudget::learned_locked(const std::string& problem) const {
  const auto it = learned_.find(problem);
  return it != learned_.end() ? std::optional<double>(it->second) : std::nullopt;
}

double DeviceMemoryBudget::need_mib(const std::string& problem) {
  std::lock_guard<std::mutex> lock(m_);
  return learned_locked(problem).value_or(total_mib_ / jobs_);
}

DeviceMemoryBudget::Reservation DeviceMemoryBudget::reserve_locked(const std::string& problem) {
  const std::optional<double> learned = learned_locked(problem);
  const double need = learned.value_or(total_mib_ / jobs_);
  reserved_ += need;
  ++holders_;
  if (!learned) ++scouts_[problem];
  return Reservation(this, need, learned ? std::string() : problem);
}

DeviceMemoryBudget::Reservation DeviceMemoryBudget::admit(const std::string& problem, const std::function<bool()>& stop,
                                                          const std::function<void(double)>& on_wait,
                                                          const std::string& key) {
  std::unique_lock<std::mutex> lock(m_);
  if (const auto kept = kept_.find(key); !key.empty() && kept != kept_.end()) {
    Reservation room = std::move(kept->second);
    kept_.erase(kept);
    return room;
  }
  bool told = false;
  for (;;) {
    const double need = learned_locked(problem).value_or(total_mib_ / jobs_);
    if (fits_locked(problem) || (stop && stop())) return reserve_locked(problem);
    if (!told && on_wait) {
      told = true;
      lock.unlock();
      on_wait(need);
      lock.lock();
      continue;
    }
    // Woken when a reservation is given back or a need is learned; asked
    // again each second for an interruption.
    cv_.wait_for(lock, std::chrono::seconds(1));
  }
}

bool DeviceMemoryBudget::fits_locked(const std::string& problem) const {
  const std::optional<double> learned = learned_locked(problem);
  const auto scouts = scouts_.find(problem);
  const bool scout_under_way = scouts != scouts_.end() && scouts->second > 0;
  return holders_ == 0 ||
         (reserved_ + learned.value_or(total_mib_ / jobs_) <= total_mib_ && (learned.has_value() || !scout_under_way));
}

bool DeviceMemoryBudget::fits_now(const std::string& problem) {
  std::lock_guard<std::mutex> lock(m_);
  return fits_locked(problem);
}

bool DeviceMemoryBudget::admit_now_for(const std::string& key, const std::string& problem) {
  std::lock_guard<std::mutex> lock(m_);
  if (kept_.count(key) || !fits_locked(problem)) return false;
  kept_.emplace(key, reserve_locked(problem));
  return true;
}

void DeviceMemoryBudget::drop_kept(const std::string& key) {
  Reservation dropped;  // given back once the lock is released (give_back takes it)
  {
    std::lock_guard<std::mutex> lock(m_);
    const auto kept = kept_.find(key);
    if (kept == kept_.end()) return;
    dropped = std::move(kept->second);
    kept_.erase(kept);
  }
}

void DeviceMemoryBudget::learn(const std::string& problem, double mib) {
  {
    std::lock_guard<std::mutex> lock(m_);
    double& known = learned_[problem];
    known = std::max(known, std::min(mib, total_mib_));
  }
  cv_.notify_all();
}

double DeviceMemoryBudget::reserved_mib() {
  std::lock_guard<std::mutex> lock(m_);
  return reserved_;
}

void DeviceMemoryBudget::give_back(double mib, const std::string& scout) {
  {
    std::lock_guard<std::mutex> lock(m_);
    reserved_ -= mib;
    --holders_;
    if (!scout.empty()) --scouts_[scout];
  }
  cv_.notify_all();
}

std::optional<double> device_memory_total_mib(const std::string& gpu) {
  std::string id = gpu;
  if (id.empty()) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    id = visible ? std::string(visible).substr(0, std::string(visible).find(',')) : "0";
  }
  // An id goes into a command line: only what device ids are made of.
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; }))
    return std::nullopt;
  const std::string cmd = "nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i " + id + " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::array<char, 128> line{};
  const bool read = std::fgets(line.data(), line.size(), pipe) != nullptr;
  pclose(pipe);
  if (!read) return std::nullopt;
  char* end = nullptr;
  const double mib = std::strtod(line.data(), &end);
  if (end == line.data() || !(mib > 0)) return std::nullopt;
  return mib;
}

}  // namespace kaudit::audit
