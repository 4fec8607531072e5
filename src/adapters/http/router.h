#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/http/http_message.h"
#include "adapters/http/request_trace.h"
#include "core/error.h"

namespace docgate {

// The values of a path template's `{name}` segments, raw (not percent-decoded).
class PathParams {
 public:
  void Add(std::string name, std::string value) { values_.emplace_back(std::move(name), std::move(value)); }
  // The value of `{name}`; empty when the template has no such segment.
  std::string_view Get(std::string_view name) const;

 private:
  std::vector<std::pair<std::string, std::string>> values_;
};

// Percent-decoded query parameters.
using QueryParams = std::map<std::string, std::string, std::less<>>;

// Splits "/path?query" at the first '?'.
std::string_view TargetPath(std::string_view target);
std::string_view TargetQuery(std::string_view target);

// Parses a query string ("a=1&b=x%20y"; '+' is a space). VALIDATION for malformed escapes, a
// name outside `allowed`, a name given twice, or a value that decodes to invalid UTF-8 or holds
// U+0000 (IsStorableText): every value is text a store can keep.
Result<QueryParams> ParseQuery(std::string_view query, const std::vector<std::string_view>& allowed);

// VALIDATION when `path` (without the query string) has a malformed escape or decodes to invalid
// UTF-8 or U+0000. Path segments are matched raw (not decoded), so "%31" is no alias of "1".
Status CheckPath(std::string_view path);

struct RouteContext {
  const HttpRequest& request;
  const PathParams& params;
  RequestTrace* trace = nullptr;  // where a handler notes the caller it authenticated; may be null
};

using RouteHandler = std::function<HttpResponse(const RouteContext&)>;

// Method + path template dispatch. Templates are literal segments and `{name}` segments, which
// match any one non-empty segment: "/api/v1/documents/{id}/submit". Build it once, then Match from
// any number of threads.
class Router {
 public:
  void Add(HttpVerb verb, std::string_view pattern, RouteHandler handler);

  struct Match {
    enum class Kind { kFound, kNotFound, kMethodNotAllowed };
    Kind kind = Kind::kNotFound;
    const RouteHandler* handler = nullptr;  // kFound
    PathParams params;                      // kFound
    std::string allow;                      // kMethodNotAllowed: "GET, PUT"
    // The template added for the route (kFound) or, for kMethodNotAllowed, for the first route
    // of another method matching the path; valid as long as the router.
    std::string_view pattern;
  };
  // `path` without the query string. A path that does not start with '/' ("healthz", "*", an
  // absolute URL) matches nothing.
  Match Find(HttpVerb verb, std::string_view path) const;

  // Every (verb, template) added, in the order added: "/api/v1/documents/{id}/submit".
  std::vector<std::pair<HttpVerb, std::string>> Routes() const;

 private:
  struct Route {
    HttpVerb verb;
    std::vector<std::string> segments;
    RouteHandler handler;
    std::string pattern;
  };
  static bool Matches(const Route& route, const std::vector<std::string_view>& segments,
                      PathParams* params);

  std::vector<Route> routes_;
};

}  // namespace docgate
