#pragma once

// The routes of /api/v1/reviews: the review queue, a review, approve and reject, its assignees and
// its comments (shared/API.md).

#include "adapters/http/route_guard.h"
#include "adapters/http/router.h"
#include "app/document_service.h"
#include "app/user_names.h"

namespace docgate {

// Thread-safe; the service must outlive it and the routes it adds.
class ReviewRoutes {
 public:
  ReviewRoutes(DocumentService& service, const UserNames& users)
      : service_(service), users_(users) {}

  void AddTo(Router& router, const RouteGuard& guard) const;

 private:
  Result<HttpResponse> Queue(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Get(const RouteContext& ctx, const Actor& actor) const;
  Result<IdempotentOutcome> Approve(const RouteContext& ctx, const Actor& actor,
                                    IdempotentEffect& effect) const;
  Result<IdempotentOutcome> Reject(const RouteContext& ctx, const Actor& actor,
                                   IdempotentEffect& effect) const;
  Result<IdempotentOutcome> Assign(const RouteContext& ctx, const Actor& actor,
                                   IdempotentEffect& effect) const;
  Result<IdempotentOutcome> Comment(const RouteContext& ctx, const Actor& actor,
                                    IdempotentEffect& effect) const;
  Result<HttpResponse> Comments(const RouteContext& ctx, const Actor& actor) const;

  DocumentService& service_;
  const UserNames& users_;
};

}  // namespace docgate
