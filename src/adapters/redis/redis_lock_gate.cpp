#include "adapters/redis/redis_lock_gate.h"

#include <openssl/sha.h>
#include <spdlog/spdlog.h>

#include <boost/asio/ssl/context.hpp>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "adapters/redis/redis_connection.h"

namespace docgate {
namespace {

// Returns {1, 0} when the key was set for us, {0, PTTL} when someone holds it.
constexpr std::string_view kAcquireScript = R"lua(
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, 0}
end
return {0, redis.call('PTTL', KEYS[1])}
)lua";

// Deletes the key only while it still holds our token: 1 deleted, 0 not ours (or gone).
constexpr std::string_view kReleaseScript = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua";

// Extends the key back to ARGV[2] ms only while it still holds our token: 1 extended, 0 not ours
// (or gone).
constexpr std::string_view kRenewScript = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
)lua";

using SteadyClock = std::chrono::steady_clock;

// How often the renewer looks at its leases when none is due sooner.
constexpr std::chrono::milliseconds kRenewerIdleTick{1000};

// Renewals come every ttl/3 (at least every millisecond).
std::chrono::milliseconds RenewInterval(std::chrono::milliseconds ttl) {
  return std::max(ttl / 3, std::chrono::milliseconds{1});
}

std::string Sha1Hex(std::string_view text) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string hex;
  char byte[3];
  for (const unsigned char d : digest) {
    std::snprintf(byte, sizeof byte, "%02x", d);
    hex += byte;
  }
  return hex;
}

std::unique_ptr<boost::asio::ssl::context> MakeTlsContext(const RedisConfig& config) {
  auto context = std::make_unique<boost::asio::ssl::context>(boost::asio::ssl::context::tls_client);
  boost::system::error_code ec;
  if (config.ca_file.empty()) {
    context->set_default_verify_paths(ec);
  } else {
    context->load_verify_file(config.ca_file, ec);
  }
  if (ec) {
    throw std::invalid_argument("cannot load the Redis CA certificates " + config.ca_file + ": " +
                                ec.message());
  }
  return context;
}

}  // namespace

RedisLockGate::RedisLockGate(RedisConfig config, RandomSource& random, std::string key_prefix)
    : config_(std::move(config)),
      endpoint_(ParseRedisUrl(config_.url)),
      random_(random),
      prefix_(std::move(key_prefix)),
      tls_(endpoint_.tls ? MakeTlsContext(config_) : nullptr),
      sentinels_(endpoint_.UsesSentinels()
                     ? std::make_unique<SentinelResolver>(
                           endpoint_, tls_.get(), config_.connect_timeout, config_.command_timeout)
                     : nullptr),
      acquire_{kAcquireScript, Sha1Hex(kAcquireScript)},
      release_{kReleaseScript, Sha1Hex(kReleaseScript)},
      breaker_(config_.breaker_initial, config_.breaker_max),
      renew_{kRenewScript, Sha1Hex(kRenewScript)} {
  try {
    auto connection = Connect(config_.connect_timeout);
    const RedisReply pong = connection->Command({"PING"});
    if (pong.IsError()) throw RedisError("PING: " + pong.text);
    idle_.push_back(std::move(connection));
    last_answer_ = SteadyClock::now().time_since_epoch().count();
    spdlog::info("lock gate: Redis at {}", RedisUrlForLogs(endpoint_));
  } catch (const std::exception& e) {  // RedisError, or anything the connection's setup threw
    ++failures_;
    breaker_.Failed(CircuitBreaker::Clock::now());
    spdlog::warn(
        "lock gate: Redis at {} is unreachable ({}); starting degraded, requests go "
        "through under the database locks until it answers",
        RedisUrlForLogs(endpoint_), e.what());
  }
  renewer_ = std::jthread([this] { RenewLoop(); });
}

RedisLockGate::~RedisLockGate() {
  {
    std::lock_guard lock(leases_mutex_);
    stopping_ = true;
  }
  leases_changed_.notify_all();
  if (renewer_.joinable()) renewer_.join();  // waits for at most one renewal in flight
}

