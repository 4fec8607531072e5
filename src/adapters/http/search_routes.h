#pragma once

// GET /api/v1/search: keyword, semantic or hybrid search over approved documents (shared/API.md).

#include "adapters/http/route_guard.h"
#include "adapters/http/router.h"
#include "app/reader_service.h"

namespace docgate {

// Thread-safe; the reader must outlive it and the route it adds.
class SearchRoutes {
 public:
  explicit SearchRoutes(ReaderService& reader) : reader_(reader) {}

  void AddTo(Router& router, const RouteGuard& guard) const;

 private:
  Result<HttpResponse> Search(const RouteContext& ctx, const Actor& actor) const;

  ReaderService& reader_;
};

}  // namespace docgate
