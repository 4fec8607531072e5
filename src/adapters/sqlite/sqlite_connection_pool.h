#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "adapters/sqlite/sqlite_connection.h"
#include "app/pool_stats.h"
#include "core/error.h"
#include "core/fair_semaphore.h"

namespace docgate {

// The store's connections and its one writer slot. SQLite admits one writer at a time; queueing
// writers here, in arrival order, instead of in sqlite's sleep-and-retry busy handler keeps a
// writer from losing the race for the database lock again and again until its timeout. The busy
// handler then only waits for other processes. Thread-safe; must outlive every lease.
class SqliteConnectionPool {
 public:
  // A connection lent to one thread; given back by the destructor. Move-only.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    SqliteConnection& operator*() const { return *connection_; }
    SqliteConnection* operator->() const { return connection_.get(); }

   private:
    friend class SqliteConnectionPool;
    Lease(SqliteConnectionPool& pool, std::unique_ptr<SqliteConnection> connection, bool writer);

    SqliteConnectionPool* pool_;
    std::unique_ptr<SqliteConnection> connection_;
    bool writer_;
  };

  // `wait` bounds how long Acquire* wait for the writer slot and a free connection together.
  SqliteConnectionPool(std::vector<std::unique_ptr<SqliteConnection>> connections,
                       std::chrono::milliseconds wait);

  // Any connection, for reads in autocommit. Throws StorageUnavailable after `wait`.
  Lease Acquire();
  // The writer slot, then a connection. Throws StorageUnavailable after `wait`.
  Lease AcquireWriter();

  // Connections lent out and threads waiting (for the writer slot or a connection), for metrics.
  PoolStats Stats();

 private:
  FairSemaphore::Deadline Deadline() const;
  StorageUnavailable NoFreeConnection() const;
  Lease Pop(bool writer);
  void GiveBack(std::unique_ptr<SqliteConnection> connection, bool writer);

  std::chrono::milliseconds wait_;
  std::size_t size_;
  FairSemaphore writer_slot_{1};
  FairSemaphore connection_slots_;
  std::mutex idle_mutex_;
  std::vector<std::unique_ptr<SqliteConnection>> idle_;
};

}  // namespace docgate
