#include "adapters/oidc/oidc_key_set.h"

#include <spdlog/spdlog.h>

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "adapters/web/http_connection.h"
#include "adapters/web/web_url.h"

namespace docgate {
namespace {

constexpr std::size_t kMaxDocumentBytes = 1 << 20;

// The target of an absolute URL: the path (WebUrl's, which refuses a query) or "/".
std::string Target(const WebUrl& url) { return url.path.empty() ? "/" : url.path; }

namespace http = boost::beast::http;

// `address` as a URL docgate may send to: https://, or http:// to this machine.
WebUrl TrustedUrl(const std::string& address) {
  WebUrl url;
  try {
    url = ParseWebUrl(address, "nothing: the issuer's documents need none");
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("unusable URL: ") + e.what());
  }
  if (!url.tls && !IsLoopbackHost(url.host)) {
    throw std::runtime_error("http:// to " + url.host + ": only https:// is trusted");
  }
  return url;
}

// The sign-in endpoints a discovery document names; nullopt without an authorization and a token
// endpoint (an issuer for bearer tokens only).
std::optional<OidcEndpoints> EndpointsOf(const nlohmann::json& discovery) {
  const auto text = [&](const char* name) {
    const auto it = discovery.find(name);
    return it != discovery.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  OidcEndpoints endpoints{text("authorization_endpoint"), text("token_endpoint"),
                          text("end_session_endpoint")};
  if (endpoints.authorization.empty() || endpoints.token.empty()) return std::nullopt;
  return endpoints;
}

// One exchange on a connection of its own; transport failures as std::runtime_error.
HttpResponse Send(const WebUrl& url, const std::shared_ptr<boost::asio::ssl::context>& tls,
                  HttpRequest& request, std::chrono::milliseconds timeout) {
  request.set(http::field::host, url.HostHeader());
  request.set(http::field::accept, "application/json");
  request.set(http::field::user_agent, "docgate");
  HttpConnection connection(url, tls, timeout);
  try {
    return connection.Exchange(request, timeout, kMaxDocumentBytes);
  } catch (const HttpTransportError& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace

FetchDocument MakeWebFetcher(const std::string& ca_file, std::chrono::milliseconds timeout) {
  auto tls = MakeVerifyingTlsContext(ca_file);
  return [tls, timeout](const std::string& address) {
    const WebUrl url = TrustedUrl(address);
    HttpRequest request{http::verb::get, Target(url), 11};
    HttpResponse response = Send(url, tls, request, timeout);
    if (response.result() != http::status::ok) {
      throw std::runtime_error(url.HostHeader() + Target(url) + " answered " +
                               std::to_string(response.result_int()));
    }
    return std::move(response.body());
  };
}

PostForm MakeWebFormPoster(const std::string& ca_file, std::chrono::milliseconds timeout) {
  auto tls = MakeVerifyingTlsContext(ca_file);
  return [tls, timeout](const std::string& address, const std::string& form,
                        const std::string& authorization) {
    const WebUrl url = TrustedUrl(address);
    HttpRequest request{http::verb::post, Target(url), 11};
    request.set(http::field::content_type, "application/x-www-form-urlencoded");
    if (!authorization.empty()) request.set(http::field::authorization, authorization);
    request.body() = form;
    request.prepare_payload();
    HttpResponse response = Send(url, tls, request, timeout);
    if (response.result() != http::status::ok) {
      throw FormRefused(static_cast<int>(response.result_int()), std::move(response.body()));
    }
    return std::move(response.body());
  };
}

OidcKeySet::OidcKeySet(std::string issuer, FetchDocument fetch, Clock& clock,
                       std::chrono::milliseconds refresh_interval)
    : issuer_(std::move(issuer)),
      fetch_(std::move(fetch)),
      clock_(clock),
      refresh_interval_(refresh_interval) {}

bool OidcKeySet::Refresh() {
  std::lock_guard lock(fetch_mutex_);
  return FetchLocked();
}

bool OidcKeySet::FetchLocked() {
  last_fetch_ = clock_.Now();
  std::string where = "the discovery document";
  try {
    std::string base = issuer_;
    while (base.ends_with('/')) base.pop_back();
    const auto discovery =
        nlohmann::json::parse(fetch_(base + "/.well-known/openid-configuration"), nullptr,
                              /*allow_exceptions=*/false);
    if (!discovery.is_object()) throw std::invalid_argument("it is not a JSON object");
    const auto issuer = discovery.find("issuer");
    if (issuer == discovery.end() || *issuer != issuer_) {
      throw std::invalid_argument(
          "its `issuer` is not DOCGATE_OIDC_ISSUER, character for "
          "character");
    }
    const auto jwks_uri = discovery.find("jwks_uri");
    if (jwks_uri == discovery.end() || !jwks_uri->is_string()) {
      throw std::invalid_argument("it has no `jwks_uri`");
    }
    std::optional<OidcEndpoints> endpoints = EndpointsOf(discovery);
    where = "the key set";
    ++key_fetches_;
    std::vector<JsonWebKey> keys = ParseJsonWebKeySet(fetch_(jwks_uri->get<std::string>()));
    if (keys.empty()) throw std::invalid_argument("it holds no RS256 or ES256 signing key");
    const std::size_t count = keys.size();
    {
      std::unique_lock write(keys_mutex_);
      keys_ = std::move(keys);
      if (endpoints) endpoints_ = std::move(endpoints);
    }
    if (!healthy_.exchange(true)) {
      spdlog::info("identity: {} signing keys of {}", count, issuer_);
    }
    return true;
  } catch (const std::exception& e) {
    // The keys fetched before stay: an issuer that blinks does not sign everyone out.
    healthy_ = false;
    spdlog::warn(
        "identity: cannot use {} of {}: {}; tokens signed with a key not seen before "
        "are refused until it can be fetched",
        where, issuer_, e.what());
    return false;
  }
}

std::optional<JsonWebKey> OidcKeySet::Lookup(std::string_view kid,
                                             std::string_view algorithm) const {
  std::shared_lock read(keys_mutex_);
  const JsonWebKey* only = nullptr;
  int of_algorithm = 0;
  for (const JsonWebKey& key : keys_) {
    if (!kid.empty() && key.kid() == kid) return key;
    if (kid.empty() && key.algorithm() == algorithm) {
      only = &key;
      ++of_algorithm;
    }
  }
  if (of_algorithm == 1) return *only;
  return std::nullopt;
}

std::optional<OidcEndpoints> OidcKeySet::Endpoints() {
  {
    std::shared_lock read(keys_mutex_);
    if (endpoints_) return endpoints_;
  }
  std::lock_guard lock(fetch_mutex_);
  if (!last_fetch_ || clock_.Now() - *last_fetch_ >= refresh_interval_) FetchLocked();
  std::shared_lock read(keys_mutex_);
  return endpoints_;
}

std::optional<JsonWebKey> OidcKeySet::Find(std::string_view kid, std::string_view algorithm) {
  if (auto key = Lookup(kid, algorithm)) return key;
  std::lock_guard lock(fetch_mutex_);
  // Another caller may have fetched while this one waited.
  if (auto key = Lookup(kid, algorithm)) return key;
  if (last_fetch_ && clock_.Now() - *last_fetch_ < refresh_interval_) return std::nullopt;
  FetchLocked();
  return Lookup(kid, algorithm);
}

}  // namespace docgate
