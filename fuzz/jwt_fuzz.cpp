// Invariant: JwtVerifier::Authenticate (adapters/http/jwt_auth.h) never throws and answers only
// OK or UNAUTHENTICATED. It answers OK only for a token signed with HS256 and the verifier's
// secret (checked here with OpenSSL's HMAC, independently of libjwt) whose claims docgate
// accepts: a `sub` of 1..255 bytes of printable UTF-8, a printable `name`, `exp` in the future and
// `nbf` in the past when present, and the actor it answers is what those claims say. A token with
// any claims signed with another secret is refused. A token SignHs256Token signs with the right
// secret round-trips: it is accepted, with the same subject, name and roles, unless it has
// expired.
// The input's first byte picks the check: a raw Authorization header; a header and claims (JSON
// text, split at the first '\n') signed with the right secret; or TokenClaims for SignHs256Token.

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/jwt_auth.h"
#include "core/utf8.h"
#include "e2e/token_forge.h"
#include "fakes/fake_clock.h"
#include "fuzz_support.h"

namespace {

using docgate::Actor;
using docgate::ErrorCode;
using docgate::Result;
using docgate::fuzz::AsText;
using docgate::fuzz::ByteReader;
using nlohmann::json;

constexpr std::string_view kSecret = "fuzz-secret-0123456789abcdef";

std::string Signature(std::string_view input, std::string_view secret) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &length);
  return docgate::e2e::Base64Url(std::string(reinterpret_cast<char*>(mac), length));
}

std::string Signed(std::string_view header, std::string_view claims, std::string_view secret) {
  const std::string input = docgate::e2e::SigningInput(std::string(header), std::string(claims));
  return input + "." + Signature(input, secret);
}

docgate::FakeClock& Clock() {
  static docgate::FakeClock clock;
  return clock;
}

const docgate::JwtVerifier& Verifier() {
  static const docgate::JwtVerifier verifier({std::string(kSecret)}, Clock());
  return verifier;
}

std::int64_t NowMs() { return Clock().Now().time_since_epoch().count(); }

void CheckOutcome(const Result<Actor>& actor) {
  if (!actor) FUZZ_CHECK(actor.error().code == ErrorCode::kUnauthenticated);
  if (actor) FUZZ_CHECK(!docgate::SubjectProblem(actor->id).has_value(), actor->id);
}

// The token of an Authorization value as Authenticate reads it, when the scheme is Bearer.
std::optional<std::string_view> BearerToken(std::string_view authorization) {
  const auto space = authorization.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto token = authorization.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}

void CheckRawHeader(std::string_view authorization) {
  const auto actor = Verifier().Authenticate(authorization);
  CheckOutcome(actor);
  if (!actor) return;
  // Accepted: signed with our secret, over what precedes the signature.
  const auto token = BearerToken(authorization);
  FUZZ_CHECK(token.has_value());
  const auto first_dot = token->find('.');
  FUZZ_CHECK(first_dot != std::string_view::npos);
  const auto second_dot = token->find('.', first_dot + 1);
  FUZZ_CHECK(second_dot != std::string_view::npos);
  FUZZ_CHECK(token->substr(second_dot + 1) == Signature(token->substr(0, second_dot), kSecret),
             *token);
}

// The NumericDate of `claims[name]` in whole milliseconds (NaN when not a number), as the
// verifier reads it; nullopt if absent.
std::optional<double> DateMs(const json& claims, const char* name) {
  const auto it = claims.find(name);
  if (it == claims.end()) return std::nullopt;
  return it->is_number() ? std::trunc(it->get<double>() * 1000.0) : std::nan("");
}

