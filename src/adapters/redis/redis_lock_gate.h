#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/redis/redis_config.h"
#include "adapters/redis/redis_sentinel.h"
#include "adapters/redis/redis_url.h"
#include "app/ports/lock_gate.h"
#include "app/ports/random_source.h"
#include "core/circuit_breaker.h"

namespace boost::asio::ssl {
class context;
}

namespace docgate {

class RedisConnection;
struct RedisReply;

// The LockGate on Redis (shared/API.md "The lock"). Acquire is one round trip: a Lua script doing
// `SET key token NX PX ttl` that, when the key is held, returns its PTTL (-> kBusy with
// remaining_ttl). Release is an owner-checked compare-and-delete in Lua. Both go by EVALSHA and
// fall back to EVAL when the server answers NOSCRIPT (restart, SCRIPT FLUSH). Tokens are 128-bit
// from `random`; keys get `key_prefix`.
//
// Failures never throw: a refused/timed-out/broken connection or an error reply is kBackendFailed,
// counted, and opens a circuit breaker (config.breaker_initial doubling to breaker_max) during
// which calls return kBackendFailed at once, without touching the network; then one call probes and
// a success closes it. Connections are pooled (config.pool_size idle ones kept); after a failure
// the idle ones are dropped too, so a restarted Redis is reached on fresh connections.
//
// Leases are renewed: every key acquired here is registered with a renewer (one background
// thread) that, every ttl/3, runs an owner-checked PEXPIRE back to the TTL, so a holder whose
// work outlives the TTL keeps its key. Renewal stops at Release (which unregisters the lease
// first), when the key turns out to be no longer ours (counted in lost_leases() once, logged), and
// at config.lease_max_hold after acquisition (the last renewal lets the key expire exactly then).
// A failed renewal is logged and retried at the next tick; it never reaches a caller.
//
// With redis+sentinel:// the Sentinels name the master: it is asked for on the first connection,
// again after any failure (a refused connection, a timeout, a READONLY answer from a demoted
// master), and every config.probe_interval by the renewer's thread, which moves the pool to a new
// master as soon as the Sentinels name one (their +switch-master). Every new connection asks ROLE
// and is dropped unless the server says it is the master, so nothing is written to a replica. A
// lock held on a master that fails over can be lost (replication is asynchronous): the database's
// row locks decide regardless (docs/runbook.md "Redis Sentinel").
//
// Construction PINGs once, bounded by config.connect_timeout; when that fails it logs a warning and
// starts degraded (breaker open) instead of failing. Throws std::invalid_argument only for a
// malformed URL or unreadable CA file. Thread-safe.
class RedisLockGate final : public LockGate {
 public:
  RedisLockGate(RedisConfig config, RandomSource& random, std::string key_prefix = "lock:");
  ~RedisLockGate() override;
  RedisLockGate(const RedisLockGate&) = delete;
  RedisLockGate& operator=(const RedisLockGate&) = delete;

  Acquisition Acquire(const std::string& key, std::chrono::milliseconds ttl) override;
  ReleaseOutcome Release(const std::string& key, const std::string& token) override;

  // For /readyz: "ok" while the breaker is closed, "degraded" while Redis is being kept out. No
  // I/O: the renewer's thread PINGs an idle Redis every config.probe_interval (and a degraded one
  // whenever the breaker allows a probe), so the state follows Redis without traffic.
  std::string State() const;
  // Diagnostics and tests: backend failures so far; EVALSHA calls answered NOSCRIPT and re-sent
  // as EVAL; leases found gone or owned by another token (by the renewer or at release; one
  // lease counts once).
  std::uint64_t failures() const { return failures_.load(); }
  std::uint64_t script_reloads() const { return script_reloads_.load(); }
  std::uint64_t lost_leases() const { return lost_leases_.load(); }
  // With Sentinels: the master as they last named it (nullopt before the first answer and after
  // a failure, until they are asked again). Always nullopt for a plain URL.
  std::optional<RedisAddress> master() const;

