#include "adapters/http/rest_api.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <exception>
#include <nlohmann/json.hpp>

#include "adapters/http/console.h"
#include "adapters/http/dto.h"
#include "adapters/http/error_mapper.h"
#include "adapters/http/idempotency_codec.h"
#include "adapters/http/localize.h"
#include "adapters/http/openapi.h"
#include "adapters/http/responses.h"
#include "core/utf8.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;
using nlohmann::json;

std::string_view View(boost::beast::string_view text) { return {text.data(), text.size()}; }

Error Invalid(std::string detail) { return MakeError(ErrorCode::kValidation, std::move(detail)); }

// 200 with the use case's value as JSON, or its error.
template <typename T>
Result<HttpResponse> Ok200(const Result<T>& result) {
  if (!result) return result.error();
  return JsonResponse(HttpStatus::ok, ToJson(*result));
}

Result<std::int64_t> PathId(const RouteContext& ctx, std::string_view what) {
  const auto raw = ctx.params.Get("id");
  const auto id = ParsePositiveId(raw);
  if (!id) {
    return Invalid(std::string(what) +
                   " id must be a positive 64-bit decimal integer without leading zeros, got '" +
                   std::string(raw) + "'");
  }
  return *id;
}

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// The body as a JSON object; an empty body is {} when `optional`.
Result<json> ObjectBody(const HttpRequest& request, bool optional) {
  if (optional && IsBlank(request.body())) return json::object();
  auto body = ParseJsonBody(request.body());
  if (!body) return body.error();
  if (!body->is_object()) return Invalid("request body must be a JSON object");
  return body;
}

// A string field: nullopt when absent; VALIDATION when present with another type (null included).
Result<std::optional<std::string>> StringField(const json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end()) return std::optional<std::string>{};
  if (!it->is_string()) return Invalid(std::string("`") + name + "` must be a string");
  return std::optional<std::string>{it->get<std::string>()};
}

Result<std::string> RequiredString(const json& body, const char* name) {
  auto field = StringField(body, name);
  if (!field) return field.error();
  if (!*field) return Invalid(std::string("`") + name + "` is required");
  return std::move(**field);
}

struct Paging {
  std::optional<int> limit;
  std::optional<std::int64_t> after;
};

Result<std::optional<int>> LimitParam(const QueryParams& query) {
  const auto it = query.find("limit");
  if (it == query.end()) return std::optional<int>{};
  int value = 0;
  const auto& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    return Invalid("limit must be an integer, got '" + text + "'");
  }
  return std::optional<int>{value};
}

Result<std::optional<SearchMode>> SearchModeParam(const QueryParams& query) {
  const auto it = query.find("mode");
  if (it == query.end()) return std::optional<SearchMode>{};
  const auto mode = ParseSearchMode(it->second);
  if (!mode) return Invalid("mode must be keyword, semantic or hybrid, got '" + it->second + "'");
  return std::optional<SearchMode>{*mode};
}

Result<SearchGrouping> SearchGroupingParam(const QueryParams& query) {
  const auto it = query.find("group");
  if (it == query.end() || it->second == "document") return SearchGrouping::kDocument;
  if (it->second == "chunk") return SearchGrouping::kChunk;
  return Invalid("group must be document or chunk, got '" + it->second + "'");
}

Result<std::optional<std::int64_t>> CursorParam(const QueryParams& query) {
  const auto it = query.find("after");
  if (it == query.end()) return std::optional<std::int64_t>{};
  const auto cursor = ParsePositiveId(it->second);
  if (!cursor) return Invalid("after must be a cursor from a previous page, got '" + it->second + "'");
  return std::optional<std::int64_t>{*cursor};
}

Result<Paging> PagingParams(const QueryParams& query) {
  auto limit = LimitParam(query);
  if (!limit) return limit.error();
  auto after = CursorParam(query);
  if (!after) return after.error();
  return Paging{*limit, *after};
}

Result<QueryParams> Query(const RouteContext& ctx, const std::vector<std::string_view>& allowed) {
  return ParseQuery(TargetQuery(View(ctx.request.target())), allowed);
}

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

