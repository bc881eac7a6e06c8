// The batch's workers (kaudit audit --jobs N): N threads take the items in
// order. A run that failed for the machine waits, holding no workspace, to be
// made again with the batch to itself (audit/environment.h); while it waits
// its worker lends its place to a new one, so the batch keeps N runs going
// instead of running one short until its end. On one H100 a first MoE run
// that ran out of device memory early held its worker for the rest of the
// batch, twice.
//
// A worker takes the first item left that can start now (`ready`: its run
// fits in the device's memory beside those under way), else the first left:
// a run that must wait for room holds its worker idle, and on an H100 one or
// two of six workers at a time waited 30 to 150 s for room for an MoE run
// while later items of other problems could have run.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace kaudit::audit {

class JobPool {
 public:
  // work(item, slot) for every item from 0 to `items` - 1, in order of
  // readiness, then in order, on up to `jobs` workers at once (slot: the
  // worker's place, 0 to jobs - 1); no new item is taken once `stop()` says
  // so. Returns when every worker is done. `ready(item, slot)` (null: every
  // item is) is asked under the pool's lock and must not wait.
  using Work = std::function<void(std::size_t item, int slot)>;
  using Ready = std::function<bool(std::size_t item, int slot)>;
  void run(std::size_t items, int jobs, const Work& work, const std::function<bool()>& stop,
           const Ready& ready = nullptr);
  // From inside work(): this worker is about to wait for the rest of the
  // batch; a new worker takes its place (`slot`) while items are left.
  void lend(int slot);

 private:
  void worker(int slot);
  std::optional<std::size_t> take(int slot);  // under mutex_: the item this worker runs next

  std::mutex mutex_;
  std::deque<std::thread> threads_;  // every worker but the caller's; a deque keeps them where they are
  std::vector<bool> taken_;
  std::size_t left_ = 0;  // items not taken yet
  const Work* work_ = nullptr;
  const Ready* ready_ = nullptr;
  const std::function<bool()>* stop_ = nullptr;
};

}  // namespace kaudit::audit
