#include "adapters/redis/redis_config.h"

#include <stdexcept>

#include "adapters/redis/redis_url.h"
#include "core/config_check.h"

namespace docgate {

std::optional<std::string> ValidateRedisConfig(const RedisConfig& config) {
  if (!config.url.empty()) {
    try {
      ParseRedisUrl(config.url);
    } catch (const std::invalid_argument& e) {
      return std::string(
                 "DOCGATE_REDIS_URL must be redis://[user:password@]host[:port][/db], "
                 "rediss://..., or "
                 "redis+sentinel://[user:password@]host[:port],.../master[/db]"
                 "[?sentinel_username=...&sentinel_password=...]: ") +
             e.what();
    }
  }
  return ConfigCheck()
      .Positive("DOCGATE_REDIS_CONNECT_TIMEOUT_MS", config.connect_timeout)
      .Positive("DOCGATE_REDIS_TIMEOUT_MS", config.command_timeout)
      .Positive("DOCGATE_REDIS_LEASE_MAX_HOLD_MS", config.lease_max_hold)
      .Range("DOCGATE_REDIS_POOL_SIZE", config.pool_size, 1, 1024)
      .Positive("the Redis breaker's initial interval", config.breaker_initial)
      .Require(config.breaker_max >= config.breaker_initial,
               "DOCGATE_REDIS_BREAKER_MAX_MS must be at least " +
                   std::to_string(config.breaker_initial.count()))
      .Problem();
}

}  // namespace docgate
