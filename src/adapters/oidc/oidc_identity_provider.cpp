#include "adapters/oidc/oidc_identity_provider.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/base64url.h"
#include "core/compact_jws.h"
#include "core/utf8.h"

namespace docgate {
namespace {

using nlohmann::json;

Error Unauthenticated(std::string detail) {
  return MakeError(ErrorCode::kUnauthenticated, std::move(detail));
}

struct CompactJws {
  std::string_view signing_input;  // header.payload, as sent
  std::string header;
  std::string payload;
  std::string signature;
};

std::optional<CompactJws> SplitJws(std::string_view token) {
  const std::optional<JwsParts> parts = SplitCompactJws(token);
  if (!parts) return std::nullopt;
  auto header = DecodeBase64Url(parts->header);
  auto payload = DecodeBase64Url(parts->payload);
  auto signature = DecodeBase64Url(parts->signature);
  if (!header || !payload || !signature) return std::nullopt;
  return CompactJws{parts->signing_input, std::move(*header), std::move(*payload),
                    std::move(*signature)};
}

// A NumericDate in seconds; nullopt when absent; an error text when not a number.
std::optional<double> Seconds(const json& claims, const char* name, bool* malformed) {
  const auto it = claims.find(name);
  if (it == claims.end()) return std::nullopt;
  if (!it->is_number()) {
    *malformed = true;
    return std::nullopt;
  }
  return it->get<double>();
}

// The values at a dotted path of the claims: a list of strings or one space-separated string.
std::vector<std::string> ClaimValues(const json& claims, std::string_view path) {
  const json* node = &claims;
  while (!path.empty()) {
    const std::size_t dot = path.find('.');
    const std::string name(path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (!node->is_object()) return {};
    const auto it = node->find(name);
    if (it == node->end()) return {};
    node = &*it;
  }
  std::vector<std::string> values;
  if (node->is_array()) {
    for (const json& value : *node) {
      if (value.is_string()) values.push_back(value.get<std::string>());
    }
  } else if (node->is_string()) {
    std::string_view text = node->get_ref<const std::string&>();
    while (!text.empty()) {
      const std::size_t space = text.find(' ');
      if (space != 0) values.emplace_back(text.substr(0, space));
      text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    }
  }
  return values;
}

void GrantRole(Actor& actor, std::string_view role) {
  if (role == "author") actor.is_author = true;
  if (role == "reviewer") actor.is_reviewer = true;
  if (role == "admin") actor.is_admin = true;
}

}  // namespace

OidcIdentityProvider::OidcIdentityProvider(OidcConfig config, Clock& clock, FetchDocument fetch)
    : config_(std::move(config)), clock_(clock) {
  std::string problem;
  auto map = ParseRoleMap(config_.role_map, &problem);
  if (!map) throw std::invalid_argument("DOCGATE_OIDC_ROLE_MAP: " + problem);
  role_map_ = std::move(*map);
  keys_ =
      std::make_unique<OidcKeySet>(config_.issuer, std::move(fetch), clock_, config_.keys_refresh);
}

OidcIdentityProvider::~OidcIdentityProvider() {
  {
    std::lock_guard lock(refresher_mutex_);
    stopping_ = true;
  }
  refresher_wake_.notify_all();
  if (refresher_.joinable()) refresher_.join();
}

void OidcIdentityProvider::Start() { keys_->Refresh(); }

void OidcIdentityProvider::StartRefresher() {
  refresher_ = std::thread([this] {
    std::unique_lock lock(refresher_mutex_);
    while (!stopping_) {
      const auto period =
          keys_->healthy() ? std::chrono::duration_cast<std::chrono::milliseconds>(kOidcKeysMaxAge)
                           : config_.keys_refresh;
      if (refresher_wake_.wait_for(lock, period, [this] { return stopping_; })) break;
      lock.unlock();
      keys_->Refresh();
      lock.lock();
    }
  });
}

std::string OidcIdentityProvider::State() const { return keys_->healthy() ? "ok" : "degraded"; }

Result<Actor> OidcIdentityProvider::Verify(std::string_view token) const {
  return VerifyFor(token, config_.Audience(), nullptr);
}

Result<Actor> OidcIdentityProvider::VerifyIdToken(std::string_view token,
                                                  std::string_view nonce) const {
  return VerifyFor(token, config_.client_id, &nonce);
}

Result<Actor> OidcIdentityProvider::VerifyFor(std::string_view token, const std::string& audience,
                                              const std::string_view* nonce) const {
  const std::optional<CompactJws> jws = SplitJws(token);
  if (!jws) return Unauthenticated("malformed bearer token");
  const json header = json::parse(jws->header, nullptr, /*allow_exceptions=*/false);
  if (!header.is_object()) return Unauthenticated("malformed bearer token");
  const auto alg = header.find("alg");
  if (alg == header.end() || (*alg != "RS256" && *alg != "ES256")) {
    return Unauthenticated("bearer token must be signed with RS256 or ES256");
  }
  std::string kid;
  if (const auto it = header.find("kid"); it != header.end()) {
    if (!it->is_string()) return Unauthenticated("the token's `kid` is not a string");
    kid = it->get<std::string>();
  }
  const std::string& algorithm = alg->get_ref<const std::string&>();
  const std::optional<JsonWebKey> key = keys_->Find(kid, algorithm);
  if (!key) {
    return Unauthenticated("bearer token is signed with a key " + config_.issuer +
                           " does not publish");
  }
  if (key->algorithm() != algorithm) {
    return Unauthenticated("bearer token names " + algorithm + " for a " + key->algorithm() +
                           " key");
  }
  if (!key->Verifies(jws->signing_input, jws->signature)) {
    return Unauthenticated("malformed or badly signed bearer token");
  }
  return ActorFromClaims(jws->payload, audience, nonce);
}

Result<Actor> OidcIdentityProvider::ActorFromClaims(std::string_view payload,
                                                    const std::string& audience,
                                                    const std::string_view* nonce) const {
  const json claims = json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!claims.is_object()) return Unauthenticated("token claims are not a JSON object");
  const auto iss = claims.find("iss");
  if (iss == claims.end() || *iss != config_.issuer) {
    return Unauthenticated("bearer token is not from " + config_.issuer);
  }
  const auto aud = claims.find("aud");
  bool for_us = false;
  if (aud != claims.end() && aud->is_string()) for_us = *aud == audience;
  if (aud != claims.end() && aud->is_array()) {
    for (const json& value : *aud) for_us = for_us || value == audience;
  }
  if (!for_us) return Unauthenticated("bearer token's `aud` does not name " + audience);
  if (nonce != nullptr) {
    const auto said = claims.find("nonce");
    if (said == claims.end() || !said->is_string() || *said != *nonce) {
      return Unauthenticated("the ID token's `nonce` is not the one this sign-in sent");
    }
  }

