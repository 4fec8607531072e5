#include "adapters/http/operation_routes.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <string>

#include "adapters/http/openapi.h"
#include "adapters/http/responses.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;

HttpResponse OpenApiResponse(const RouteContext&) {
  HttpResponse response{HttpStatus::ok, 11};
  response.set(http::field::content_type, "application/json");
  response.body() = std::string(OpenApiDocument());
  return response;
}

}  // namespace

void OperationRoutes::AddTo(Router& router) const {
  using V = HttpVerb;
  router.Add(V::get, "/healthz", [](const RouteContext&) {
    return JsonResponse(HttpStatus::ok, {{"status", "ok"}});
  });
  router.Add(V::get, "/readyz", [this](const RouteContext&) { return Readyz(); });
  router.Add(V::get, "/openapi.json", OpenApiResponse);
  if (health_.metrics) {
    router.Add(V::get, "/metrics", [this](const RouteContext&) { return Metrics(); });
  }
}

HttpResponse OperationRoutes::Readyz() const {
  bool database_up = false;
  try {
    database_up = health_.database();
  } catch (const std::exception& e) {
    spdlog::warn("readiness: database check failed: {}", e.what());
  }
  const std::string lock = health_.lock();
  const std::string broker = health_.broker();
  const std::string embeddings = health_.embeddings();
  const std::string identity = health_.identity();
  const auto is_degraded = [](const std::string& check) { return check == "degraded"; };
  const bool degraded =
      is_degraded(lock) || is_degraded(broker) || is_degraded(embeddings) || is_degraded(identity);
  const char* status = !database_up ? "down" : degraded ? "degraded" : "ok";
  return JsonResponse(database_up ? HttpStatus::ok : HttpStatus::service_unavailable,
                      {{"status", status},
                       {"checks",
                        {{"database", database_up ? "ok" : "down"},
                         {"lock", lock},
                         {"broker", broker},
                         {"embeddings", embeddings},
                         {"identity", identity}}}});
}

HttpResponse OperationRoutes::Metrics() const {
  HttpResponse response{HttpStatus::ok, 11};
  response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
  response.body() = health_.metrics();
  return response;
}

}  // namespace docgate
