#include "adapters/redis/redis_sentinel.h"

#include <algorithm>
#include <string>
#include <utility>

#include "adapters/redis/redis_connection.h"

namespace docgate {

SentinelResolver::SentinelResolver(RedisEndpoint endpoint, boost::asio::ssl::context* tls,
                                   std::chrono::milliseconds connect_timeout,
                                   std::chrono::milliseconds command_timeout)
    : endpoint_(std::move(endpoint)),
      tls_(tls),
      connect_timeout_(connect_timeout),
      command_timeout_(command_timeout),
      sentinels_(endpoint_.sentinels) {}

RedisAddress SentinelResolver::Master() {
  std::vector<RedisAddress> order;
  {
    std::lock_guard lock(mutex_);
    order = sentinels_;
  }
  std::string failures;
  std::size_t refused_auth = 0;
  for (const RedisAddress& sentinel : order) {
    RedisEndpoint target;
    target.tls = endpoint_.tls;
    target.host = sentinel.host;
    target.port = sentinel.port;
    target.user = endpoint_.sentinel_user;
    target.password = endpoint_.sentinel_password;
    const std::string where = sentinel.host + ":" + sentinel.port;
    try {
      RedisConnection connection(target, tls_, connect_timeout_, command_timeout_);
      const RedisReply reply =
          connection.Command({"SENTINEL", "get-master-addr-by-name", endpoint_.master_name});
      if (reply.type == RedisReply::Type::kArray && reply.elements.size() == 2 &&
          reply.elements[0].type == RedisReply::Type::kString &&
          reply.elements[1].type == RedisReply::Type::kString) {
        std::lock_guard lock(mutex_);
        const auto it = std::find(sentinels_.begin(), sentinels_.end(), sentinel);
        if (it != sentinels_.end()) std::rotate(sentinels_.begin(), it, it + 1);
        return {reply.elements[0].text, reply.elements[1].text};
      }
      if (reply.IsError() && reply.text.starts_with("NOAUTH")) {
        ++refused_auth;
        failures += "; " + where + " requires AUTH and the URL has no sentinel_password";
        continue;
      }
      failures +=
          "; " + where +
          (reply.IsError() ? " answered " + reply.text : " does not know " + endpoint_.master_name);
    } catch (const RedisAuthError& e) {
      ++refused_auth;
      failures += "; " + where + ": " + e.what();
    } catch (const RedisError& e) {
      failures += "; " + where + ": " + e.what();
    }
  }
  if (refused_auth == order.size()) {
    throw RedisError(
        "authentication failed at every Sentinel (check sentinel_username and "
        "sentinel_password of the Redis URL)" +
        failures);
  }
  throw RedisError("no Sentinel named the master " + endpoint_.master_name + failures);
}

bool IsMasterRole(const RedisReply& reply) {
  return reply.type == RedisReply::Type::kArray && !reply.elements.empty() &&
         reply.elements[0].text == "master";
}

}  // namespace docgate
