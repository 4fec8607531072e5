#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/oidc/json_web_key.h"
#include "app/ports/clock.h"

namespace docgate {

// GETs a JSON document at an absolute URL and returns its body; throws std::runtime_error
// saying why not (unreachable, a status other than 200, too large). The seam unit tests replace.
using FetchDocument = std::function<std::string(const std::string& url)>;

// POSTs `form` (application/x-www-form-urlencoded) to an absolute URL with `authorization` (a
// whole Authorization header value; "" for none) and returns the body of a 200. Throws
// FormRefused for another status (the body says why: OAuth's `error`), std::runtime_error when
// the server cannot be reached. The seam unit tests replace.
using PostForm = std::function<std::string(const std::string& url, const std::string& form,
                                           const std::string& authorization)>;

// The server answered a form with another status than 200.
class FormRefused : public std::runtime_error {
 public:
  FormRefused(int status, std::string body)
      : std::runtime_error("answered " + std::to_string(status)),
        status(status),
        body(std::move(body)) {}
  int status;
  std::string body;
};

// GETs over HTTP(S) with docgate's outbound client: certificates verified against `ca_file` (or
// the system's), `timeout` for the whole exchange, 1 MiB at most.
FetchDocument MakeWebFetcher(const std::string& ca_file, std::chrono::milliseconds timeout);
// POSTs the same way (the token endpoint), 1 MiB of answer at most.
PostForm MakeWebFormPoster(const std::string& ca_file, std::chrono::milliseconds timeout);

// The endpoints of an issuer's discovery document that a sign-in uses.
struct OidcEndpoints {
  std::string authorization;  // authorization_endpoint
  std::string token;          // token_endpoint
  std::string end_session;    // end_session_endpoint; "" when the issuer has none

  bool operator==(const OidcEndpoints&) const = default;
};

// The signing keys an issuer publishes: its discovery document
// (<issuer>/.well-known/openid-configuration, whose `issuer` must be the same string) names its
// `jwks_uri`. Thread-safe; `clock` must outlive it.
class OidcKeySet {
 public:
  OidcKeySet(std::string issuer, FetchDocument fetch, Clock& clock,
             std::chrono::milliseconds refresh_interval);

  // Fetches discovery and keys now (at start). False, having logged why, when that failed.
  bool Refresh();

  // The key named `kid` (or, for a token without `kid`, the only key of `algorithm`), refetching
  // the set first when it is not known and no fetch began within the refresh interval (so a
  // flood of tokens with made-up kids costs one fetch per interval). Fetches are serialised:
  // callers missing the same key wait for one fetch. nullopt when the issuer publishes no such
  // key.
  std::optional<JsonWebKey> Find(std::string_view kid, std::string_view algorithm);

  // The sign-in endpoints of the last discovery document that named them, fetching it first when
  // none has (at most once per refresh interval, like Find); nullopt without them.
  std::optional<OidcEndpoints> Endpoints();

  // Whether keys were fetched and the last fetch succeeded.
  bool healthy() const { return healthy_.load(); }
  // Fetches of the key set begun so far (discovery fetches not counted).
  std::uint64_t key_fetches() const { return key_fetches_.load(); }

 private:
  std::optional<JsonWebKey> Lookup(std::string_view kid, std::string_view algorithm) const;
  bool FetchLocked();

  const std::string issuer_;
  const FetchDocument fetch_;
  Clock& clock_;
  const std::chrono::milliseconds refresh_interval_;

  std::mutex fetch_mutex_;  // one fetch at a time; guards last_fetch_
  std::optional<TimePoint> last_fetch_;
  mutable std::shared_mutex keys_mutex_;
  std::vector<JsonWebKey> keys_;
  std::optional<OidcEndpoints> endpoints_;  // guarded by keys_mutex_
  std::atomic<bool> healthy_{false};
  std::atomic<std::uint64_t> key_fetches_{0};
};

}  // namespace docgate
