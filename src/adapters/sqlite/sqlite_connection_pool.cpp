#include "adapters/sqlite/sqlite_connection_pool.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.h"

namespace docgate {

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
