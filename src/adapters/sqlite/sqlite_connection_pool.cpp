#include "adapters/sqlite/sqlite_connection_pool.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.h"

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

SqliteConnectionPool::Lease::Lease(SqliteConnectionPool& pool,
                                   std::unique_ptr<SqliteConnection> connection, bool writer)
    : pool_(&pool), connection_(std::move(connection)), writer_(writer) {}

SqliteConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), connection_(std::move(other.connection_)), writer_(other.writer_) {}

SqliteConnectionPool::Lease::~Lease() {
  if (connection_ != nullptr) pool_->GiveBack(std::move(connection_), writer_);
}

SqliteConnectionPool::SqliteConnectionPool(
    std::vector<std::unique_ptr<SqliteConnection>> connections, std::chrono::milliseconds wait)
    : wait_(wait),
      size_(connections.size()),
      connection_slots_(connections.size()),
      idle_(std::move(connections)) {}

SqliteConnectionPool::Lease SqliteConnectionPool::Acquire() {
  if (!connection_slots_.AcquireUntil(Deadline())) throw NoFreeConnection();
  return Pop(false);
}

SqliteConnectionPool::Lease SqliteConnectionPool::AcquireWriter() {
  const auto deadline = Deadline();
  if (!writer_slot_.AcquireUntil(deadline)) {
    throw StorageUnavailable("sqlite: another write transaction held the database for over " +
                             std::to_string(wait_.count()) + " ms");
  }
  if (!connection_slots_.AcquireUntil(deadline)) {
    writer_slot_.Release();
    throw NoFreeConnection();
  }
  return Pop(true);
}

PoolStats SqliteConnectionPool::Stats() {
  std::size_t idle = 0;
  {
    std::lock_guard lock(idle_mutex_);
    idle = idle_.size();
  }
  return PoolStats{size_, size_ - idle, writer_slot_.Waiting() + connection_slots_.Waiting()};
}

FairSemaphore::Deadline SqliteConnectionPool::Deadline() const {
  return std::chrono::steady_clock::now() + wait_;
}

StorageUnavailable SqliteConnectionPool::NoFreeConnection() const {
  return StorageUnavailable("sqlite: no free connection of " + std::to_string(size_) + " within " +
                            std::to_string(wait_.count()) + " ms");
}

SqliteConnectionPool::Lease SqliteConnectionPool::Pop(bool writer) {
  std::lock_guard lock(idle_mutex_);
  std::unique_ptr<SqliteConnection> connection = std::move(idle_.back());
  idle_.pop_back();
  return Lease(*this, std::move(connection), writer);
}

void SqliteConnectionPool::GiveBack(std::unique_ptr<SqliteConnection> connection, bool writer) {
  {
    std::lock_guard lock(idle_mutex_);
    idle_.push_back(std::move(connection));
  }
  connection_slots_.Release();
  if (writer) writer_slot_.Release();
}

}  // namespace docgate
