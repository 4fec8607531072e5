#include "app/idempotency.h"

#include <cstdint>
#include <utility>

#include "core/config_check.h"

namespace docgate {

bool IsStoredRefusal(ErrorCode code) {
  return code == ErrorCode::kInvalidState || code == ErrorCode::kSelfReview ||
         code == ErrorCode::kAlreadyVoted;
}

IdempotencyService::IdempotencyService(IdempotencyStore& store, Clock& clock, RandomSource& random,
                                       IdempotencyConfig config)
    : store_(store), clock_(clock), random_(random), config_(config) {}

IdempotencyDecision IdempotencyService::Begin(const IdempotentRequest& request) {
  const TimePoint now = clock_.Now();
  std::string owner = random_.Token128();
  const auto existing = store_.ReserveIdempotencyKey(
      request.caller, request.key, request.fingerprint, owner, now, now + config_.lease);
  if (!existing) return {IdempotencyVerdict::kProceed, std::move(owner), {}};
  // A different request under the key is refused whatever state the first one is in.
  if (existing->fingerprint != request.fingerprint) return {IdempotencyVerdict::kKeyReused, {}, {}};
  if (!existing->response) return {IdempotencyVerdict::kInFlight, {}, {}};
  return {IdempotencyVerdict::kReplay, {}, *existing->response};
}

CommitHook IdempotencyService::CompleteOnCommit(const IdempotentRequest& request,
                                                const std::string& owner) {
  return [this, request, owner](StoreTransaction& tx, const IdempotentOutcome& outcome) {
    tx.CompleteIdempotentRequest(request.caller, request.key, owner, EncodeOutcome(outcome),
                                 clock_.Now() + config_.ttl);
  };
}

bool IdempotencyService::CompleteWithoutEffect(const IdempotentRequest& request,
                                               const std::string& owner,
                                               const IdempotentOutcome& outcome) {
  return store_.CompleteIdempotentRequest(request.caller, request.key, owner,
                                          EncodeOutcome(outcome), clock_.Now() + config_.ttl);
}

void IdempotencyService::Abandon(const IdempotentRequest& request, const std::string& owner) {
  store_.ReleaseIdempotencyKey(request.caller, request.key, owner);
}

int IdempotencyService::PruneExpired() {
  const TimePoint now = clock_.Now();
  int pruned = 0;
  for (;;) {
    const int deleted = store_.PruneIdempotencyKeys(now, config_.prune_batch);
    pruned += deleted;
    if (deleted < config_.prune_batch) return pruned;
  }
}

std::optional<std::string> ValidateIdempotencyConfig(const IdempotencyConfig& config) {
  return ConfigCheck()
      .Range<std::int64_t>("DOCGATE_IDEMPOTENCY_TTL_HOURS", config.ttl.count(), 1, 24 * 365)
      .Positive("the idempotency lease", config.lease)
      .Range("the idempotency prune batch", config.prune_batch, 1, 100000)
      .Problem();
}

}  // namespace docgate
