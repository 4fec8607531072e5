#include "adapters/pg/pg_connection_pool.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <pqxx/connection>
#include <utility>

#include "adapters/pg/pg_errors.h"
#include "core/error.h"
#include "core/redact.h"

namespace docgate {
namespace {

std::int64_t CeilSeconds(std::chrono::milliseconds ms) { return (ms.count() + 999) / 1000; }

// libpq keyword/value syntax: single quotes, with ' and \ escaped.
std::string Quote(const std::string& value) {
  std::string quoted = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') quoted.push_back('\\');
    quoted.push_back(c);
  }
  quoted.push_back('\'');
  return quoted;
}

std::map<std::string, std::string> ParseUrl(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    std::string reason = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
    throw StorageUnavailable("postgres: malformed database URL: " +
                             RedactSecretsOf(reason, url));
  }
  std::map<std::string, std::string> params;
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val != nullptr && *o->val != '\0') params[o->keyword] = o->val;
  }
  PQconninfoFree(options);
  return params;
}

// The URL's parameters plus the timeouts of the config. The statement timeout travels as a startup
// option so that it holds on every connection libpq (re)opens; the TCP settings bound how long a
// vanished server can keep a call waiting.
std::string BuildConnInfo(std::map<std::string, std::string> params, const PgConfig& config) {
  params["connect_timeout"] =
      std::to_string(std::max<std::int64_t>(1, CeilSeconds(config.connect_timeout)));
  std::string& options = params["options"];
  if (!options.empty()) options += ' ';
  options += "-c statement_timeout=" + std::to_string(config.statement_timeout.count());
  const std::int64_t user_timeout_ms =
      config.connect_timeout.count() + config.statement_timeout.count();
  params.try_emplace("tcp_user_timeout", std::to_string(user_timeout_ms));
  params.try_emplace("keepalives_idle", std::to_string(std::max<std::int64_t>(
                                            1, CeilSeconds(config.statement_timeout))));
  params.try_emplace("keepalives_interval", "1");
  params.try_emplace("keepalives_count", "3");
  params.try_emplace("application_name", "docgate");
  std::string conninfo;
  for (const auto& [keyword, value] : params) {
    if (!conninfo.empty()) conninfo += ' ';
    conninfo += keyword + '=' + Quote(value);
  }
  return conninfo;
}

std::string Describe(const std::map<std::string, std::string>& params) {
  const auto get = [&](const char* key, const char* fallback) {
    const auto it = params.find(key);
    return it == params.end() ? std::string(fallback) : it->second;
  };
  const std::string host = get("host", get("hostaddr", "local socket").c_str());
  return host + ":" + get("port", "5432") + "/" + get("dbname", get("user", "").c_str());
}

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

struct PgConnectionPool::Waiter {
  std::condition_variable granted_cv;
  bool granted = false;
  std::unique_ptr<Slot> slot;  // null: the right to open a connection
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
      wait_(config.pool_wait_timeout) {
  const auto params = ParseUrl(config.url);
  conninfo_ = BuildConnInfo(params, config);
  description_ = Describe(params);
}

PgConnectionPool::~PgConnectionPool() = default;

PgConnectionPool::Lease PgConnectionPool::Acquire(std::chrono::milliseconds wait) {
  std::unique_ptr<Slot> slot;
  {
    std::unique_lock lock(mutex_);
    if (waiters_.empty() && (!idle_.empty() || open_ < size_)) {
      if (!idle_.empty()) {
        slot = std::move(idle_.back());
        idle_.pop_back();
      } else {
        ++open_;
      }
    } else {
      Waiter me;
      waiters_.push_back(&me);
      const auto deadline = std::chrono::steady_clock::now() + wait;
      if (!me.granted_cv.wait_until(lock, deadline, [&] { return me.granted; })) {
        waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &me));
        throw StorageUnavailable("postgres: no free connection to " + description_ + " of " +
                                 std::to_string(size_) + " within " + std::to_string(wait.count()) +
                                 " ms");
      }
      slot = std::move(me.slot);
    }
  }
  // From here on this call holds one of the pool's places: a connection, or the right to open one.
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

PoolStats PgConnectionPool::Stats() {
  std::lock_guard lock(mutex_);
  return PoolStats{size_, open_ - idle_.size(), waiters_.size()};
}

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
  std::lock_guard lock(mutex_);
  if (!waiters_.empty()) {
    // Straight to the longest waiter, so that a newcomer cannot overtake it.
    Waiter* next = waiters_.front();
    waiters_.pop_front();
    next->slot = std::move(slot);
    next->granted = true;
    next->granted_cv.notify_one();
    return;
  }
  if (slot != nullptr) {
    idle_.push_back(std::move(slot));
  } else {
    --open_;
  }
}

}  // namespace docgate
