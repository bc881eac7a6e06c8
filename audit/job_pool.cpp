#include "audit/job_pool.h"

#include <utility>

namespace kaudit::audit {

std::optional<std::size_t> JobPool::take(int slot) {
  if (left_ == 0 || (*stop_)()) return std::nullopt;
  std::optional<std::size_t> first_left, first_ready;
  for (std::size_t i = 0; i < taken_.size() && !first_ready; ++i) {
    if (taken_[i]) continue;
    if (!first_left) first_left = i;
    if (!*ready_ || (*ready_)(i, slot)) first_ready = i;
  }
  const std::size_t item = first_ready.value_or(*first_left);
  taken_[item] = true;
  --left_;
  return item;
}

void JobPool::worker(int slot) {
  for (;;) {
    std::optional<std::size_t> item;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      item = take(slot);
    }
    if (!item) return;
    (*work_)(*item, slot);
  }
}

void JobPool::lend(int slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (left_ > 0 && !(*stop_)()) threads_.emplace_back([this, slot] { worker(slot); });
}

void JobPool::run(std::size_t items, int jobs, const Work& work, const std::function<bool()>& stop,
                  const Ready& ready) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    taken_.assign(items, false);
    left_ = items, work_ = &work, stop_ = &stop, ready_ = &ready;
    for (int w = 1; w < jobs; ++w) threads_.emplace_back([this, w] { worker(w); });
  }
  worker(0);
  // Workers lent a place start while others are joined: join until none is left.
  for (std::size_t k = 0;; ++k) {
    std::thread t;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (k >= threads_.size()) break;
      t = std::move(threads_[k]);
    }
    t.join();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.clear();
}

}  // namespace kaudit::audit
