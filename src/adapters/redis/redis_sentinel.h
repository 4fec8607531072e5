#pragma once

#include <chrono>
#include <mutex>
#include <vector>

#include "adapters/redis/redis_url.h"

namespace boost::asio::ssl {
class context;
}

namespace docgate {

struct RedisReply;

// Asks Redis Sentinels which server is the master (SENTINEL get-master-addr-by-name), the way
// Sentinel's client guidelines describe: the Sentinels in turn, the first that knows the master
// answers, and that one is asked first from then on. A Sentinel is reached with the endpoint's
// TLS setting (and TLS context) and AUTHs with the endpoint's sentinel_user / sentinel_password
// when a password is set, never with the master's credentials. A Sentinel that refuses AUTH (or
// wants it and gets none) is skipped like one that is down. Thread-safe.
class SentinelResolver {
 public:
  // `endpoint` must use Sentinels; `tls` is required for rediss+sentinel:// and must outlive this.
  SentinelResolver(RedisEndpoint endpoint, boost::asio::ssl::context* tls,
                   std::chrono::milliseconds connect_timeout,
                   std::chrono::milliseconds command_timeout);

  // The master's address. Throws RedisError (naming each Sentinel's address and failure, never a
  // password) when no Sentinel answers with one; its message starts "authentication failed at
  // every Sentinel" when each of them refused AUTH or wanted it.
  RedisAddress Master();

 private:
  const RedisEndpoint endpoint_;
  boost::asio::ssl::context* const tls_;
  const std::chrono::milliseconds connect_timeout_;
  const std::chrono::milliseconds command_timeout_;
  std::mutex mutex_;
  std::vector<RedisAddress> sentinels_;  // guarded by mutex_; the last one that answered first
};

// Whether `reply` to ROLE says the server is a master (a replica answers "slave", a Sentinel
// "sentinel").
bool IsMasterRole(const RedisReply& reply);

}  // namespace docgate
