#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docgate {

// A company's OpenID Connect issuer, whose RS256/ES256 tokens docgate accepts as bearer tokens.
struct OidcConfig {
  std::string issuer;     // empty: no issuer; HS256 tokens only
  std::string client_id;  // docgate's client at the issuer
  std::string audience;   // what `aud` must contain; empty: client_id
  // The console's sign-in: the client's secret at the token endpoint (client_secret_basic); empty
  // for a public client (PKCE alone).
  std::string client_secret;
  std::string scopes = "openid profile";  // asked for at sign-in; must hold `openid`
  // Where the caller's groups are: a claim name, or a dotted path into nested objects (Keycloak's
  // `realm_access.roles`); a list of strings or one space-separated string.
  std::string roles_claim = "roles";
  // `group=role,...`: which groups give which docgate role (author, reviewer, admin); several
  // groups may give one role. Empty: the claim's values that are docgate roles count as such.
  std::string role_map;
  std::string ca_file;  // PEM trust anchors for an https:// issuer; empty: the system's
  std::chrono::milliseconds timeout{5000};  // one fetch of discovery or keys, connect included
  // An unknown `kid` refetches the issuer's keys at most once per this interval.
  std::chrono::milliseconds keys_refresh{30000};

  const std::string& Audience() const { return audience.empty() ? client_id : audience; }
};

// DOCGATE_OIDC_ROLE_MAP as (group, role) pairs; nullopt with the reason when malformed (an entry
// without '=', an empty group, a role other than author, reviewer, admin).
struct RoleMap {
  std::vector<std::pair<std::string, std::string>> entries;
};
std::optional<RoleMap> ParseRoleMap(std::string_view text, std::string* problem);

// Why `config` cannot be used, in one line naming the variable, or nullopt: an issuer that is an
// https:// URL (http:// only to this machine), an audience or client id with it, a well-formed
// role map and roles claim, positive timeouts; the other OIDC variables without an issuer are an
// error too (they would do nothing).
std::optional<std::string> ValidateOidcConfig(const OidcConfig& config);

}  // namespace docgate
