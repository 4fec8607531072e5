#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/pg/pg_config.h"
#include "app/pool_stats.h"
#include "core/fair_semaphore.h"

namespace pqxx {
class connection_base;
}  // namespace pqxx

namespace docgate {

// At most `pool_size` PostgreSQL connections, opened on demand and kept open for reuse.
//
// Acquire hands out an idle connection or opens a new one while fewer than pool_size exist, else
// waits, first come first served, at most the given wait. An idle connection is checked before it
// is handed out (still open, and nothing unsolicited arrived on its socket, which is how a backend
// terminated by the server shows while idle); a failed check discards it and a fresh one is opened
// in its place. A lease whose connection broke, or that was Discard()ed, never returns to the pool.
//
// Every connection gets libpq's connect_timeout (whole seconds, at least 1), the statement timeout
// (as a startup option, so it survives libpqxx's own reconnects) and a TCP user timeout; when the
// server is down, Acquire fails within about the connect timeout.
//
// Throws StorageUnavailable: no free connection within the wait, or the server refused or did not
// answer (the message names host, port and database and gives libpq's reason, never the password).
// Thread-safe; must outlive every lease.
class PgConnectionPool {
 public:
  // Run on every new connection before it is first handed out (e.g. to register prepared
  // statements). May throw libpqxx exceptions; they are translated.
  using SetUp = std::function<void(pqxx::connection_base&)>;

  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    pqxx::connection_base& connection() const;
    // True when the connection served an earlier lease: it may have died while idle in a way the
    // check could not see yet, so one retry on a fresh connection is worth it for a first
    // statement.
    bool reused() const { return reused_; }
    // Closes the connection instead of returning it (call after a connection failure).
    void Discard();

   private:
    friend class PgConnectionPool;
    struct Slot;
    Lease(PgConnectionPool& pool, std::unique_ptr<Slot> slot, bool reused);

    PgConnectionPool* pool_;
    std::unique_ptr<Slot> slot_;
    bool reused_;
    bool discard_ = false;
  };

  PgConnectionPool(const PgConfig& config, SetUp set_up);
  PgConnectionPool(const PgConnectionPool&) = delete;
  PgConnectionPool& operator=(const PgConnectionPool&) = delete;
  ~PgConnectionPool();

  Lease Acquire() { return Acquire(wait_); }
  Lease Acquire(std::chrono::milliseconds wait);

  // Connections lent out (or being opened for a caller) and callers waiting, for metrics. Takes
  // the pool's lock briefly; never touches the network.
  PoolStats Stats();

  // "host:port/database", for messages.
  const std::string& description() const { return description_; }

 private:
  using Slot = Lease::Slot;

  std::unique_ptr<Slot> Open();
  // Takes back a connection (null: it broke or was discarded) and the place it held.
  void GiveBack(std::unique_ptr<Slot> slot);

  std::string conninfo_;
  std::string description_;
  SetUp set_up_;
  std::size_t size_;
  std::chrono::milliseconds wait_;

  // A permit is a place: an idle connection, or the right to open one.
  FairSemaphore places_;
  std::mutex idle_mutex_;
  std::vector<std::unique_ptr<Slot>> idle_;
};

}  // namespace docgate