Acquisition RedisLockGate::Acquire(const std::string& key, std::chrono::milliseconds ttl) {
  if (!breaker_.Allow(CircuitBreaker::Clock::now())) return {};
  std::string token = random_.Token128();
  try {
    const std::string ttl_text = std::to_string(ttl.count());
    const RedisReply reply = RunScript(acquire_, prefix_ + key, {token, ttl_text});
    if (reply.type != RedisReply::Type::kArray || reply.elements.size() != 2 ||
        reply.elements[0].type != RedisReply::Type::kInteger ||
        reply.elements[1].type != RedisReply::Type::kInteger) {
      throw RedisError("unexpected reply to the acquire script");
    }
    RecordSuccess();
    if (reply.elements[0].integer == 1) {
      Register(prefix_ + key, token, ttl);
      return {AcquireOutcome::kAcquired, std::move(token), {}};
    }
    // PTTL is -1 for a key without expiry (set by someone else): say the full TTL.
    const long long pttl = reply.elements[1].integer;
    return {AcquireOutcome::kBusy, {}, pttl >= 0 ? std::chrono::milliseconds{pttl} : ttl};
  } catch (const RedisError& e) {
    RecordFailure("acquire", e.what());
    return {};
  }
}

ReleaseOutcome RedisLockGate::Release(const std::string& key, const std::string& token) {
  // Stop renewing first: whatever the release's outcome, the holder is done with the key.
  const bool already_lost = Unregister(prefix_ + key, token);
  if (!breaker_.Allow(CircuitBreaker::Clock::now())) return ReleaseOutcome::kBackendFailed;
  try {
    const RedisReply reply = RunScript(release_, prefix_ + key, {token});
    if (reply.type != RedisReply::Type::kInteger) {
      throw RedisError("unexpected reply to the release script");
    }
    RecordSuccess();
    if (reply.integer == 1) return ReleaseOutcome::kReleased;
    if (!already_lost) {
      ++lost_leases_;
      spdlog::info("lock gate: {}{} was no longer ours at release (lease expired)", prefix_, key);
    }
    return ReleaseOutcome::kNotOwner;
  } catch (const RedisError& e) {
    RecordFailure("release", e.what());
    return ReleaseOutcome::kBackendFailed;
  }
}

std::string RedisLockGate::State() const { return breaker_.closed() ? "ok" : "degraded"; }

void RedisLockGate::ProbeIfIdle() {
  const auto now = SteadyClock::now();
  if (breaker_.closed()) {
    const SteadyClock::time_point last{SteadyClock::duration(last_answer_.load())};
    if (now - last < config_.probe_interval) return;
  } else if (!breaker_.Allow(now)) {
    return;
  }
  try {
    const RedisReply pong = Execute({"PING"});
    if (pong.IsError()) throw RedisError("PING: " + pong.text);
    RecordSuccess();
  } catch (const RedisError& e) {
    RecordFailure("probe", e.what());
  }
}

RedisReply RedisLockGate::RunScript(const Script& script, const std::string& key,
                                    const std::vector<std::string_view>& args) {
  std::vector<std::string_view> command{"EVALSHA", script.sha1, "1", key};
  command.insert(command.end(), args.begin(), args.end());
  RedisReply reply = Execute(command);
  if (reply.IsError() && reply.text.starts_with("NOSCRIPT")) {
    ++script_reloads_;
    command[0] = "EVAL";
    command[1] = script.body;
    reply = Execute(command);
  }
  if (reply.IsError()) throw RedisError("Redis answered " + reply.text);
  return reply;
}

