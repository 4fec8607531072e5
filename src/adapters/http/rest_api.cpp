#include "adapters/http/rest_api.h"

#include <spdlog/spdlog.h>

#include <exception>

#include "adapters/http/console.h"
#include "adapters/http/dto.h"
#include "adapters/http/error_mapper.h"
#include "adapters/http/idempotency_codec.h"
#include "adapters/http/idempotent_effect.h"
#include "adapters/http/localize.h"
#include "adapters/http/openapi.h"
#include "adapters/http/request_params.h"
#include "adapters/http/responses.h"
#include "core/utf8.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;

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

HttpResponse OpenApiResponse(const RouteContext&) {
  HttpResponse response{HttpStatus::ok, 11};
  response.set(http::field::content_type, "application/json");
  response.body() = std::string(OpenApiDocument());
  return response;
}

}  // namespace

RestApi::RestApi(DocumentService& service, ReaderService& reader, IdempotencyService& idempotency,
                 const JwtVerifier& verifier, HealthChecks health)
    : service_(service),
      reader_(reader),
      idempotency_(idempotency),
      verifier_(verifier),
      health_(std::move(health)) {
  using V = HttpVerb;
  router_.Add(V::get, "/healthz", [this](const RouteContext& ctx) { return Healthz(ctx); });
  router_.Add(V::get, "/readyz", [this](const RouteContext& ctx) { return Readyz(ctx); });
  router_.Add(V::get, "/openapi.json", OpenApiResponse);
  router_.Add(V::get, "/",
              [](const RouteContext& ctx) { return ConsoleAsset("index.html", ctx.request); });
  router_.Add(V::get, "/console/{file}", [](const RouteContext& ctx) {
    return ConsoleAsset(ctx.params.Get("file"), ctx.request);
  });
  router_.Add(V::post, "/api/v1/documents", Idempotent(&RestApi::CreateDocument));
  router_.Add(V::get, "/api/v1/documents", Authenticated(&RestApi::ListDocuments));
  router_.Add(V::get, "/api/v1/documents/{id}", Authenticated(&RestApi::GetDocument));
  router_.Add(V::put, "/api/v1/documents/{id}", Authenticated(&RestApi::EditDocument));
  router_.Add(V::get, "/api/v1/documents/{id}/content", Authenticated(&RestApi::GetContent));
  router_.Add(V::get, "/api/v1/documents/{id}/preview", Authenticated(&RestApi::GetPreview));
  router_.Add(V::post, "/api/v1/documents/{id}/submit", Idempotent(&RestApi::Submit));
  router_.Add(V::post, "/api/v1/documents/{id}/withdraw", Idempotent(&RestApi::Withdraw));
  router_.Add(V::get, "/api/v1/documents/{id}/reviews", Authenticated(&RestApi::DocumentReviews));
  router_.Add(V::get, "/api/v1/documents/{id}/versions", Authenticated(&RestApi::DocumentVersions));
  router_.Add(V::get, "/api/v1/documents/{id}/versions/{version}",
              Authenticated(&RestApi::GetVersion));
  router_.Add(V::get, "/api/v1/reviews", Authenticated(&RestApi::ReviewQueue));
  router_.Add(V::get, "/api/v1/reviews/{id}", Authenticated(&RestApi::GetReview));
  router_.Add(V::post, "/api/v1/reviews/{id}/approve", Idempotent(&RestApi::Approve));
  router_.Add(V::post, "/api/v1/reviews/{id}/reject", Idempotent(&RestApi::Reject));
  router_.Add(V::get, "/api/v1/search", Authenticated(&RestApi::Search));
  if (health_.metrics) {
    router_.Add(V::get, "/metrics", [this](const RouteContext& ctx) { return Metrics(ctx); });
  }
}

HttpResponse RestApi::Handle(const HttpRequest& request) const {
  RequestTrace trace;
  return Handle(request, trace);
}

HttpResponse RestApi::Handle(const HttpRequest& request, RequestTrace& trace) const {
  HttpResponse response = Dispatch(request, trace);
  LocalizeProblem(response, PreferredLanguage(View(request[http::field::accept_language])));
  return response;
}

