#include "adapters/pg/pg_connection_pool.h"

#include <poll.h>

#include <algorithm>
#include <pqxx/connection>
#include <utility>

#include "adapters/pg/pg_conninfo.h"
#include "adapters/pg/pg_errors.h"
#include "core/error.h"

namespace docgate {
namespace {

// An idle connection has nothing to say; anything readable is the server's goodbye (a FATAL message
// before it closed the socket) or the close itself.
bool LooksAlive(pqxx::connection_base& connection) {
  if (!connection.is_open()) return false;
  pollfd fd{connection.sock(), POLLIN, 0};
  return fd.fd >= 0 && ::poll(&fd, 1, 0) == 0;
}

}  // namespace

struct PgConnectionPool::Lease::Slot {
  explicit Slot(const std::string& conninfo) : connection(conninfo) {}
  pqxx::connection connection;
};

PgConnectionPool::Lease::Lease(PgConnectionPool& pool, std::unique_ptr<Slot> slot, bool reused)
    : pool_(&pool), slot_(std::move(slot)), reused_(reused) {}

PgConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)),
      slot_(std::move(other.slot_)),
      reused_(other.reused_),
      discard_(other.discard_) {}

PgConnectionPool::Lease::~Lease() {
  if (pool_ == nullptr) return;
  if (discard_ || !slot_->connection.is_open()) slot_.reset();
  pool_->GiveBack(std::move(slot_));
}

pqxx::connection_base& PgConnectionPool::Lease::connection() const { return slot_->connection; }

void PgConnectionPool::Lease::Discard() { discard_ = true; }

PgConnectionPool::PgConnectionPool(const PgConfig& config, SetUp set_up)
    : set_up_(std::move(set_up)),
      size_(static_cast<std::size_t>(std::max(1, config.pool_size))),
      wait_(config.pool_wait_timeout),
      places_(size_) {
  const auto params = ParsePgUrl(config.url);
  conninfo_ = BuildPgConnInfo(params, config);
  description_ = DescribePgTarget(params);
}

PgConnectionPool::~PgConnectionPool() = default;

PgConnectionPool::Lease PgConnectionPool::Acquire(std::chrono::milliseconds wait) {
  if (!places_.AcquireUntil(std::chrono::steady_clock::now() + wait)) {
    throw StorageUnavailable("postgres: no free connection to " + description_ + " of " +
                             std::to_string(size_) + " within " + std::to_string(wait.count()) +
                             " ms");
  }
  // From here on this call holds one of the pool's places: an idle connection, or the right to
  // open one (there are never more idle connections than free places).
  std::unique_ptr<Slot> slot;
  {
    const std::lock_guard lock(idle_mutex_);
    if (!idle_.empty()) {
      slot = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  const bool reused = slot != nullptr && LooksAlive(slot->connection);
  if (!reused) {
    slot.reset();
    try {
      slot = Open();
    } catch (...) {
      GiveBack(nullptr);
      throw;
    }
  }
  return Lease(*this, std::move(slot), reused);
}

PoolStats PgConnectionPool::Stats() { return PoolStats{size_, places_.Taken(), places_.Waiting()}; }

std::unique_ptr<PgConnectionPool::Slot> PgConnectionPool::Open() {
  try {
    auto slot = std::make_unique<Slot>(conninfo_);
    if (set_up_) set_up_(slot->connection);
    return slot;
  } catch (const std::exception&) {
    RethrowAsStorageFailure("connect to " + description_);
  }
}

void PgConnectionPool::GiveBack(std::unique_ptr<Slot> slot) {
  if (slot != nullptr) {
    const std::lock_guard lock(idle_mutex_);
    idle_.push_back(std::move(slot));
  }
  // After the connection is idle, so that the waiter this place goes to finds it.
  places_.Release();
}

}  // namespace docgate
