#include "adapters/oidc/oidc_sign_in.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base64url.h"
#include "core/percent_encoding.h"

namespace docgate {
namespace {

using Params = std::vector<std::pair<std::string_view, std::string_view>>;

// name=value&... with both percent-encoded: a query string or a form body.
std::string Encoded(const Params& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += PercentEncoded(name);
    out += '=';
    out += PercentEncoded(value);
  }
  return out;
}

// `endpoint` with `params` added to its query (it may have one already).
std::string WithQuery(const std::string& endpoint, const Params& params) {
  return endpoint + (endpoint.find('?') == std::string::npos ? '?' : '&') + Encoded(params);
}

Error Unavailable(std::string detail) {
  return Error{ErrorCode::kUnavailable, std::move(detail), 5};
}

// What a token endpoint's refusal says (RFC 6749 section 5.2: `error`, `error_description`).
std::string RefusalText(const FormRefused& refused) {
  const auto body = nlohmann::json::parse(refused.body, nullptr, /*allow_exceptions=*/false);
  std::string said;
  for (const char* name : {"error", "error_description"}) {
    const auto it = body.is_object() ? body.find(name) : body.end();
    if (it != body.end() && it->is_string()) {
      said += (said.empty() ? "" : ": ") + it->get<std::string>();
    }
  }
  if (said.empty()) said = "its token endpoint answered " + std::to_string(refused.status);
  return "the identity provider refused the sign-in: " + said;
}

}  // namespace

OidcSignIn::OidcSignIn(OidcIdentityProvider& identity, PostForm post)
    : identity_(identity), post_(std::move(post)) {}

Result<OidcEndpoints> OidcSignIn::Endpoints(std::string_view which) {
  std::optional<OidcEndpoints> endpoints = identity_.keys().Endpoints();
  if (!endpoints) {
    return Unavailable("the identity provider " + identity_.config().issuer +
                       " cannot be reached, or names no " + std::string(which) + " endpoint");
  }
  return std::move(*endpoints);
}

Result<std::string> OidcSignIn::AuthorizationUrl(const SignInStart& start) {
  const Result<OidcEndpoints> endpoints = Endpoints("authorization");
  if (!endpoints) return endpoints.error();
  const OidcConfig& config = identity_.config();
  return WithQuery(endpoints->authorization, {{"response_type", "code"},
                                              {"client_id", config.client_id},
                                              {"redirect_uri", start.redirect_uri},
                                              {"scope", config.scopes},
                                              {"state", start.state},
                                              {"nonce", start.nonce},
                                              {"code_challenge", start.code_challenge},
                                              {"code_challenge_method", "S256"}});
}

Result<SignedIn> OidcSignIn::Redeem(const std::string& code, const std::string& code_verifier,
                                    const std::string& redirect_uri, const std::string& nonce) {
  const Result<OidcEndpoints> endpoints = Endpoints("token");
  if (!endpoints) return endpoints.error();
  const OidcConfig& config = identity_.config();
  Params form{{"grant_type", "authorization_code"},
              {"code", code},
              {"redirect_uri", redirect_uri},
              {"code_verifier", code_verifier}};
  std::string authorization;
  if (config.client_secret.empty()) {
    form.emplace_back("client_id", config.client_id);
  } else {
    // RFC 6749 section 2.3.1: the id and secret form-encoded, then as HTTP Basic credentials.
    const std::string credentials =
        PercentEncoded(config.client_id) + ":" + PercentEncoded(config.client_secret);
    authorization = "Basic " + EncodeBase64(credentials);
  }
  std::string answer;
  try {
    answer = post_(endpoints->token, Encoded(form), authorization);
  } catch (const FormRefused& refused) {
    return MakeError(ErrorCode::kUnauthenticated, RefusalText(refused));
  } catch (const std::exception& e) {
    spdlog::warn("identity: the token endpoint {} cannot be reached: {}", endpoints->token,
                 e.what());
    return Unavailable("the identity provider's token endpoint cannot be reached");
  }
  const auto body = nlohmann::json::parse(answer, nullptr, /*allow_exceptions=*/false);
  const auto id_token = body.is_object() ? body.find("id_token") : body.end();
  if (!body.is_object() || id_token == body.end() || !id_token->is_string()) {
    return MakeError(ErrorCode::kUnauthenticated,
                     "the identity provider answered the code without an ID token (is `openid` "
                     "in DOCGATE_OIDC_SCOPES?)");
  }
  Result<Actor> actor = identity_.VerifyIdToken(id_token->get_ref<const std::string&>(), nonce);
  if (!actor) return actor.error();
  return SignedIn{std::move(actor).value(), id_token->get<std::string>()};
}

std::optional<std::string> OidcSignIn::EndSessionUrl(const std::string& id_token_hint,
                                                     const std::string& post_logout_redirect_uri) {
  const std::optional<OidcEndpoints> endpoints = identity_.keys().Endpoints();
  if (!endpoints || endpoints->end_session.empty()) return std::nullopt;
  Params params;
  if (!id_token_hint.empty()) params.emplace_back("id_token_hint", id_token_hint);
  params.emplace_back("client_id", identity_.config().client_id);
  params.emplace_back("post_logout_redirect_uri", post_logout_redirect_uri);
  return WithQuery(endpoints->end_session, params);
}

}  // namespace docgate
