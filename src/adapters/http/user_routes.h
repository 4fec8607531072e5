#pragma once

// The routes of the people docgate knows: GET /api/v1/me (the caller, from its token) and
// GET /api/v1/users/{id} (a caller as last seen), shared/API.md v1.2 "Identity".

#include "adapters/http/route_guard.h"
#include "adapters/http/router.h"
#include "app/user_names.h"

namespace docgate {

// Thread-safe; `users` must outlive it and the routes it adds.
class UserRoutes {
 public:
  explicit UserRoutes(const UserNames& users) : users_(users) {}

  void AddTo(Router& router, const RouteGuard& guard) const;

 private:
  Result<HttpResponse> Me(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Get(const RouteContext& ctx, const Actor& actor) const;

  const UserNames& users_;
};

}  // namespace docgate
