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

  bool UsesSentinels() const { return !sentinels.empty(); }
};

// Parses redis://[[user]:password@]host[:port][/db] (also rediss://) and
// redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db] (also
// rediss+sentinel://; the credentials are the master's, the Sentinels are asked without AUTH).
// Throws std::invalid_argument with a one-line reason (never echoing the password) when malformed.
RedisEndpoint ParseRedisUrl(std::string_view url);

// The URL without its credentials, for logs: redis://host:port or
// redis+sentinel://host:port,host:port/master-name.
std::string RedisUrlForLogs(const RedisEndpoint& endpoint);

}  // namespace docgate