RedisReply RedisLockGate::Execute(const std::vector<std::string_view>& args) {
  std::unique_ptr<RedisConnection> connection;
  {
    std::lock_guard lock(pool_mutex_);
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  RedisReply reply;
  try {
    if (!connection) connection = Connect(config_.command_timeout);
    reply = connection->Command(args);
  } catch (const RedisError&) {
    throw;
  } catch (const std::exception& e) {
    // Whatever else the connection's setup or I/O throws (the TLS or resolver layers, memory) is
    // a backend failure like any other: it opens the breaker instead of escaping the gate.
    throw RedisError(std::string("unexpected failure: ") + e.what());
  }
  std::lock_guard lock(pool_mutex_);
  if (idle_.size() < static_cast<std::size_t>(config_.pool_size)) idle_.push_back(std::move(connection));
  return reply;
}

std::unique_ptr<RedisConnection> RedisLockGate::Connect(std::chrono::milliseconds command_timeout) {
  if (!sentinels_) {
    return std::make_unique<RedisConnection>(endpoint_, tls_.get(), config_.connect_timeout,
                                             command_timeout);
  }
  RedisEndpoint master = endpoint_;
  const RedisAddress address = KnownMaster();
  master.host = address.host;
  master.port = address.port;
  auto connection = std::make_unique<RedisConnection>(master, tls_.get(), config_.connect_timeout,
                                                      command_timeout);
  // A user whose ACL forbids ROLE gets an error reply: then READONLY answers are the only sign of
  // a replica, which a failure handles the same way.
  const RedisReply role = connection->Command({"ROLE"});
  if (!role.IsError() && !IsMasterRole(role)) {
    throw RedisError(address.host + ":" + address.port + " is not the master (ROLE: " +
                     (role.elements.empty() ? std::string("?") : role.elements[0].text) + ")");
  }
  return connection;
}

RedisAddress RedisLockGate::KnownMaster() {
  {
    std::lock_guard lock(master_mutex_);
    if (master_) return *master_;
  }
  RedisAddress address = sentinels_->Master();  // outside the lock: it talks to the Sentinels
  std::lock_guard lock(master_mutex_);
  if (!master_) {
    if (address != last_named_) {
      spdlog::info("lock gate: the Sentinels name {}:{} the master of {}", address.host,
                   address.port, endpoint_.master_name);
    }
    master_ = last_named_ = address;
  }
  return *master_;
}

std::optional<RedisAddress> RedisLockGate::master() const {
  std::lock_guard lock(master_mutex_);
  return master_;
}

void RedisLockGate::ForgetMaster() {
  std::lock_guard lock(master_mutex_);
  master_.reset();
}

void RedisLockGate::FollowMaster() {
  const auto now = SteadyClock::now();
  if (now < next_master_check_) return;
  next_master_check_ = now + config_.probe_interval;
  RedisAddress named;
  try {
    named = sentinels_->Master();
  } catch (const RedisError& e) {
    if (!sentinels_failing_) {
      spdlog::warn("lock gate: asking the Sentinels failed ({}); staying with the known master",
                   e.what());
    }
    sentinels_failing_ = true;
    return;
  }
  if (sentinels_failing_) spdlog::info("lock gate: the Sentinels answer again");
  sentinels_failing_ = false;
  {
    std::lock_guard lock(master_mutex_);
    if (!master_ || *master_ == named) return;
    spdlog::warn("lock gate: the Sentinels moved the master of {} from {}:{} to {}:{}",
                 endpoint_.master_name, master_->host, master_->port, named.host, named.port);
    master_ = last_named_ = named;
  }
  std::lock_guard lock(pool_mutex_);
  idle_.clear();  // connections to the old master
}

void RedisLockGate::RecordFailure(std::string_view what, std::string_view why) {
  ++failures_;
  {
    // The idle connections most likely broke with this one (server restart, network cut).
    std::lock_guard lock(pool_mutex_);
    idle_.clear();
  }
  // With Sentinels the failure may be a failover: ask them again on the next connection.
  if (sentinels_) ForgetMaster();
  if (breaker_.Failed(CircuitBreaker::Clock::now())) {
    spdlog::warn("lock gate: Redis {} failed ({}); degraded: requests go through under the "
                 "database locks until Redis answers again",
                 what, why);
  }
}

void RedisLockGate::RecordSuccess() {
  last_answer_ = SteadyClock::now().time_since_epoch().count();
  if (breaker_.Succeeded()) spdlog::info("lock gate: Redis answers again; the gate is back");
}

void RedisLockGate::Register(const std::string& key, const std::string& token,
                             std::chrono::milliseconds ttl) {
  if (ttl <= std::chrono::milliseconds::zero()) return;
  const auto now = SteadyClock::now();
  const auto hold_until = now + config_.lease_max_hold;
  const auto due = std::min(now + RenewInterval(ttl), hold_until);
  bool wake = false;
  {
    std::lock_guard lock(leases_mutex_);
    leases_.insert_or_assign(LeaseId{key, token}, Lease{ttl, hold_until, due, false});
    wake = due < renewer_wakes_at_;
  }
  // Wake the renewer only when it would otherwise sleep past this lease's first renewal.
  if (wake) leases_changed_.notify_one();
}

bool RedisLockGate::Unregister(const std::string& key, const std::string& token) {
  std::lock_guard lock(leases_mutex_);
  const auto it = leases_.find(LeaseId{key, token});
  if (it == leases_.end()) return false;
  const bool lost = it->second.lost;
  leases_.erase(it);
  return lost;
}

long long RedisLockGate::Renew(const LeaseId& id, std::chrono::milliseconds ttl) {
  const std::string ttl_text = std::to_string(ttl.count());
  const RedisReply reply = RunScript(renew_, id.first, {id.second, ttl_text});
  if (reply.type != RedisReply::Type::kInteger) {
    throw RedisError("unexpected reply to the renew script");
  }
  return reply.integer;
}

void RedisLockGate::RenewLoop() {
  using std::chrono::milliseconds;
  std::unique_lock lock(leases_mutex_);
  while (!stopping_) {
    auto now = SteadyClock::now();
    // With nothing to renew, wake up every idle tick anyway: a lease due later than that needs no
    // wake-up from Acquire.
    auto next = now + kRenewerIdleTick;
    for (const auto& [id, lease] : leases_) next = std::min(next, lease.due);
    if (now < next) {
      renewer_wakes_at_ = next;
      leases_changed_.wait_until(lock, next);
      renewer_wakes_at_ = SteadyClock::time_point::min();
      lock.unlock();
      if (sentinels_) FollowMaster();
      ProbeIfIdle();
      lock.lock();
      continue;
    }

    // Pick the due leases and schedule their next tick before renewing (a failed renewal is
    // simply tried again then).
    std::vector<std::pair<LeaseId, milliseconds>> work;
    for (auto it = leases_.begin(); it != leases_.end();) {
      Lease& lease = it->second;
      if (lease.due > now) {
        ++it;
        continue;
      }
      const auto left = std::chrono::duration_cast<milliseconds>(lease.hold_until - now);
      if (lease.lost || left <= milliseconds::zero()) {
        if (!lease.lost) {
          spdlog::warn("lock gate: {} held for {} ms, the maximum; no longer renewed, it expires "
                       "now",
                       it->first.first, config_.lease_max_hold.count());
        }
        it = leases_.erase(it);
        continue;
      }
      // The last renewal lets the key expire exactly at the maximum hold.
      const milliseconds extend = std::min(lease.ttl, left);
      lease.due = extend < lease.ttl ? lease.hold_until : now + RenewInterval(lease.ttl);
      work.emplace_back(it->first, extend);
      ++it;
    }

    lock.unlock();
    for (const auto& [id, extend] : work) {
      {
        std::lock_guard check(leases_mutex_);
        if (stopping_) break;
        if (!leases_.contains(id)) continue;  // released meanwhile
      }
      if (!breaker_.Allow(SteadyClock::now())) continue;  // Redis is kept out: next tick
      long long answer = 0;
      try {
        answer = Renew(id, extend);
        RecordSuccess();
      } catch (const RedisError& e) {
        RecordFailure("renew", e.what());
        spdlog::warn("lock gate: renewing {} failed ({}); trying again at the next tick",
                     id.first, e.what());
        continue;
      }
      if (answer != 0) continue;
      std::lock_guard update(leases_mutex_);
      const auto it = leases_.find(id);
      if (it == leases_.end() || it->second.lost) continue;  // released meanwhile
      it->second.lost = true;
      it->second.due = it->second.hold_until;  // kept, unrenewed, so that it counts once
      ++lost_leases_;
      spdlog::warn("lock gate: {} is no longer ours (expired or taken); its renewal stops",
                   id.first);
    }
    lock.lock();
  }
}

}  // namespace docgate
