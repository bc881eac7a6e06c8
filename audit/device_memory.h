// Runs side by side on one device must fit in its memory. On one H100 (80
// GB) an MoE run's two processes reserved up to 60 GB and paged attention's
// 50: three runs of the gate ran out of device memory beside each other and
// were made again alone at the end of the batch, past the call's limit. A
// run of a problem starts beside others only while what the runs under way
// need, and what it needs, fit in the device's memory; what a problem's run
// needs is learned from its runs that ended (run.json `device_memory`, also
// those a resumed batch kept), and is a fair share of the device (its memory
// over the jobs) until one has; until then one run of the problem goes at a
// time (in a fresh batch's first wave two MoE runs, each taken for a fair
// share, ran out of memory together). A run that is alone always starts.
#pragma once

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace kaudit::audit {

// What one run needs of the device (MiB) from its `device_memory` record:
// the larger of its two processes' reserved peaks, or, where larger, one
// process's peak with what the other holds beside it: sandboxed, the
// submission imports while the reference draws its inputs (its
// `import_peak_allocated_mib` beside the reference's peak:
// runner/session/submission_session.h), and the reference computes
// expected outputs while the submission makes its calls (its
// `expected_peak_allocated_mib` beside the submission's peak:
// runner/session/reference_session.h); and kProcessBaseMib for each
// process's context and libraries. Nothing when the record has no peak. The
// submission's peak is its own process's word: a need learned is the most
// any run of the problem reported, capped at the device, so claiming little
// cannot lower it below honest runs' and claiming much only makes the
// problem's runs wait for room.
constexpr double kProcessBaseMib = 1024;
std::optional<double> run_need_mib(const std::map<std::string, std::map<std::string, double>>& device_memory);
// The same from a run.json document (read leniently: a kept run of an
// earlier call, whatever it holds).
std::optional<double> run_need_mib(const nlohmann::json& run_doc);
// The name a budget knows a problem by: its folder, made canonical.
std::string problem_key(const std::filesystem::path& problem_dir);

class DeviceMemoryBudget {
 public:
  DeviceMemoryBudget(double total_mib, int jobs) : total_mib_(total_mib), jobs_(jobs < 1 ? 1 : jobs) {}

  // Held while a run uses the device; given back when destroyed. Movable.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(DeviceMemoryBudget* owner, double mib, std::string scout)
        : owner_(owner), mib_(mib), scout_(std::move(scout)) {}
    Reservation(Reservation&& o) noexcept : owner_(o.owner_), mib_(o.mib_), scout_(std::move(o.scout_)) {
      o.owner_ = nullptr;
    }
    Reservation& operator=(Reservation&& o) noexcept;
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation() { release(); }
    void release();
    double mib() const { return owner_ ? mib_ : 0; }

   private:
    DeviceMemoryBudget* owner_ = nullptr;
    double mib_ = 0;
    std::string scout_;  // the problem, when its need was not known at admission
  };

  // What a run of `problem` needs (MiB): learned, or the fair share.
  double need_mib(const std::string& problem);
  // Waits until a run of `problem` fits beside the reservations held, and
  // no other run of it is under way while its need is unknown (or none is
  // held, or `stop()` says so), then reserves what it needs.
  // `on_wait(need_mib)` hears once that it has to wait. With the `key` of a
  // batch item that admit_now_for() admitted, its kept reservation.
  Reservation admit(const std::string& problem, const std::function<bool()>& stop,
                    const std::function<void(double)>& on_wait = nullptr, const std::string& key = "");
  // Whether admit() would reserve for a run of `problem` now, without waiting.
  bool fits_now(const std::string& problem);
  // When a batch's worker takes item `key` (audit/job_pool.h): reserves for
  // its run of `problem` now if it fits, and keeps the reservation for that
  // run's admit(), so that the items taken next see it. Asked only when
  // workers take items at once (a batch's first wave took two MoE runs whose
  // need was unknown, and the second then waited 133 s for room, holding
  // its worker). Whether it did.
  bool admit_now_for(const std::string& key, const std::string& problem);
  // Gives back what admit_now_for() kept for `key` and no run took.
  void drop_kept(const std::string& key);
  // A run of `problem` ended and needed `mib`: its runs need at least that from now on.
  void learn(const std::string& problem, double mib);
  double reserved_mib();

 private:
  void give_back(double mib, const std::string& scout);
  std::optional<double> learned_locked(const std::string& problem) const;  // under m_
  bool fits_locked(const std::string& problem) const;                      // under m_
  Reservation reserve_locked(const std::string& problem);                  // under m_
  const double total_mib_;
  const int jobs_;
  std::mutex m_;
  std::condition_variable cv_;
  double reserved_ = 0;
  int holders_ = 0;
  std::map<std::string, double> learned_;
  std::map<std::string, int> scouts_;  // problem -> its runs under way admitted while its need was unknown
  std::map<std::string, Reservation> kept_;  // item key -> admitted when taken (admit_now_for), not yet run
};

// The memory of device `gpu` (an index or UUID as CUDA_VISIBLE_DEVICES takes
// them; empty: the first the audit's own environment shows) from nvidia-smi,
// in MiB; nothing where it cannot be read (no NVIDIA driver: the CPU).
std::optional<double> device_memory_total_mib(const std::string& gpu);

}  // namespace kaudit::audit
