#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace docgate {

// How docgate reaches Redis for the lock gate.
struct RedisConfig {
  // DOCGATE_REDIS_URL: redis://[user:password@]host[:port][/db] or rediss://... (TLS), or
  // redis+sentinel://[user:password@]host[:port],.../master-name[/db] (rediss+sentinel:// with TLS
  // to the Sentinels and the master) to follow the master a set of Sentinels names, with
  // ?sentinel_username=...&sentinel_password=... when the Sentinels require AUTH (the userinfo is
  // the master's); empty: the in-process gate.
  std::string url;
  // DOCGATE_REDIS_CA_FILE: PEM certificates that rediss:// servers (and rediss+sentinel://
  // Sentinels) are verified against; empty: the system's trust store. The server's certificate
  // must name the host docgate connects to: the URL's, or for the master the one the Sentinels
  // name.
  std::string ca_file;
  // DOCGATE_REDIS_CONNECT_TIMEOUT_MS: TCP connect + TLS handshake + AUTH/SELECT. Also bounds the
  // PING at start.
  std::chrono::milliseconds connect_timeout{5000};
  // DOCGATE_REDIS_TIMEOUT_MS: one command's round trip. Short on purpose: a gate that answers
  // slower than this is worth less than none, and the breaker then takes Redis out of the path.
  std::chrono::milliseconds command_timeout{1000};
  int pool_size = 8;  // DOCGATE_REDIS_POOL_SIZE: idle connections kept for reuse
  // After a failure the gate answers "backend failed" at once for breaker_initial, doubling after
  // each failed probe up to breaker_max (DOCGATE_REDIS_BREAKER_MAX_MS).
  std::chrono::milliseconds breaker_initial{250};
  std::chrono::milliseconds breaker_max{10000};
  // Lease renewal: an acquired key is extended back to its TTL every ttl/3 (owner-checked) while
  // its holder works, but never beyond lease_max_hold after it was acquired, so a stuck holder
  // cannot keep a key forever: the key then expires at acquisition + lease_max_hold at the latest.
  std::chrono::milliseconds lease_max_hold{60000};
  // An idle gate PINGs Redis when it has heard nothing from it for this long, so that readiness
  // reports an outage (and the return) within a few seconds even with no traffic.
  std::chrono::milliseconds probe_interval{1000};
};

// Why `config` cannot be used, in one line naming the DOCGATE_REDIS_* variable (never echoing the
// URL's passwords), or nullopt when it can: an empty URL or one ParseRedisUrl accepts, positive
// timeouts and lease hold, a pool of 1..1024, and breaker_max at least breaker_initial (positive).
// Connects to nothing.
std::optional<std::string> ValidateRedisConfig(const RedisConfig& config);

}  // namespace docgate
