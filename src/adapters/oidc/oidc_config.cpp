#include "adapters/oidc/oidc_config.h"

#include <stdexcept>

#include "adapters/web/web_url.h"
#include "core/config_check.h"

namespace docgate {

std::optional<RoleMap> ParseRoleMap(std::string_view text, std::string* problem) {
  RoleMap map;
  if (text.empty()) return map;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    const std::size_t equals = entry.rfind('=');
    if (equals == std::string_view::npos || equals == 0) {
      *problem = "each entry must be group=role, got \"" + std::string(entry) + "\"";
      return std::nullopt;
    }
    const std::string_view role = entry.substr(equals + 1);
    if (role != "author" && role != "reviewer" && role != "admin") {
      *problem = "the role of \"" + std::string(entry) + "\" must be author, reviewer or admin";
      return std::nullopt;
    }
    map.entries.emplace_back(entry.substr(0, equals), role);
    if (comma == std::string_view::npos) return map;
    text.remove_prefix(comma + 1);
  }
}

namespace {

bool HasOpenIdScope(std::string_view scopes) {
  while (!scopes.empty()) {
    const std::size_t space = scopes.find(' ');
    if (scopes.substr(0, space) == "openid") return true;
    scopes = space == std::string_view::npos ? std::string_view() : scopes.substr(space + 1);
  }
  return false;
}

}  // namespace

std::optional<std::string> ValidateOidcConfig(const OidcConfig& config) {
  if (auto problem = ConfigCheck()
                         .Positive("DOCGATE_OIDC_TIMEOUT_MS", config.timeout)
                         .Positive("DOCGATE_OIDC_KEYS_REFRESH_MS", config.keys_refresh)
                         .Problem()) {
    return problem;
  }
  if (config.issuer.empty()) {
    const bool others = !config.client_id.empty() || !config.audience.empty() ||
                        !config.role_map.empty() || !config.ca_file.empty() ||
                        !config.client_secret.empty();
    if (others) {
      return std::string(
          "DOCGATE_OIDC_CLIENT_ID, _CLIENT_SECRET, _AUDIENCE, _ROLE_MAP and _CA_FILE need "
          "DOCGATE_OIDC_ISSUER");
    }
    return std::nullopt;
  }
  try {
    const WebUrl url = ParseWebUrl(config.issuer, "nothing: the issuer needs none");
    if (!url.tls && !IsLoopbackHost(url.host)) {
      return "DOCGATE_OIDC_ISSUER is http:// to " + url.host +
             ", so its keys could be replaced on the way: use https:// (http:// only to this "
             "machine)";
    }
  } catch (const std::invalid_argument& e) {
    return std::string("DOCGATE_OIDC_ISSUER must be the issuer's https:// URL: ") + e.what();
  }
  std::string problem;
  if (!ParseRoleMap(config.role_map, &problem)) return "DOCGATE_OIDC_ROLE_MAP: " + problem;
  const std::string& claim = config.roles_claim;
  return ConfigCheck()
      .Require(!config.Audience().empty(),
               "DOCGATE_OIDC_ISSUER needs DOCGATE_OIDC_CLIENT_ID or DOCGATE_OIDC_AUDIENCE: the "
               "value tokens' `aud` must contain")
      .Require(!claim.empty() && !claim.starts_with('.') && !claim.ends_with('.') &&
                   claim.find("..") == std::string::npos,
               "DOCGATE_OIDC_ROLES_CLAIM must be a claim name or a dotted path of them")
      .Require(HasOpenIdScope(config.scopes),
               "DOCGATE_OIDC_SCOPES must hold `openid` (space-separated scopes): without it the "
               "issuer answers a sign-in with no ID token")
      .Problem();
}

}  // namespace docgate