HttpResponse RestApi::Dispatch(const HttpRequest& request, RequestTrace& trace) const {
  try {
    const auto path = TargetPath(View(request.target()));
    if (auto checked = CheckPath(path); !checked) return ProblemResponse(checked.error());
    const auto match = router_.Find(request.method(), path);
    if (!match.pattern.empty()) trace.route = match.pattern;
    switch (match.kind) {
      case Router::Match::Kind::kFound:
        return (*match.handler)(RouteContext{request, match.params, &trace});
      case Router::Match::Kind::kMethodNotAllowed:
        return MethodNotAllowed(match.allow);
      case Router::Match::Kind::kNotFound:
        break;
    }
    return ProblemResponse(MakeError(ErrorCode::kNotFound, "no route for " + std::string(path)));
  } catch (const StorageUnavailable& e) {
    spdlog::warn("{} {}: database unavailable: {}", View(request.method_string()),
                 EscapeForLog(TargetPath(View(request.target()))), e.what());
    return ProblemResponse(Error{ErrorCode::kUnavailable, "the database is unavailable", 1});
  } catch (const std::exception& e) {
    spdlog::error("{} {}: unhandled error: {}", View(request.method_string()),
                  EscapeForLog(TargetPath(View(request.target()))), e.what());
    return InternalError();
  }
}

Result<Actor> RestApi::Authenticate(const RouteContext& ctx) const {
  const auto authorization = ctx.request.find(http::field::authorization);
  return verifier_.Authenticate(authorization == ctx.request.end() ? std::string_view{}
                                                                   : View(authorization->value()));
}

RouteHandler RestApi::Authenticated(Handler handler) const {
  return [this, handler](const RouteContext& ctx) -> HttpResponse {
    auto actor = Authenticate(ctx);
    if (!actor) return ProblemResponse(actor.error());
    if (ctx.trace != nullptr) ctx.trace->caller = actor->id;
    auto response = (this->*handler)(ctx, *actor);
    if (!response) return ProblemResponse(response.error());
    return std::move(response).value();
  };
}

RouteHandler RestApi::Idempotent(PostHandler handler) const {
  return [this, handler](const RouteContext& ctx) -> HttpResponse {
    auto actor = Authenticate(ctx);
    if (!actor) return ProblemResponse(actor.error());
    if (ctx.trace != nullptr) ctx.trace->caller = actor->id;
    const auto key = ctx.request.find(kIdempotencyKeyHeader);
    if (key == ctx.request.end()) {
      IdempotentEffect none;
      auto outcome = (this->*handler)(ctx, *actor, none);
      if (!outcome) return ProblemResponse(outcome.error());
      return OutcomeResponse(*outcome);
    }
    if (ctx.request.count(kIdempotencyKeyHeader) > 1) {
      return ProblemResponse(Invalid("give Idempotency-Key once"));
    }
    if (auto problem = IdempotencyKeyProblem(View(key->value()))) {
      return ProblemResponse(Invalid(std::move(*problem)));
    }
    return RunIdempotent(ctx, *actor, handler, View(key->value()));
  };
}

HttpResponse RestApi::RunIdempotent(const RouteContext& ctx, const Actor& actor,
                                    PostHandler handler, std::string_view key) const {
  IdempotentRequest request{actor.id, std::string(key), RequestFingerprint(ctx.request)};
  IdempotencyDecision decision = idempotency_.Begin(request);
  switch (decision.verdict) {
    case IdempotencyVerdict::kReplay:
      return ReplayResponse(decision.response);
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
    result.emplace((this->*handler)(ctx, actor, effect));
  } catch (const std::exception&) {
    AbandonQuietly(idempotency_, request, decision.owner);
    throw;
  }
  if (*result && effect.stored()) return OutcomeResponse(*effect.stored());
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
  return OutcomeResponse(outcome);
}

HttpResponse RestApi::Healthz(const RouteContext&) const {
  return JsonResponse(HttpStatus::ok, {{"status", "ok"}});
}

HttpResponse RestApi::Readyz(const RouteContext&) const {
  bool database_up = false;
  try {
    database_up = health_.database();
  } catch (const std::exception& e) {
    spdlog::warn("readiness: database check failed: {}", e.what());
  }
  const std::string lock = health_.lock();
  const std::string broker = health_.broker();
  const std::string embeddings = health_.embeddings();
  const auto is_degraded = [](const std::string& check) { return check == "degraded"; };
  const bool degraded = is_degraded(lock) || is_degraded(broker) || is_degraded(embeddings);
  const char* status = !database_up ? "down" : degraded ? "degraded" : "ok";
  return JsonResponse(database_up ? HttpStatus::ok : HttpStatus::service_unavailable,
                      {{"status", status},
                       {"checks",
                        {{"database", database_up ? "ok" : "down"},
                         {"lock", lock},
                         {"broker", broker},
                         {"embeddings", embeddings}}}});
}

HttpResponse RestApi::Metrics(const RouteContext&) const {
  HttpResponse response{HttpStatus::ok, 11};
  response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
  response.body() = health_.metrics();
  return response;
}

}  // namespace docgate
