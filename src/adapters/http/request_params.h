#pragma once

// What RestApi's handlers read from a request: the path's id, the JSON body's fields and the
// query parameters, each malformed input a VALIDATION error with a message that names it; and
// the 200 of a use case's value.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/dto.h"
#include "adapters/http/http_message.h"
#include "adapters/http/responses.h"
#include "adapters/http/router.h"
#include "app/document_service.h"
#include "app/idempotent_outcome.h"
#include "app/ports/chunk_index.h"
#include "app/reader_service.h"
#include "app/user_names.h"
#include "core/error.h"

namespace docgate {

// Beast's string_view as the standard's.
std::string_view View(boost::beast::string_view text);

Error Invalid(std::string detail);

// 200 with the use case's value as JSON, or its error.
template <typename T>
Result<HttpResponse> Ok200(const Result<T>& result) {
  if (!result) return result.error();
  return JsonResponse(HttpStatus::ok, ToJson(*result));
}

// The same for a value that names people (PeopleIn): their names from `users`, one lookup.
template <typename T>
Result<HttpResponse> Ok200(const Result<T>& result, const UserNames& users) {
  if (!result) return result.error();
  return JsonResponse(HttpStatus::ok, ToJson(*result, users.NamesOf(PeopleIn(*result))));
}

// The answer of a route whose use case moved a document (and its review): transitioned, or its
// error.
Result<IdempotentOutcome> Transitioned(Result<Transition> result);

// The answer of a route whose use case wrote a comment: commented, or its error.
Result<IdempotentOutcome> Commented(Result<ReviewComment> result);

// The route's {id}, of a `what` ("document", "review"): a positive int64 without leading zeros.
Result<std::int64_t> PathId(const RouteContext& ctx, std::string_view what);

// The body as a JSON object; an empty body is {} when `optional`.
Result<nlohmann::json> ObjectBody(const HttpRequest& request, bool optional);
// A string field: nullopt when absent; VALIDATION when present with another type (null included).
Result<std::optional<std::string>> StringField(const nlohmann::json& body, const char* name);
// A string field that must be present.
Result<std::string> RequiredString(const nlohmann::json& body, const char* name);
// An array of strings: empty when absent or null; VALIDATION for anything else.
Result<std::vector<std::string>> StringListField(const nlohmann::json& body, const char* name);
// An integer field that fits `T`: nullopt when absent or null; VALIDATION for anything else
// (3.0, "3", a value out of T's range).
template <typename T>
Result<std::optional<T>> IntegerField(const nlohmann::json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::optional<T>{};
  const bool fits = it->is_number_unsigned()
                        ? it->template get<std::uint64_t>() <=
                              static_cast<std::uint64_t>(std::numeric_limits<T>::max())
                        : it->is_number_integer() &&
                              it->template get<std::int64_t>() >= std::numeric_limits<T>::min() &&
                              it->template get<std::int64_t>() <= std::numeric_limits<T>::max();
  if (!fits) return Invalid(std::string("`") + name + "` must be an integer");
  return std::optional<T>(it->template get<T>());
}

// The query's parameters; VALIDATION for one not in `allowed`.
Result<QueryParams> Query(const RouteContext& ctx, const std::vector<std::string_view>& allowed);

// limit (an integer) and after (a cursor of a previous page), each when present.
Result<std::optional<int>> LimitParam(const QueryParams& query);
Result<std::optional<std::int64_t>> CursorParam(const QueryParams& query);
Result<PageRequest> PagingParams(const QueryParams& query);
// The page of a list that takes no other parameter: VALIDATION for any but limit and after.
Result<PageRequest> PageParams(const RouteContext& ctx);
// Search's mode (absent: the reader's default) and group (absent: by document).
Result<std::optional<SearchMode>> SearchModeParam(const QueryParams& query);
Result<SearchGrouping> SearchGroupingParam(const QueryParams& query);

}  // namespace docgate