 private:
  struct Script {
    std::string_view body;
    std::string sha1;
  };
  // Runs `script` on one key: EVALSHA, then EVAL on NOSCRIPT. Throws RedisError.
  RedisReply RunScript(const Script& script, const std::string& key,
                       const std::vector<std::string_view>& args);
  // One command on a pooled (or new) connection. Throws RedisError.
  RedisReply Execute(const std::vector<std::string_view>& args);
  // A new connection to the server, or with Sentinels to the master they name (ROLE-checked).
  // Throws RedisError.
  std::unique_ptr<RedisConnection> Connect(std::chrono::milliseconds command_timeout);
  // Sentinels only: the master as last named (asking them when unknown), forgetting it (after a
  // failure), and asking again on the renewer's thread every probe_interval.
  RedisAddress KnownMaster();
  void ForgetMaster();
  void FollowMaster();
  void RecordFailure(std::string_view what, std::string_view why);
  void RecordSuccess();
  // PINGs Redis when nothing was heard from it for probe_interval, or when the open breaker
  // allows a probe. Runs on the renewer's thread.
  void ProbeIfIdle();

  // The renewer. A lease is (prefixed key, token); `lost` ones are kept, unrenewed, until their
  // release (or their max hold) only so that a lease is counted lost once.
  struct Lease {
    std::chrono::milliseconds ttl;
    std::chrono::steady_clock::time_point hold_until;  // acquisition + config.lease_max_hold
    std::chrono::steady_clock::time_point due;         // next renewal (lost: when to forget it)
    bool lost = false;
  };
  using LeaseId = std::pair<std::string, std::string>;
  void Register(const std::string& key, const std::string& token, std::chrono::milliseconds ttl);
  // Forgets the lease; returns true when the renewer had already counted it lost.
  bool Unregister(const std::string& key, const std::string& token);
  void RenewLoop();
  // One owner-checked PEXPIRE; returns the script's answer (1 extended, 0 not ours). Throws
  // RedisError.
  long long Renew(const LeaseId& id, std::chrono::milliseconds ttl);

  const RedisConfig config_;
  const RedisEndpoint endpoint_;
  RandomSource& random_;
  const std::string prefix_;
  std::unique_ptr<boost::asio::ssl::context> tls_;
  std::unique_ptr<SentinelResolver> sentinels_;  // null for a plain redis:// URL
  mutable std::mutex master_mutex_;
  std::optional<RedisAddress> master_;  // guarded by master_mutex_
  RedisAddress last_named_;             // guarded by master_mutex_; logged when it changes
  // The renewer's thread only: when FollowMaster asks next, and whether the last ask failed.
  std::chrono::steady_clock::time_point next_master_check_{};
  bool sentinels_failing_ = false;
  const Script acquire_;
  const Script release_;
  CircuitBreaker breaker_;
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<RedisConnection>> idle_;
  std::atomic<std::uint64_t> failures_{0};
  // When Redis last answered (steady clock ticks).
  std::atomic<std::chrono::steady_clock::rep> last_answer_{0};
  std::atomic<std::uint64_t> script_reloads_{0};
  std::atomic<std::uint64_t> lost_leases_{0};
  const Script renew_;
  std::mutex leases_mutex_;
  std::condition_variable leases_changed_;
  std::map<LeaseId, Lease> leases_;
  bool stopping_ = false;  // guarded by leases_mutex_
  // When the sleeping renewer wakes by itself (guarded by leases_mutex_); min() while it is awake
  // and will look at the leases anyway. Acquire wakes it only for a lease due before then, so the
  // common case (released long before its first renewal) costs no thread wake-up.
  std::chrono::steady_clock::time_point renewer_wakes_at_ =
      std::chrono::steady_clock::time_point::min();
  std::jthread renewer_;  // last: started after, and joined before, everything it uses
};

}  // namespace docgate
