#include "adapters/http/review_routes.h"

#include <optional>
#include <string>

#include "adapters/http/request_params.h"

namespace docgate {

void ReviewRoutes::AddTo(Router& router, const RouteGuard& guard) const {
  using V = HttpVerb;
  router.Add(V::get, "/api/v1/reviews", guard.Authenticated(Bind(this, &ReviewRoutes::Queue)));
  router.Add(V::get, "/api/v1/reviews/{id}", guard.Authenticated(Bind(this, &ReviewRoutes::Get)));
  router.Add(V::post, "/api/v1/reviews/{id}/approve",
             guard.Idempotent(Bind(this, &ReviewRoutes::Approve)));
  router.Add(V::post, "/api/v1/reviews/{id}/reject",
             guard.Idempotent(Bind(this, &ReviewRoutes::Reject)));
}

Result<HttpResponse> ReviewRoutes::Queue(const RouteContext& ctx, const Actor& actor) const {
  auto query = Query(ctx, {"status", "limit", "after"});
  if (!query) return query.error();
  ListReviewsRequest request;
  if (const auto it = query->find("status"); it != query->end()) {
    request.status = ParseReviewStatus(it->second);
    if (!request.status) {
      return Invalid("status must be pending, approved, rejected or withdrawn, got '" + it->second +
                     "'");
    }
  }
  auto paging = PagingParams(*query);
  if (!paging) return paging.error();
  request.limit = paging->limit;
  request.after = paging->after;
  return Ok200(service_.ReviewQueue(actor, request), users_);
}

Result<HttpResponse> ReviewRoutes::Get(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "review");
  if (!id) return id.error();
  return Ok200(service_.GetReview(*id), users_);
}

Result<IdempotentOutcome> ReviewRoutes::Approve(const RouteContext& ctx, const Actor& actor,
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

Result<IdempotentOutcome> ReviewRoutes::Reject(const RouteContext& ctx, const Actor& actor,
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
