#include "adapters/http/jwt_auth.h"

#include <jwt.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/base64url.h"
#include "core/compact_jws.h"
#include "core/utf8.h"

namespace docgate {
namespace {

using nlohmann::json;

struct JwtFree {
  void operator()(jwt_t* jwt) const { jwt_free(jwt); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtFree>;

struct CharFree {
  void operator()(char* text) const { std::free(text); }
};
using CString = std::unique_ptr<char, CharFree>;

// Bounds what reaches libjwt; the request header limit bounds it anyway.
constexpr std::size_t kMaxTokenBytes = 8192;

Error Unauthenticated(std::string detail) {
  return MakeError(ErrorCode::kUnauthenticated, std::move(detail));
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// A NumericDate claim in milliseconds; nullopt when not a number.
std::optional<std::int64_t> NumericDateMs(const json& value) {
  if (!value.is_number()) return std::nullopt;
  const double seconds = value.get<double>();
  if (!(seconds > -1e15 && seconds < 1e15)) return std::nullopt;
  return static_cast<std::int64_t>(seconds * 1000.0);
}

// The `alg` of a compact JWS's header; nullopt unless the token is three base64url parts whose
// first is a JSON object naming a string `alg`.
std::optional<std::string> HeaderAlgorithm(std::string_view token) {
  const std::optional<JwsParts> parts = SplitCompactJws(token);
  if (!parts) return std::nullopt;
  const std::optional<std::string> header = DecodeBase64Url(parts->header);
  if (!header) return std::nullopt;
  const json parsed = json::parse(*header, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return std::nullopt;
  const auto alg = parsed.find("alg");
  if (alg == parsed.end() || !alg->is_string()) return std::nullopt;
  return alg->get<std::string>();
}

Result<Actor> ActorFromClaims(const json& claims, TimePoint now) {
  if (!claims.is_object()) return Unauthenticated("token claims are not a JSON object");
  const auto now_ms = now.time_since_epoch().count();
  if (const auto exp = claims.find("exp"); exp != claims.end()) {
    const auto at = NumericDateMs(*exp);
    if (!at) return Unauthenticated("token `exp` is not a number");
    if (now_ms >= *at) return Unauthenticated("token has expired");
  }
  if (const auto nbf = claims.find("nbf"); nbf != claims.end()) {
    const auto at = NumericDateMs(*nbf);
    if (!at) return Unauthenticated("token `nbf` is not a number");
    if (now_ms < *at) return Unauthenticated("token is not valid yet");
  }
  Actor actor;
  const auto sub = claims.find("sub");
  if (sub == claims.end() || !sub->is_string()) {
    return Unauthenticated("token `sub` must be a non-empty string");
  }
  if (auto problem = SubjectProblem(sub->get_ref<const std::string&>())) {
    return Unauthenticated(std::move(*problem));
  }
  actor.id = sub->get<std::string>();
  if (const auto name = claims.find("name"); name != claims.end() && !name->is_null()) {
    if (!name->is_string() || !IsPrintableText(name->get_ref<const std::string&>())) {
      return Unauthenticated("token `name` must be a string without control characters");
    }
    actor.name = name->get<std::string>();
  }
  if (const auto roles = claims.find("roles"); roles != claims.end()) {
    if (!roles->is_array()) return Unauthenticated("token `roles` must be an array of strings");
    for (const auto& role : *roles) {
      if (!role.is_string()) return Unauthenticated("token `roles` must be an array of strings");
      const auto& text = role.get_ref<const std::string&>();
      if (text == "author") actor.is_author = true;
      if (text == "reviewer") actor.is_reviewer = true;
      if (text == "admin") actor.is_admin = true;
    }
  }
  return actor;
}

}  // namespace

std::string SignHs256Token(std::string_view secret, const TokenClaims& claims,
                           TimePoint issued_at) {
  if (secret.empty()) throw std::invalid_argument("the JWT secret is empty");
  // A token the verifier would refuse is worth nothing; and text that is not UTF-8 cannot even be
  // written as JSON (nlohmann would throw its own type_error).
  if (auto problem = SubjectProblem(claims.subject)) throw std::invalid_argument(*problem);
  if (claims.name && !IsPrintableText(*claims.name)) {
    throw std::invalid_argument("token `name` must be UTF-8 without control characters");
  }
  for (const std::string& role : claims.roles) {
    if (!IsStorableText(role)) {
      throw std::invalid_argument("token `roles` must be UTF-8 strings without U+0000");
    }
  }
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  json payload{{"sub", claims.subject},
               {"roles", claims.roles},
               {"iat", duration_cast<seconds>(issued_at.time_since_epoch()).count()}};
  if (claims.name) payload["name"] = *claims.name;
  if (claims.expires_at) {
    payload["exp"] = duration_cast<seconds>(claims.expires_at->time_since_epoch()).count();
  }
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) throw std::runtime_error("jwt_new failed");
  JwtPtr jwt(raw);
  const std::string payload_text = payload.dump();
  if (jwt_add_grants_json(jwt.get(), payload_text.c_str()) != 0 ||
      jwt_set_alg(jwt.get(), JWT_ALG_HS256, reinterpret_cast<const unsigned char*>(secret.data()),
                  static_cast<int>(secret.size())) != 0) {
    throw std::runtime_error("cannot build the JWT");
  }
  CString token(jwt_encode_str(jwt.get()));
  if (!token) throw std::runtime_error("jwt_encode_str failed");
  std::string text = token.get();
  if (text.size() > kMaxTokenBytes) {
    throw std::invalid_argument("the token would be " + std::to_string(text.size()) +
                                " bytes, above the " + std::to_string(kMaxTokenBytes) +
                                " a bearer token may have");
  }
  return text;
}

std::optional<std::vector<std::string>> SplitJwtSecrets(std::string_view list) {
  std::vector<std::string> secrets;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view piece = list.substr(0, comma);
    if (piece.empty()) return std::nullopt;
    secrets.emplace_back(piece);
    if (comma == std::string_view::npos) return secrets;
    list.remove_prefix(comma + 1);
  }
}

JwtVerifier::JwtVerifier(std::vector<std::string> secrets, Clock& clock,
                         const IdentityProvider* provider)
    : secrets_(std::move(secrets)), clock_(clock), provider_(provider) {
  if (secrets_.empty()) throw std::invalid_argument("no JWT secret");
  for (const std::string& secret : secrets_) {
    if (secret.empty()) throw std::invalid_argument("the JWT secret is empty");
  }
}

Result<Actor> JwtVerifier::Authenticate(std::string_view authorization) const {
  if (authorization.empty()) return Unauthenticated("missing Authorization: Bearer token");
  const auto space = authorization.find(' ');
  if (space == std::string_view::npos || !IEquals(authorization.substr(0, space), "Bearer")) {
    return Unauthenticated("the Authorization scheme must be Bearer");
  }
  auto token = authorization.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return Unauthenticated("empty bearer token");
  return Verify(std::string(token));
}

Result<Actor> JwtVerifier::Verify(const std::string& token) const {
  if (token.size() > kMaxTokenBytes) return Unauthenticated("bearer token too long");
  const std::optional<std::string> algorithm = HeaderAlgorithm(token);
  if (!algorithm) return Unauthenticated("malformed bearer token");
  if (*algorithm == "HS256") return VerifyHs256(token);
  if (*algorithm == "RS256" || *algorithm == "ES256") {
    if (provider_ == nullptr) {
      return Unauthenticated("bearer token is signed with " + *algorithm +
                             ", which only an OpenID issuer's tokens are, and "
                             "DOCGATE_OIDC_ISSUER is unset");
    }
    return provider_->Verify(token);
  }
  return Unauthenticated("bearer token must be signed with HS256, RS256 or ES256");
}

Result<Actor> JwtVerifier::VerifyHs256(const std::string& token) const {
  // libjwt reads a C string: an embedded NUL would truncate what it verifies.
  if (token.find('\0') != std::string::npos) return Unauthenticated("malformed bearer token");
  for (const std::string& secret : secrets_) {
    jwt_t* raw = nullptr;
    const int rc =
        jwt_decode(&raw, token.c_str(), reinterpret_cast<const unsigned char*>(secret.data()),
                   static_cast<int>(secret.size()));
    JwtPtr jwt(raw);
    if (rc != 0 || !jwt) continue;
    // Checked again after libjwt: only HS256 signed with one of our secrets is ours.
    if (jwt_get_alg(jwt.get()) != JWT_ALG_HS256) break;
    CString claims_text(jwt_get_grants_json(jwt.get(), nullptr));
    if (!claims_text) return Unauthenticated("bearer token has no claims");
    json claims = json::parse(claims_text.get(), nullptr, /*allow_exceptions=*/false);
    if (claims.is_discarded()) return Unauthenticated("bearer token claims are not JSON");
    return ActorFromClaims(claims, clock_.Now());
  }
  return Unauthenticated("malformed or badly signed bearer token");
}

}  // namespace docgate
