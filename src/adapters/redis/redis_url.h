#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

// Where a Redis server (or a Sentinel) listens.
struct RedisAddress {
  std::string host;  // without brackets for IPv6 literals
  std::string port;

  bool operator==(const RedisAddress&) const = default;
};

// The parts of a redis://, rediss://, redis+sentinel:// or rediss+sentinel:// URL.
struct RedisEndpoint {
  bool tls = false;  // rediss:// and rediss+sentinel://
  // The server. With Sentinels these are empty in the parsed URL: the Sentinels name the master
  // (RedisLockGate fills them in each time it asks).
  std::string host;
  std::string port = "6379";
  std::string user;      // percent-decoded; empty: the default user
  std::string password;  // percent-decoded; empty: no AUTH
  int db = 0;
  // redis+sentinel://: the Sentinels to ask (port 26379 unless given) and the name of the master
  // they watch. Empty for a plain URL.
  std::vector<RedisAddress> sentinels;
  std::string master_name;
  // redis+sentinel:// only: what docgate AUTHs with to each Sentinel, apart from the master's
  // credentials above (?sentinel_username=...&sentinel_password=..., percent-decoded). Empty
  // password: the Sentinels are asked without AUTH.
  std::string sentinel_user;
  std::string sentinel_password;

  bool UsesSentinels() const { return !sentinels.empty(); }
};

// Parses redis://[[user]:password@]host[:port][/db] (also rediss://) and
// redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db]
// [?sentinel_username=...&sentinel_password=...] (also rediss+sentinel://, TLS to the Sentinels
// and to the master alike). The userinfo is the master's credentials; the parameters are the
// Sentinels' (a username needs a password), allowed on Sentinel URLs only, each at most once and
// not empty. Throws std::invalid_argument with a one-line reason (never echoing a password or a
// parameter's value) when malformed or when a parameter is unknown.
RedisEndpoint ParseRedisUrl(std::string_view url);

// The URL without its credentials, for logs: redis://host:port or
// redis+sentinel://host:port,host:port/master-name.
std::string RedisUrlForLogs(const RedisEndpoint& endpoint);

}  // namespace docgate