void CheckSignedClaims(std::string_view text) {
  const auto [header, rest] = docgate::fuzz::SplitOnce(text, "\n");
  const std::string_view claims = rest.value_or("");
  const auto forged = Verifier().Authenticate("Bearer " + Signed(header, claims, "wrong secret"));
  FUZZ_CHECK(!forged && forged.error().code == ErrorCode::kUnauthenticated);

  const auto actor = Verifier().Authenticate("Bearer " + Signed(header, claims, kSecret));
  CheckOutcome(actor);
  if (!actor) return;
  // libjwt reads `alg` case-insensitively ("hs256"); the signature is HS256 with our secret
  // either way, which is what makes the token ours.
  const json parsed_header = json::parse(header, nullptr, false);
  FUZZ_CHECK(parsed_header.is_object() && parsed_header.contains("alg") &&
                 parsed_header["alg"].is_string(),
             header);
  std::string alg = parsed_header["alg"].get<std::string>();
  for (char& c : alg) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  FUZZ_CHECK(alg == "HS256", header);
  const json parsed = json::parse(claims, nullptr, false);
  FUZZ_CHECK(parsed.is_object(), claims);
  FUZZ_CHECK(parsed.value("sub", json()) == actor->id, claims);
  const auto name = parsed.find("name");
  FUZZ_CHECK((name == parsed.end() || name->is_null()) ? actor->name.empty()
                                                       : *name == actor->name);
  FUZZ_CHECK(actor->name.empty() || docgate::IsPrintableText(actor->name));
  const double now = static_cast<double>(NowMs());
  if (const auto exp = DateMs(parsed, "exp")) FUZZ_CHECK(now < *exp, claims);
  if (const auto nbf = DateMs(parsed, "nbf")) FUZZ_CHECK(now >= *nbf, claims);
  bool author = false, reviewer = false, admin = false;
  if (const auto roles = parsed.find("roles"); roles != parsed.end()) {
    FUZZ_CHECK(roles->is_array());
    for (const json& role : *roles) {
      FUZZ_CHECK(role.is_string());
      author = author || role == "author";
      reviewer = reviewer || role == "reviewer";
      admin = admin || role == "admin";
    }
  }
  FUZZ_CHECK(actor->is_author == author && actor->is_reviewer == reviewer &&
             actor->is_admin == admin);
}

void CheckSignedToken(ByteReader input) {
  const std::uint8_t flags = input.Byte();
  const auto ttl = static_cast<std::int16_t>(input.Word());
  const auto lines = docgate::fuzz::Split(input.Rest(), "\n");
  docgate::TokenClaims claims;
  claims.subject = std::string(lines[0]);
  std::size_t next = 1;
  if ((flags & 1) && next < lines.size()) claims.name = std::string(lines[next++]);
  for (; next < lines.size(); ++next) claims.roles.emplace_back(lines[next]);
  const docgate::TimePoint now = Clock().Now();
  if (flags & 2) claims.expires_at = now + std::chrono::seconds(ttl);

  std::string token;
  try {
    token = docgate::SignHs256Token(kSecret, claims, now);
  } catch (const std::invalid_argument&) {
    return;
  } catch (const std::runtime_error&) {
    return;
  }
  const auto actor = Verifier().Authenticate("Bearer " + token);
  CheckOutcome(actor);
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  const bool expired =
      claims.expires_at &&
      NowMs() >= duration_cast<seconds>(claims.expires_at->time_since_epoch()).count() * 1000;
  const bool acceptable = !docgate::SubjectProblem(claims.subject) &&
                          (!claims.name || docgate::IsPrintableText(*claims.name));
  FUZZ_CHECK(actor.ok() == (acceptable && !expired), token);
  if (!actor) return;
  FUZZ_CHECK(actor->id == claims.subject);
  FUZZ_CHECK(actor->name == claims.name.value_or(""));
  const auto has = [&](const char* role) {
    return std::find(claims.roles.begin(), claims.roles.end(), role) != claims.roles.end();
  };
  FUZZ_CHECK(actor->is_author == has("author") && actor->is_reviewer == has("reviewer") &&
             actor->is_admin == has("admin"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader input(AsText(data, size));
  const std::uint8_t selector = input.Byte();
  switch (selector % 3) {
    case 0:
      CheckRawHeader(input.Rest());
      break;
    case 1:
      CheckSignedClaims(input.Rest());
      break;
    default:
      CheckSignedToken(input);
      break;
  }
  return 0;
}
