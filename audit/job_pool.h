// The batch's workers (kaudit audit --jobs N): N threads take the items in
// order. A run that failed for the machine waits, holding no workspace, to be
// made again with the batch to itself (audit/environment.h); while it waits
// its worker lends its place to a new one, so the batch keeps N runs going
// instead of running one short until its end. On one H100 a first MoE run
// that ran out of device memory early held its worker for the rest of the
// batch, twice.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace kaudit::audit {

class JobPool {
 public:
  // work(item, slot) for every item from 0 to `items` - 1, in order, on up
  // to `jobs` workers at once (slot: the worker's place, 0 to jobs - 1); no
  // new item is taken once `stop()` says so. Returns when every worker is done.
  using Work = std::function<void(std::size_t item, int slot)>;
  void run(std::size_t items, int jobs, const Work& work, const std::function<bool()>& stop);
  // From inside work(): this worker is about to wait for the rest of the
  // batch; a new worker takes its place (`slot`) while items are left.
  void lend(int slot);

 private:
  void worker(int slot);

  std::mutex mutex_;
  std::deque<std::thread> threads_;  // every worker but the caller's; a deque keeps them where they are
  std::size_t items_ = 0, next_ = 0;
  const Work* work_ = nullptr;
  const std::function<bool()>* stop_ = nullptr;
};

}  // namespace kaudit::audit
