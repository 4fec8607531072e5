#include "adapters/http/user_routes.h"

#include <nlohmann/json.hpp>
#include <string>

#include "adapters/http/request_params.h"
#include "adapters/http/responses.h"
#include "core/percent_encoding.h"

namespace docgate {

using nlohmann::json;

void UserRoutes::AddTo(Router& router, const RouteGuard& guard) const {
  using V = HttpVerb;
  router.Add(V::get, "/api/v1/me", guard.Authenticated(Bind(this, &UserRoutes::Me)));
  router.Add(V::get, "/api/v1/users/{id}", guard.Authenticated(Bind(this, &UserRoutes::Get)));
}

Result<HttpResponse> UserRoutes::Me(const RouteContext&, const Actor& actor) const {
  json roles = json::array();
  if (actor.is_author) roles.push_back("author");
  if (actor.is_reviewer) roles.push_back("reviewer");
  if (actor.is_admin) roles.push_back("admin");
  return JsonResponse(HttpStatus::ok,
                      {{"id", actor.id},
                       {"name", actor.name.empty() ? json(nullptr) : json(actor.name)},
                       {"roles", std::move(roles)}});
}

Result<HttpResponse> UserRoutes::Get(const RouteContext& ctx, const Actor&) const {
  // The path was checked whole (CheckPath): its escapes are well-formed, and decode to UTF-8.
  const std::string id = PercentDecoded(ctx.params.Get("id"));
  if (auto problem = SubjectProblem(id)) {
    return Invalid("the user id must be 1.." + std::to_string(kMaxSubjectBytes) +
                   " bytes of UTF-8 without control characters");
  }
  const std::optional<UserRecord> user = users_.Find(id);
  if (!user) return MakeError(ErrorCode::kNotFound, "no user '" + id + "' has been seen");
  return JsonResponse(HttpStatus::ok,
                      {{"id", user->id}, {"name", user->name ? json(*user->name) : json(nullptr)}});
}

}  // namespace docgate
