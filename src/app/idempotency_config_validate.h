#pragma once

// The validator beside IdempotencyConfig (app/idempotency.h), in a file of its own only while
// idempotency.h is being reworked elsewhere; it belongs in that header.

#include <optional>
#include <string>

#include "app/idempotency.h"

namespace docgate {

// Why `config` cannot be used, in one line (naming DOCGATE_IDEMPOTENCY_TTL_HOURS for the TTL), or
// nullopt when it can: a ttl of 1 hour..1 year, a positive lease, prune_batch 1..100000.
std::optional<std::string> ValidateIdempotencyConfig(const IdempotencyConfig& config);

}  // namespace docgate
