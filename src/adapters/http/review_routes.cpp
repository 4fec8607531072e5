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
  router.Add(V::post, "/api/v1/reviews/{id}/assignees",
             guard.Idempotent(Bind(this, &ReviewRoutes::Assign)));
  router.Add(V::post, "/api/v1/reviews/{id}/comments",
             guard.Idempotent(Bind(this, &ReviewRoutes::Comment)));
  router.Add(V::get, "/api/v1/reviews/{id}/comments",
             guard.Authenticated(Bind(this, &ReviewRoutes::Comments)));
}

Result<HttpResponse> ReviewRoutes::Queue(const RouteContext& ctx, const Actor& actor) const {
  auto query = Query(ctx, {"status", "assignee", "limit", "after"});
  if (!query) return query.error();
  ListReviewsRequest request;
  // `assignee=me` is the caller's queue; another value names a reviewer's.
  if (const auto it = query->find("assignee"); it != query->end()) {
    if (it->second.empty()) return Invalid("assignee must be `me` or a user id, got ''");
    request.assignee = it->second == "me" ? actor.id : it->second;
    if (auto problem = SubjectProblem(*request.assignee)) return Invalid("assignee: " + *problem);
  }
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

Result<IdempotentOutcome> ReviewRoutes::Assign(const RouteContext& ctx, const Actor& actor,
                                               IdempotentEffect& effect) const {
  auto id = PathId(ctx, "review");
  if (!id) return id.error();
  auto body = ObjectBody(ctx.request, /*optional=*/false);
  if (!body) return body.error();
  auto add = StringListField(*body, "add");
  if (!add) return add.error();
  auto remove = StringListField(*body, "remove");
  if (!remove) return remove.error();
  auto assigned = service_.Assign(actor, *id, AssigneeChange{std::move(*add), std::move(*remove)},
                                  effect.Hook());
  if (!assigned) return assigned.error();
  return IdempotentOutcome::Assigned(std::move(*assigned));
}

Result<IdempotentOutcome> ReviewRoutes::Comment(const RouteContext& ctx, const Actor& actor,
                                                IdempotentEffect& effect) const {
  auto id = PathId(ctx, "review");
  if (!id) return id.error();
  auto body = ObjectBody(ctx.request, /*optional=*/false);
  if (!body) return body.error();
  CommentRequest request;
  auto text = RequiredString(*body, "body");
  if (!text) return text.error();
  request.body = std::move(*text);
  auto line = IntegerField<std::int32_t>(*body, "line");
  if (!line) return line.error();
  request.line = *line;
  // parent_id is an id, written like every id: a decimal string.
  if (const auto it = body->find("parent_id"); it != body->end() && !it->is_null()) {
    const auto parent = it->is_string() ? ParsePositiveId(it->get<std::string>()) : std::nullopt;
    if (!parent) return Invalid("`parent_id` must be a comment id (a decimal string)");
    request.parent_id = parent;
  }
  return Commented(service_.Comment(actor, *id, request, effect.Hook()));
}

Result<HttpResponse> ReviewRoutes::Comments(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "review");
  if (!id) return id.error();
  auto page = PageParams(ctx);
  if (!page) return page.error();
  return Ok200(service_.ListComments(*id, *page), users_);
}

}  // namespace docgate
