#pragma once

// The Idempotency-Key protocol of shared/API.md ("Idempotency"), around a POST route's effect.

#include <functional>
#include <string_view>

#include "adapters/http/http_message.h"
#include "adapters/http/idempotent_effect.h"
#include "adapters/http/router.h"
#include "app/idempotency.h"
#include "app/idempotent_outcome.h"
#include "app/user_names.h"
#include "core/model.h"

namespace docgate {

// A POST route: its use case takes effect.Hook() and it gives back the outcome, which
// OutcomeResponse renders (responses.h).
using EffectHandler =
    std::function<Result<IdempotentOutcome>(const RouteContext&, const Actor&, IdempotentEffect&)>;

// Per caller (the token's subject) and request fingerprint, the first answer is stored - in the
// effect's own transaction when there is one - and replayed with `Idempotent-Replayed: true`; a
// different request under the key is 422 IDEMPOTENCY_KEY_REUSED, the same one still running 409
// IDEMPOTENCY_IN_FLIGHT. Only a success or a decision on the state (IsStoredRefusal: 409
// INVALID_STATE, 403 SELF_REVIEW, with its detail capped by StoredDetail) is stored. No other
// answer is: 400 VALIDATION, 403 FORBIDDEN and 404 NOT_FOUND, refusals of a request not admitted,
// and LOCK_BUSY and 5xx, worth retrying, release the key, so they leave no row and a later request
// under the key runs as if it were the first (not 422). What is stored is the outcome
// (app/idempotent_outcome.h, at most kMaxStoredOutcomeBytes), rendered by OutcomeResponse on the
// first answer and every replay alike; a stored record that cannot be read throws. Without a key
// the handler runs once with an inert effect. Thread-safe; `idempotency` must outlive it.
class IdempotencyMiddleware {
 public:
  IdempotencyMiddleware(IdempotencyService& idempotency, const UserNames& users)
      : idempotency_(idempotency), users_(users) {}

  // The answer to `actor`'s request; what the handler throws is rethrown, after the key is given
  // back.
  HttpResponse Run(const RouteContext& ctx, const Actor& actor, const EffectHandler& handler) const;

 private:
  HttpResponse RunUnderKey(const RouteContext& ctx, const Actor& actor,
                           const EffectHandler& handler, std::string_view key) const;

  IdempotencyService& idempotency_;
  const UserNames& users_;
};

}  // namespace docgate
