#include "adapters/http/idempotency_middleware.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "adapters/http/error_mapper.h"
#include "adapters/http/idempotency_codec.h"
#include "adapters/http/request_params.h"
#include "adapters/http/responses.h"
#include "core/utf8.h"

namespace docgate {
namespace {

// Best effort: when it fails, the key frees itself when its lease runs out.
void AbandonQuietly(IdempotencyService& idempotency, const IdempotentRequest& request,
                    const std::string& owner) {
  try {
    idempotency.Abandon(request, owner);
  } catch (const std::exception& e) {
    spdlog::warn("could not release Idempotency-Key '{}' of {} (it expires with its lease): {}",
                 EscapeForLog(request.key), EscapeForLog(request.caller), e.what());
  }
}

}  // namespace

HttpResponse IdempotencyMiddleware::Run(const RouteContext& ctx, const Actor& actor,
                                        const EffectHandler& handler) const {
  const auto key = ctx.request.find(kIdempotencyKeyHeader);
  if (key == ctx.request.end()) {
    IdempotentEffect none;
    auto outcome = handler(ctx, actor, none);
    if (!outcome) return ProblemResponse(outcome.error());
    return OutcomeResponse(*outcome, users_);
  }
  if (ctx.request.count(kIdempotencyKeyHeader) > 1) {
    return ProblemResponse(Invalid("give Idempotency-Key once"));
  }
  if (auto problem = IdempotencyKeyProblem(View(key->value()))) {
    return ProblemResponse(Invalid(std::move(*problem)));
  }
  return RunUnderKey(ctx, actor, handler, View(key->value()));
}

HttpResponse IdempotencyMiddleware::RunUnderKey(const RouteContext& ctx, const Actor& actor,
                                                const EffectHandler& handler,
                                                std::string_view key) const {
  IdempotentRequest request{actor.id, std::string(key), RequestFingerprint(ctx.request)};
  IdempotencyDecision decision = idempotency_.Begin(request);
  switch (decision.verdict) {
    case IdempotencyVerdict::kReplay:
      return ReplayResponse(decision.response, users_);
    case IdempotencyVerdict::kKeyReused:
      return ProblemResponse(MakeError(
          ErrorCode::kIdempotencyKeyReused,
          "Idempotency-Key '" + request.key + "' was already used with a different request"));
    case IdempotencyVerdict::kInFlight:
      return ProblemResponse(Error{ErrorCode::kIdempotencyInFlight,
                                   "a request with Idempotency-Key '" + request.key +
                                       "' is still being processed; retry shortly",
                                   1});
    case IdempotencyVerdict::kProceed:
      break;
  }
  IdempotentEffect effect(idempotency_, request, decision.owner);
  std::optional<Result<IdempotentOutcome>> result;
  try {
    result.emplace(handler(ctx, actor, effect));
  } catch (const std::exception&) {
    AbandonQuietly(idempotency_, request, decision.owner);
    throw;
  }
  if (*result && effect.committed()) return OutcomeResponse(**result, users_);
  // No effect committed. A refusal of a request that was never admitted, or one a retry may
  // change, gives the key back, so that it leaves no row; a decision on the state is stored.
  if (!*result && !IsStoredRefusal(result->error().code)) {
    AbandonQuietly(idempotency_, request, decision.owner);
    return ProblemResponse(result->error());
  }
  const IdempotentOutcome outcome =
      *result ? std::move(*result).value() : IdempotentOutcome::Refused(result->error());
  if (!idempotency_.CompleteWithoutEffect(request, decision.owner, outcome)) {
    spdlog::warn("Idempotency-Key '{}' of {}: the reservation ran out before the answer was stored",
                 EscapeForLog(request.key), EscapeForLog(request.caller));
  }
  return OutcomeResponse(outcome, users_);
}

}  // namespace docgate