// How a POST handler commits its effect. Without an Idempotency-Key it is inert: no hook. With
// one, the hook stores the outcome inside the use case's transaction, with the effect, and keeps
// it, so that the first answer is rendered from exactly what a replay will render.
class IdempotentEffect {
 public:
  IdempotentEffect() = default;
  IdempotentEffect(IdempotencyService& idempotency, IdempotentRequest request, std::string owner)
      : idempotency_(&idempotency), request_(std::move(request)), owner_(std::move(owner)) {}

  CommitHook Hook() {
    if (idempotency_ == nullptr) return {};
    return idempotency_->CompleteOnCommit(
        request_, owner_, [this](const IdempotentOutcome& outcome) { stored_ = outcome; });
  }

  // The outcome stored with the effect; nullopt when none was (the effect did not commit).
  const std::optional<IdempotentOutcome>& stored() const { return stored_; }

 private:
  IdempotencyService* idempotency_ = nullptr;
  IdempotentRequest request_;
  std::string owner_;
  std::optional<IdempotentOutcome> stored_;
};

namespace {

Result<IdempotentOutcome> Transitioned(Result<Transition> result) {
  if (!result) return result.error();
  return IdempotentOutcome::Transitioned(std::move(result->document), std::move(result->review));
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

Result<IdempotentOutcome> RestApi::CreateDocument(const RouteContext& ctx, const Actor& actor,
                                                  IdempotentEffect& effect) const {
  auto body = ObjectBody(ctx.request, /*optional=*/false);
  if (!body) return body.error();
  auto title = RequiredString(*body, "title");
  if (!title) return title.error();
  auto content = RequiredString(*body, "content");
  if (!content) return content.error();
  auto doc = service_.Create(actor, *title, *content, effect.Hook());
  if (!doc) return doc.error();
  return IdempotentOutcome::Created(std::move(*doc));
}

Result<HttpResponse> RestApi::ListDocuments(const RouteContext& ctx, const Actor&) const {
  auto query = Query(ctx, {"status", "author_id", "limit", "after"});
  if (!query) return query.error();
  ListDocumentsRequest request;
  if (const auto it = query->find("status"); it != query->end()) {
    request.status = ParseDocumentStatus(it->second);
    if (!request.status) {
      return Invalid("status must be draft, pending_review, approved or rejected, got '" +
                     it->second + "'");
    }
  }
  if (const auto it = query->find("author_id"); it != query->end()) {
    // An author id is a token's `sub`: anything longer names nobody.
    if (it->second.empty() || it->second.size() > kMaxSubjectBytes) {
      return Invalid("author_id must be 1.." + std::to_string(kMaxSubjectBytes) + " bytes, got " +
                     std::to_string(it->second.size()));
    }
    request.author_id = it->second;
  }
  auto paging = PagingParams(*query);
  if (!paging) return paging.error();
  request.limit = paging->limit;
  request.after = paging->after;
  return Ok200(service_.ListDocuments(request));
}

Result<HttpResponse> RestApi::GetDocument(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  auto doc = service_.GetDocument(*id);
  if (!doc) return doc.error();
  return DocumentResponse(HttpStatus::ok, *doc);
}

Result<HttpResponse> RestApi::EditDocument(const RouteContext& ctx, const Actor& actor) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  EditRequest request;
  if (const auto it = ctx.request.find(http::field::if_match); it != ctx.request.end()) {
    const auto value = View(it->value());
    if (value != "*") {
      request.if_match = ParseVersionTag(value);
      if (!request.if_match) {
        return Invalid("If-Match must be a version tag like \"3\", got '" + std::string(value) + "'");
      }
    }
  }
  auto body = ObjectBody(ctx.request, /*optional=*/false);
  if (!body) return body.error();
  auto title = StringField(*body, "title");
  if (!title) return title.error();
  auto content = StringField(*body, "content");
  if (!content) return content.error();
  request.title = std::move(*title);
  request.content = std::move(*content);
  auto doc = service_.Edit(actor, *id, request);
  if (!doc) return doc.error();
  return DocumentResponse(HttpStatus::ok, *doc);
}

Result<HttpResponse> RestApi::GetContent(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Ok200(service_.GetContent(*id));
}

Result<HttpResponse> RestApi::GetPreview(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Ok200(reader_.GetPreview(*id));
}

Result<HttpResponse> RestApi::Search(const RouteContext& ctx, const Actor&) const {
  auto query = Query(ctx, {"q", "limit", "mode", "group"});
  if (!query) return query.error();
  const auto q = query->find("q");
  if (q == query->end()) return Invalid("q is required: the words to search for");
  auto limit = LimitParam(*query);
  if (!limit) return limit.error();
  auto mode = SearchModeParam(*query);
  if (!mode) return mode.error();
  auto group = SearchGroupingParam(*query);
  if (!group) return group.error();
  return Ok200(reader_.Search(q->second, *limit, *mode, *group));
}

Result<IdempotentOutcome> RestApi::Submit(const RouteContext& ctx, const Actor& actor,
                                          IdempotentEffect& effect) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Transitioned(service_.Submit(actor, *id, effect.Hook()));
}

