#include "adapters/http/console.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "adapters/http/error_mapper.h"
#include "core/embedded_file.h"

namespace docgate {

extern const std::vector<EmbeddedFile> kConsoleAssets;

namespace {

namespace http = boost::beast::http;

constexpr std::string_view kSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data: https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string_view ContentType(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js") || name.ends_with(".mjs")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

// FNV-1a: the ETag only has to change when the bytes do.
std::string Etag(std::string_view content) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : content) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  char text[24];
  std::snprintf(text, sizeof text, "\"%016llx\"", static_cast<unsigned long long>(hash));
  return text;
}

void SetSecurityHeaders(HttpResponse& response) {
  response.set("Content-Security-Policy", std::string(kSecurityPolicy));
  response.set("X-Content-Type-Options", "nosniff");
  response.set("Referrer-Policy", "no-referrer");
  response.set(http::field::x_frame_options, "DENY");
}

}  // namespace

HttpResponse ConsoleAsset(std::string_view name, const HttpRequest& request) {
  const auto asset = std::find_if(kConsoleAssets.begin(), kConsoleAssets.end(),
                                  [name](const EmbeddedFile& file) { return file.name == name; });
  if (asset == kConsoleAssets.end()) {
    HttpResponse missing = ProblemResponse(
        MakeError(ErrorCode::kNotFound, "the console has no file '" + std::string(name) + "'"));
    SetSecurityHeaders(missing);
    return missing;
  }
  const std::string etag = Etag(asset->content);
  const auto if_none_match = request.find(http::field::if_none_match);
  const bool unchanged =
      if_none_match != request.end() &&
      std::string_view(if_none_match->value().data(), if_none_match->value().size()).find(etag) !=
          std::string_view::npos;
  HttpResponse response{unchanged ? HttpStatus::not_modified : HttpStatus::ok, 11};
  response.set(http::field::etag, etag);
  response.set(http::field::cache_control, "no-cache");
  SetSecurityHeaders(response);
  if (!unchanged) {
    response.set(http::field::content_type, std::string(ContentType(asset->name)));
    response.body() = std::string(asset->content);
  }
  return response;
}

void AddConsoleRoutes(Router& router) {
  router.Add(HttpVerb::get, "/",
             [](const RouteContext& ctx) { return ConsoleAsset("index.html", ctx.request); });
  router.Add(HttpVerb::get, "/console/{file}", [](const RouteContext& ctx) {
    return ConsoleAsset(ctx.params.Get("file"), ctx.request);
  });
}

}  // namespace docgate
