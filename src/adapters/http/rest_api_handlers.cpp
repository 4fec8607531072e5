// RestApi's handlers of documents, reviews and search: each reads its request (request_params.h)
// and calls its use case. The routing, authentication and the Idempotency-Key protocol are in
// rest_api.cpp.

#include "adapters/http/rest_api.h"

#include <optional>
#include <string>
#include <utility>

#include "adapters/http/idempotent_effect.h"
#include "adapters/http/request_params.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;

Result<IdempotentOutcome> Transitioned(Result<Transition> result) {
  if (!result) return result.error();
  return IdempotentOutcome::Transitioned(std::move(result->document), std::move(result->review));
}

}  // namespace

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
        return Invalid("If-Match must be a version tag like \"3\", got '" + std::string(value) +
                       "'");
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
      return Invalid("status must be pending, approved, rejected or withdrawn, got '" + it->second +
                     "'");
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