Result<IdempotentOutcome> RestApi::Withdraw(const RouteContext& ctx, const Actor& actor,
                                            IdempotentEffect& effect) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Transitioned(service_.Withdraw(actor, *id, effect.Hook()));
}

Result<HttpResponse> RestApi::DocumentReviews(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Ok200(service_.ReviewHistory(*id));
}

Result<HttpResponse> RestApi::DocumentVersions(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Ok200(service_.ListVersions(*id));
}

Result<HttpResponse> RestApi::GetVersion(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  const auto raw = ctx.params.Get("version");
  const auto version = ParseVersion(raw);
  if (!version) {
    return Invalid(
        "version must be a positive 32-bit decimal integer without leading zeros, got '" +
        std::string(raw) + "'");
  }
  return Ok200(service_.GetVersion(*id, *version));
}

Result<HttpResponse> RestApi::ReviewQueue(const RouteContext& ctx, const Actor& actor) const {
  auto query = Query(ctx, {"status", "limit", "after"});
  if (!query) return query.error();
  ListReviewsRequest request;
  if (const auto it = query->find("status"); it != query->end()) {
    request.status = ParseReviewStatus(it->second);
    if (!request.status) {
      return Invalid("status must be pending, approved, rejected or withdrawn, got '" +
                     it->second + "'");
    }
  }
  auto paging = PagingParams(*query);
  if (!paging) return paging.error();
  request.limit = paging->limit;
  request.after = paging->after;
  return Ok200(service_.ReviewQueue(actor, request));
}

Result<HttpResponse> RestApi::GetReview(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "review");
  if (!id) return id.error();
  return Ok200(service_.GetReview(*id));
}

Result<IdempotentOutcome> RestApi::Approve(const RouteContext& ctx, const Actor& actor,
                                           IdempotentEffect& effect) const {
  auto id = PathId(ctx, "review");
  if (!id) return id.error();
  auto body = ObjectBody(ctx.request, /*optional=*/true);
  if (!body) return body.error();
  std::optional<std::string> comment;
  // `comment` may be absent or null (no comment), otherwise a string.
  if (const auto it = body->find("comment"); it != body->end() && !it->is_null()) {
    if (!it->is_string()) return Invalid("`comment` must be a string");
    comment = it->get<std::string>();
  }
  return Transitioned(service_.Approve(actor, *id, comment, effect.Hook()));
}

Result<IdempotentOutcome> RestApi::Reject(const RouteContext& ctx, const Actor& actor,
                                          IdempotentEffect& effect) const {
  auto id = PathId(ctx, "review");
  if (!id) return id.error();
  auto body = ObjectBody(ctx.request, /*optional=*/false);
  if (!body) return body.error();
  auto reason = RequiredString(*body, "reason");
  if (!reason) return reason.error();
  return Transitioned(service_.Reject(actor, *id, *reason, effect.Hook()));
}

}  // namespace docgate
