#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>

namespace docgate {

// A counting semaphore that serves waiters strictly in arrival order: a released permit goes to
// the longest waiter, never to a thread that arrives later, so nobody starves while others loop.
// The connection pools lend their places through it (SQLite's connections and writer slot,
// PostgreSQL's connections). Thread-safe.
class FairSemaphore {
 public:
  using Deadline = std::chrono::steady_clock::time_point;

  explicit FairSemaphore(std::size_t permits) : permits_(permits), free_(permits) {}
  FairSemaphore(const FairSemaphore&) = delete;
  FairSemaphore& operator=(const FairSemaphore&) = delete;

  // False when no permit came before the deadline.
  bool AcquireUntil(Deadline deadline);
  // Gives back a permit taken by AcquireUntil.
  void Release();

  // Threads waiting in AcquireUntil now.
  std::size_t Waiting();
  // Permits taken and not released now.
  std::size_t Taken();

 private:
  struct Waiter {
    std::condition_variable granted_cv;
    bool granted = false;
  };

  const std::size_t permits_;
  std::mutex mutex_;
  std::size_t free_;
  std::deque<Waiter*> waiters_;
};

}  // namespace docgate
