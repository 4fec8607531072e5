#include "core/fair_semaphore.h"

#include <algorithm>

namespace docgate {

bool FairSemaphore::AcquireUntil(Deadline deadline) {
  std::unique_lock lock(mutex_);
  if (free_ > 0 && waiters_.empty()) {
    --free_;
    return true;
  }
  Waiter me;
  waiters_.push_back(&me);
  if (me.granted_cv.wait_until(lock, deadline, [&] { return me.granted; })) return true;
  waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &me));
  return false;
}

void FairSemaphore::Release() {
  std::lock_guard lock(mutex_);
  if (waiters_.empty()) {
    ++free_;
    return;
  }
  // Hand the permit straight to the longest waiter so a newcomer cannot take it first.
  Waiter* next = waiters_.front();
  waiters_.pop_front();
  next->granted = true;
  next->granted_cv.notify_one();
}

std::size_t FairSemaphore::Waiting() {
  std::lock_guard lock(mutex_);
  return waiters_.size();
}

std::size_t FairSemaphore::Taken() {
  std::lock_guard lock(mutex_);
  return permits_ - free_;
}

}  // namespace docgate
