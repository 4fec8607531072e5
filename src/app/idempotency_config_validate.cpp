#include "app/idempotency_config_validate.h"

#include <cstdint>

#include "core/config_check.h"

namespace docgate {

std::optional<std::string> ValidateIdempotencyConfig(const IdempotencyConfig& config) {
  return ConfigCheck()
      .Range<std::int64_t>("DOCGATE_IDEMPOTENCY_TTL_HOURS", config.ttl.count(), 1, 24 * 365)
      .Positive("the idempotency lease", config.lease)
      .Range("the idempotency prune batch", config.prune_batch, 1, 100000)
      .Problem();
}

}  // namespace docgate
