#include "adapters/oidc/oidc_sign_in.h"

#include <spdlog/spdlog.h>

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "core/base64url.h"
#include "core/percent_encoding.h"

namespace docgate {
namespace {

using Params = std::initializer_list<std::pair<const char*, const std::string*>>;

// name=value&... with both percent-encoded: a query string or a form body.
std::string Encoded(Params params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += PercentEncoded(name);
    out += '=';
    out += PercentEncoded(*value);
  }
  return out;
}

// `endpoint` with `params` added to its query (it may have one already).
std::string WithQuery(const std::string& endpoint, Params params) {
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

Result<std::string> OidcSignIn::AuthorizationUrl(const SignInStart& start) {
  const std::optional<OidcEndpoints> endpoints = identity_.keys().Endpoints();
  if (!endpoints) {
    return Unavailable("the identity provider " + identity_.config().issuer +
                       " cannot be reached, or names no authorization endpoint");
  }
  const OidcConfig& config = identity_.config();
  static const std::string kCode = "code";
  static const std::string kS256 = "S256";
  return WithQuery(endpoints->authorization, {{"response_type", &kCode},
                                              {"client_id", &config.client_id},
                                              {"redirect_uri", &start.redirect_uri},
                                              {"scope", &config.scopes},
                                              {"state", &start.state},
                                              {"nonce", &start.nonce},
                                              {"code_challenge", &start.code_challenge},
                                              {"code_challenge_method", &kS256}});
}

Result<SignedIn> OidcSignIn::Redeem(const std::string& code, const std::string& code_verifier,
                                    const std::string& redirect_uri, const std::string& nonce) {
  const std::optional<OidcEndpoints> endpoints = identity_.keys().Endpoints();
  if (!endpoints) {
    return Unavailable("the identity provider " + identity_.config().issuer +
                       " cannot be reached, or names no token endpoint");
  }
  const OidcConfig& config = identity_.config();
  static const std::string kGrant = "authorization_code";
  std::string form = Encoded({{"grant_type", &kGrant},
                              {"code", &code},
                              {"redirect_uri", &redirect_uri},
                              {"code_verifier", &code_verifier}});
  std::string authorization;
  if (config.client_secret.empty()) {
    form += "&" + Encoded({{"client_id", &config.client_id}});
  } else {
    // RFC 6749 section 2.3.1: the id and secret form-encoded, then as HTTP Basic credentials.
    const std::string credentials =
        PercentEncoded(config.client_id) + ":" + PercentEncoded(config.client_secret);
    authorization = "Basic " + EncodeBase64(credentials);
  }
  std::string answer;
  try {
    answer = post_(endpoints->token, form, authorization);
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
  const OidcConfig& config = identity_.config();
  if (id_token_hint.empty()) {
    return WithQuery(endpoints->end_session,
                     {{"client_id", &config.client_id},
                      {"post_logout_redirect_uri", &post_logout_redirect_uri}});
  }
  return WithQuery(endpoints->end_session,
                   {{"id_token_hint", &id_token_hint},
                    {"client_id", &config.client_id},
                    {"post_logout_redirect_uri", &post_logout_redirect_uri}});
}

}  // namespace docgate
