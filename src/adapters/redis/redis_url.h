#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace docgate {

// The parts of a redis:// or rediss:// URL.
struct RedisEndpoint {
  bool tls = false;  // rediss://
  std::string host;  // without brackets for IPv6 literals
  std::string port = "6379";
  std::string user;      // percent-decoded; empty: the default user
  std::string password;  // percent-decoded; empty: no AUTH
  int db = 0;
};

// Parses redis://[[user]:password@]host[:port][/db] (also rediss://). Throws std::invalid_argument
// with a one-line reason (never echoing the password) when malformed.
RedisEndpoint ParseRedisUrl(std::string_view url);

}  // namespace docgate
