#include "adapters/http/request_params.h"

#include <charconv>
#include <utility>

namespace docgate {
namespace {

using nlohmann::json;

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

std::string_view View(boost::beast::string_view text) { return {text.data(), text.size()}; }

Error Invalid(std::string detail) { return MakeError(ErrorCode::kValidation, std::move(detail)); }

Result<std::int64_t> PathId(const RouteContext& ctx, std::string_view what) {
  const auto raw = ctx.params.Get("id");
  const auto id = ParsePositiveId(raw);
  if (!id) {
    return Invalid(std::string(what) +
                   " id must be a positive 64-bit decimal integer without leading zeros, got '" +
                   std::string(raw) + "'");
  }
  return *id;
}

Result<json> ObjectBody(const HttpRequest& request, bool optional) {
  if (optional && IsBlank(request.body())) return json::object();
  auto body = ParseJsonBody(request.body());
  if (!body) return body.error();
  if (!body->is_object()) return Invalid("request body must be a JSON object");
  return body;
}

Result<std::optional<std::string>> StringField(const json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end()) return std::optional<std::string>{};
  if (!it->is_string()) return Invalid(std::string("`") + name + "` must be a string");
  return std::optional<std::string>{it->get<std::string>()};
}

Result<std::string> RequiredString(const json& body, const char* name) {
  auto field = StringField(body, name);
  if (!field) return field.error();
  if (!*field) return Invalid(std::string("`") + name + "` is required");
  return std::move(**field);
}

Result<std::optional<int>> LimitParam(const QueryParams& query) {
  const auto it = query.find("limit");
  if (it == query.end()) return std::optional<int>{};
  int value = 0;
  const auto& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    return Invalid("limit must be an integer, got '" + text + "'");
  }
  return std::optional<int>{value};
}

Result<std::optional<SearchMode>> SearchModeParam(const QueryParams& query) {
  const auto it = query.find("mode");
  if (it == query.end()) return std::optional<SearchMode>{};
  const auto mode = ParseSearchMode(it->second);
  if (!mode) return Invalid("mode must be keyword, semantic or hybrid, got '" + it->second + "'");
  return std::optional<SearchMode>{*mode};
}

Result<SearchGrouping> SearchGroupingParam(const QueryParams& query) {
  const auto it = query.find("group");
  if (it == query.end() || it->second == "document") return SearchGrouping::kDocument;
  if (it->second == "chunk") return SearchGrouping::kChunk;
  return Invalid("group must be document or chunk, got '" + it->second + "'");
}

Result<std::optional<std::int64_t>> CursorParam(const QueryParams& query) {
  const auto it = query.find("after");
  if (it == query.end()) return std::optional<std::int64_t>{};
  const auto cursor = ParsePositiveId(it->second);
  if (!cursor)
    return Invalid("after must be a cursor from a previous page, got '" + it->second + "'");
  return std::optional<std::int64_t>{*cursor};
}

Result<PageRequest> PagingParams(const QueryParams& query) {
  auto limit = LimitParam(query);
  if (!limit) return limit.error();
  auto after = CursorParam(query);
  if (!after) return after.error();
  return PageRequest{*limit, *after};
}

Result<PageRequest> PageParams(const RouteContext& ctx) {
  auto query = Query(ctx, {"limit", "after"});
  if (!query) return query.error();
  return PagingParams(*query);
}

Result<QueryParams> Query(const RouteContext& ctx, const std::vector<std::string_view>& allowed) {
  return ParseQuery(TargetQuery(View(ctx.request.target())), allowed);
}

Result<IdempotentOutcome> Commented(Result<ReviewComment> result) {
  if (!result) return result.error();
  return IdempotentOutcome::Commented(std::move(*result));
}

Result<std::vector<std::string>> StringListField(const nlohmann::json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::vector<std::string>{};
  const auto invalid = [&] {
    return Invalid(std::string("`") + name + "` must be an array of strings");
  };
  if (!it->is_array()) return invalid();
  std::vector<std::string> values;
  for (const auto& value : *it) {
    if (!value.is_string()) return invalid();
    values.push_back(value.get<std::string>());
  }
  return values;
}

Result<IdempotentOutcome> Transitioned(Result<Transition> result) {
  if (!result) return result.error();
  return IdempotentOutcome::Transitioned(std::move(result->document), std::move(result->review));
}

}  // namespace docgate