  bool malformed = false;
  const auto exp = Seconds(claims, "exp", &malformed);
  const auto nbf = Seconds(claims, "nbf", &malformed);
  if (malformed) return Unauthenticated("token `exp` or `nbf` is not a number");
  if (!exp) return Unauthenticated("bearer token has no `exp`");
  const double now = std::chrono::duration<double>(clock_.Now().time_since_epoch()).count();
  const double leeway = static_cast<double>(kOidcLeeway.count());
  if (now >= *exp + leeway) return Unauthenticated("token has expired");
  if (nbf && now < *nbf - leeway) return Unauthenticated("token is not valid yet");

  Actor actor;
  const auto sub = claims.find("sub");
  if (sub == claims.end() || !sub->is_string()) {
    return Unauthenticated("token `sub` must be a non-empty string");
  }
  if (auto problem = SubjectProblem(sub->get_ref<const std::string&>())) {
    return Unauthenticated(std::move(*problem));
  }
  actor.id = sub->get<std::string>();
  for (const char* name_claim : {"name", "preferred_username"}) {
    const auto name = claims.find(name_claim);
    if (name == claims.end() || !name->is_string()) continue;
    const std::string& text = name->get_ref<const std::string&>();
    if (!text.empty() && IsPrintableText(text)) {
      actor.name = text;
      break;
    }
  }
  for (const std::string& value : ClaimValues(claims, config_.roles_claim)) {
    if (role_map_.entries.empty()) GrantRole(actor, value);
    for (const auto& [group, role] : role_map_.entries) {
      if (group == value) GrantRole(actor, role);
    }
  }
  return actor;
}

}  // namespace docgate
