#include "adapters/http/search_routes.h"

#include "adapters/http/request_params.h"

namespace docgate {

void SearchRoutes::AddTo(Router& router, const RouteGuard& guard) const {
  router.Add(HttpVerb::get, "/api/v1/search",
             guard.Authenticated(Bind(this, &SearchRoutes::Search)));
}

Result<HttpResponse> SearchRoutes::Search(const RouteContext& ctx, const Actor&) const {
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

}  // namespace docgate
