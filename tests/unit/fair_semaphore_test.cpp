#include "core/fair_semaphore.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace docgate {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Waits (a bounded while) until `semaphore` has `count` waiters.
bool WaitForWaiters(FairSemaphore& semaphore, std::size_t count) {
  const auto deadline = SteadyClock::now() + std::chrono::seconds(30);
  while (semaphore.Waiting() != count) {
    if (SteadyClock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(FairSemaphore, PermitsAreCountedAndAnExpiredWaitGivesUp) {
  FairSemaphore semaphore(2);
  EXPECT_TRUE(semaphore.AcquireUntil(SteadyClock::now()));
  EXPECT_TRUE(semaphore.AcquireUntil(SteadyClock::now()));
  EXPECT_EQ(semaphore.Taken(), 2u);
  EXPECT_FALSE(semaphore.AcquireUntil(SteadyClock::now() + std::chrono::milliseconds(1)));
  EXPECT_EQ(semaphore.Waiting(), 0u) << "a waiter that gave up leaves the queue";
  semaphore.Release();
  EXPECT_EQ(semaphore.Taken(), 1u);
  EXPECT_TRUE(semaphore.AcquireUntil(SteadyClock::now()));
}

TEST(FairSemaphore, ReleasedPermitsGoToWaitersInArrivalOrderNotToNewcomers) {
  FairSemaphore semaphore(1);
  ASSERT_TRUE(semaphore.AcquireUntil(SteadyClock::now()));
  std::mutex order_mutex;
  std::vector<int> order;
  std::atomic<bool> may_release{false};
  const auto waiter = [&](int id) {
    ASSERT_TRUE(semaphore.AcquireUntil(SteadyClock::now() + std::chrono::seconds(60)));
    {
      const std::lock_guard lock(order_mutex);
      order.push_back(id);
    }
    while (!may_release) std::this_thread::yield();
    semaphore.Release();
  };
  std::vector<std::thread> threads;
  for (int id = 1; id <= 3; ++id) {
    threads.emplace_back(waiter, id);
    ASSERT_TRUE(WaitForWaiters(semaphore, static_cast<std::size_t>(id)));
  }
  semaphore.Release();
  ASSERT_TRUE(WaitForWaiters(semaphore, 2)) << "the first waiter got the permit";
  EXPECT_FALSE(semaphore.AcquireUntil(SteadyClock::now())) << "a newcomer queues behind the waiters";
  may_release = true;
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(semaphore.Taken(), 0u);
}

}  // namespace
}  // namespace docgate
