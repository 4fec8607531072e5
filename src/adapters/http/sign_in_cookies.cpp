#include "adapters/http/sign_in_cookies.h"

#include <nlohmann/json.hpp>

#include "adapters/http/request_params.h"
#include "core/base64url.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;
using nlohmann::json;

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::int64_t Millis(TimePoint at) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
}

}  // namespace

std::optional<std::string> CookieValue(const HttpRequestHeader& header, std::string_view name) {
  const auto [first, last] = header.equal_range(http::field::cookie);
  for (auto field = first; field != last; ++field) {
    std::string_view rest = View(field->value());
    while (!rest.empty()) {
      const std::size_t end = rest.find(';');
      const std::string_view pair = Trimmed(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
      const std::size_t equals = pair.find('=');
      if (equals == std::string_view::npos || Trimmed(pair.substr(0, equals)) != name) continue;
      std::string_view value = Trimmed(pair.substr(equals + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      return std::string(value);
    }
  }
  return std::nullopt;
}

std::string SetCookie(std::string_view name, std::string_view value, const CookieAttributes& at) {
  std::string cookie;
  cookie.append(name).append("=").append(value).append("; Path=").append(at.path);
  if (at.max_age) cookie += "; Max-Age=" + std::to_string(at.max_age->count());
  cookie += "; HttpOnly; SameSite=Lax";
  if (at.secure) cookie += "; Secure";
  return cookie;
}

bool CsrfMatches(const HttpRequestHeader& header, const SessionRecord& session,
                 const ConsoleSessions& sessions) {
  const auto field = header.find(kCsrfHeader);
  return field != header.end() && sessions.CarriesCsrf(session, View(field->value()));
}

std::string CsrfRefusal() {
  return "a request signed in by the console's session must carry its X-Docgate-CSRF token "
         "(GET /auth/session answers it)";
}

std::string LoginStateKey(const Digest& digest, std::string_view jwt_secret) {
  return digest.HmacSha256(jwt_secret, "docgate console login state, v1");
}

std::string SealLoginState(const LoginState& login, std::string_view key, const Digest& digest) {
  const std::string payload = EncodeBase64Url(json{
      {"s", login.state},
      {"n", login.nonce},
      {"v", login.code_verifier},
      {"e", Millis(login.expires_at)}}.dump());
  return payload + "." + EncodeBase64Url(digest.HmacSha256(key, payload));
}

std::optional<LoginState> OpenLoginState(std::string_view sealed, std::string_view key,
                                         TimePoint now, const Digest& digest) {
  const std::size_t dot = sealed.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view payload = sealed.substr(0, dot);
  const std::optional<std::string> mac = DecodeBase64Url(sealed.substr(dot + 1));
  if (!mac || !digest.SameSecret(*mac, digest.HmacSha256(key, payload))) return std::nullopt;
  const std::optional<std::string> text = DecodeBase64Url(payload);
  if (!text) return std::nullopt;
  const json fields = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!fields.is_object()) return std::nullopt;
  const auto s = fields.find("s");
  const auto n = fields.find("n");
  const auto v = fields.find("v");
  const auto e = fields.find("e");
  if (s == fields.end() || !s->is_string() || n == fields.end() || !n->is_string() ||
      v == fields.end() || !v->is_string() || e == fields.end() || !e->is_number_integer()) {
    return std::nullopt;
  }
  LoginState login{s->get<std::string>(), n->get<std::string>(), v->get<std::string>(),
                   TimePoint(std::chrono::milliseconds(e->get<std::int64_t>()))};
  if (login.expires_at <= now) return std::nullopt;
  return login;
}

}  // namespace docgate
