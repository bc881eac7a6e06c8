#include "audit/job_pool.h"

#include <utility>

namespace kaudit::audit {

void JobPool::worker(int slot) {
  for (;;) {
    std::size_t item = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_ >= items_ || (*stop_)()) return;
      item = next_++;
    }
    (*work_)(item, slot);
  }
}

void JobPool::lend(int slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (next_ < items_ && !(*stop_)()) threads_.emplace_back([this, slot] { worker(slot); });
}

void JobPool::run(std::size_t items, int jobs, const Work& work, const std::function<bool()>& stop) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    items_ = items, next_ = 0, work_ = &work, stop_ = &stop;
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
