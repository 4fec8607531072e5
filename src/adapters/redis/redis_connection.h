#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/redis/redis_url.h"

namespace boost::asio::ssl {
class context;
}

namespace docgate {

// The connection could not be made or broke (refused, timed out, TLS, protocol): the server's
// answer, if any, is unknown. Error replies (-ERR ...) are not this; they are RedisReply values.
class RedisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The server refused the connection's AUTH (wrong or unknown credentials, or none configured
// there). The message quotes the server's answer, which never holds the password.
class RedisAuthError : public RedisError {
 public:
  using RedisError::RedisError;
};

// One RESP reply, copied out of hiredis's reader.
struct RedisReply {
  enum class Type { kString, kStatus, kError, kInteger, kNil, kArray };
  Type type = Type::kNil;
  std::string text;  // string, status and error replies
  long long integer = 0;
  std::vector<RedisReply> elements;

  bool IsError() const { return type == Type::kError; }
};

// One blocking connection to a Redis server: Boost.Asio TCP, or TLS (OpenSSL) for rediss://, with
// hiredis's formatter and reader for RESP (hiredis does no I/O here). Every operation has a
// deadline; on any failure it throws RedisError and the connection is unusable afterwards
// (discard it). Not thread-safe: one caller at a time (the gate pools them).
class RedisConnection {
 public:
  // Connects (and handshakes, AUTHs, SELECTs) within connect_timeout. `tls` is required for a
  // rediss:// endpoint and must outlive the connection. Throws RedisError (RedisAuthError when
  // AUTH is refused).
  RedisConnection(const RedisEndpoint& endpoint, boost::asio::ssl::context* tls,
                  std::chrono::milliseconds connect_timeout,
                  std::chrono::milliseconds command_timeout);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends one command and reads its reply within the command timeout. Throws RedisError.
  RedisReply Command(const std::vector<std::string_view>& args);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docgate
