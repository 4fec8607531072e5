#pragma once

// The routes an operator and a load balancer use, without a token: /healthz (the process
// answers), /readyz (what it depends on), /metrics (when served) and /openapi.json.

#include <functional>
#include <string>
#include <utility>

#include "adapters/http/router.h"

namespace docgate {

// What /readyz reports. `database` is required; the others describe optional dependencies:
// "ok", "degraded" (working around an outage) or "disabled" (not configured).
struct HealthChecks {
  std::function<bool()> database;
  std::function<std::string()> lock = [] { return std::string("ok"); };
  std::function<std::string()> broker = [] { return std::string("disabled"); };
  std::function<std::string()> embeddings = [] { return std::string("off"); };
  std::function<std::string()> identity = [] { return std::string("disabled"); };
  // What GET /metrics serves: the Prometheus text exposition (format 0.0.4). Unset: no /metrics.
  std::function<std::string()> metrics;
};

// Thread-safe when the checks are; the routes it adds use it, so it must outlive them.
class OperationRoutes {
 public:
  explicit OperationRoutes(HealthChecks health) : health_(std::move(health)) {}

  void AddTo(Router& router) const;

 private:
  HttpResponse Readyz() const;
  HttpResponse Metrics() const;

  HealthChecks health_;
};

}  // namespace docgate
