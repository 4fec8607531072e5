#include "adapters/http/router.h"

#include <algorithm>
#include <optional>

#include <boost/beast/http/verb.hpp>

#include "core/query_string.h"
#include "core/utf8.h"

namespace docgate {
namespace {

// "/a/b/c" -> {"a", "b", "c"}; "/" -> {}; "/a/" -> {"a", ""} so a trailing slash never matches.
std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path.front() != '/') {
    out.emplace_back(path);
    return out;
  }
  path.remove_prefix(1);
  if (path.empty()) return out;
  for (;;) {
    const auto slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return out;
    path.remove_prefix(slash + 1);
  }
}

bool IsParam(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

std::string_view PathParams::Get(std::string_view name) const {
  for (const auto& [key, value] : values_) {
    if (key == name) return value;
  }
  return {};
}

std::string_view TargetPath(std::string_view target) { return target.substr(0, target.find('?')); }

std::string_view TargetQuery(std::string_view target) {
  const auto mark = target.find('?');
  return mark == std::string_view::npos ? std::string_view{} : target.substr(mark + 1);
}

Result<QueryParams> ParseQuery(std::string_view query,
                               const std::vector<std::string_view>& allowed) {
  QueryParams params;
  for (const auto& [written_name, written_value] : SplitQuery(query)) {
    auto name = PercentDecode(written_name);
    auto value = PercentDecode(written_value.value_or(std::string_view()));
    if (!name || !value) {
      return MakeError(ErrorCode::kValidation, "malformed percent-encoding in the query string");
    }
    if (std::find(allowed.begin(), allowed.end(), *name) == allowed.end()) {
      return MakeError(ErrorCode::kValidation, "unknown query parameter '" + *name + "'");
    }
    if (!IsStorableText(*value)) {
      return MakeError(ErrorCode::kValidation,
                       "query parameter '" + *name + "' is not valid UTF-8 or holds U+0000");
    }
    if (!params.emplace(*name, std::move(*value)).second) {
      return MakeError(ErrorCode::kValidation, "query parameter '" + *name + "' given twice");
    }
  }
  return params;
}

Status CheckPath(std::string_view path) {
  const auto decoded = PercentDecode(path);
  if (!decoded) return MakeError(ErrorCode::kValidation, "malformed percent-encoding in the path");
  if (!IsStorableText(*decoded)) {
    return MakeError(ErrorCode::kValidation, "the path is not valid UTF-8 or holds U+0000");
  }
  return Ok{};
}

void Router::Add(HttpVerb verb, std::string_view pattern, RouteHandler handler) {
  Route route{verb, {}, std::move(handler), std::string(pattern)};
  for (const auto segment : Segments(pattern)) route.segments.emplace_back(segment);
  routes_.push_back(std::move(route));
}

std::vector<std::pair<HttpVerb, std::string>> Router::Routes() const {
  std::vector<std::pair<HttpVerb, std::string>> out;
  out.reserve(routes_.size());
  for (const auto& route : routes_) {
    std::string pattern;
    for (const auto& segment : route.segments) pattern += "/" + segment;
    out.emplace_back(route.verb, pattern.empty() ? "/" : pattern);
  }
  return out;
}

bool Router::Matches(const Route& route, const std::vector<std::string_view>& segments,
                     PathParams* params) {
  if (route.segments.size() != segments.size()) return false;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string& expected = route.segments[i];
    if (IsParam(expected) ? segments[i].empty() : expected != segments[i]) return false;
  }
  if (params != nullptr) {
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const std::string& expected = route.segments[i];
      if (IsParam(expected)) {
        params->Add(expected.substr(1, expected.size() - 2), std::string(segments[i]));
      }
    }
  }
  return true;
}

Router::Match Router::Find(HttpVerb verb, std::string_view path) const {
  Match match;
  // Segments("healthz") is {"healthz"}, which the template "/healthz" would match.
  if (!path.starts_with('/')) return match;
  const auto segments = Segments(path);
  // HEAD is answered wherever GET is, by the GET's handler: the server sends its header only.
  const HttpVerb wanted = verb == HttpVerb::head ? HttpVerb::get : verb;
  std::vector<std::string_view> allowed;
  for (const auto& route : routes_) {
    if (!Matches(route, segments, nullptr)) continue;
    if (route.verb == wanted) {
      match.kind = Match::Kind::kFound;
      match.handler = &route.handler;
      match.pattern = route.pattern;
      Matches(route, segments, &match.params);
      return match;
    }
    if (match.pattern.empty()) match.pattern = route.pattern;
    const auto name = boost::beast::http::to_string(route.verb);
    const std::string_view verb_name(name.data(), name.size());
    if (std::find(allowed.begin(), allowed.end(), verb_name) == allowed.end()) {
      allowed.push_back(verb_name);
      if (route.verb == HttpVerb::get) allowed.push_back("HEAD");
    }
  }
  if (!allowed.empty()) {
    match.kind = Match::Kind::kMethodNotAllowed;
    for (const auto name : allowed) {
      if (!match.allow.empty()) match.allow += ", ";
      match.allow += name;
    }
  }
  return match;
}

}  // namespace docgate
