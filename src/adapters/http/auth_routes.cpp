#include "adapters/http/auth_routes.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <utility>

#include "adapters/http/error_mapper.h"
#include "adapters/http/request_params.h"
#include "adapters/http/responses.h"
#include "adapters/http/sign_in_cookies.h"
#include "core/base64url.h"
#include "core/percent_encoding.h"
#include "core/query_string.h"
#include "core/time_format.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;
using nlohmann::json;

// A callback's query, each name's first value percent-decoded ('+' a space). Lenient: providers
// add parameters of their own (`iss`, `session_state`, `scope`).
std::map<std::string, std::string, std::less<>> CallbackQuery(std::string_view target) {
  std::map<std::string, std::string, std::less<>> values;
  for (const QueryPair& pair : SplitQuery(TargetQuery(target))) {
    std::string value(pair.value.value_or(""));
    for (char& c : value) {
      if (c == '+') c = ' ';
    }
    values.emplace(PercentDecoded(pair.name), PercentDecoded(value));
  }
  return values;
}

std::chrono::seconds SecondsUntil(TimePoint at, TimePoint now) {
  return std::max(std::chrono::seconds(0), std::chrono::ceil<std::chrono::seconds>(at - now));
}

json UserOf(const SessionRecord& session) {
  return {{"id", session.user_id},
          {"name", session.user_name ? json(*session.user_name) : json(nullptr)},
          {"roles", session.roles}};
}

HttpResponse NoStore(HttpResponse response) {
  response.set(http::field::cache_control, "no-store");
  return response;
}

// Cache-Control: no-store comes with every answer of these routes (AddTo).
HttpResponse Redirect(HttpStatus status, const std::string& location) {
  HttpResponse response{status, 11};
  response.set(http::field::location, location);
  return response;
}

Error Forbidden(std::string detail) { return MakeError(ErrorCode::kForbidden, std::move(detail)); }

}  // namespace

AuthRoutes::AuthRoutes(ConsoleSignIn sign_in, UserNames& users)
    : config_(std::move(sign_in)), users_(users) {
  if (config_.provider != nullptr &&
      (config_.sessions == nullptr || config_.random == nullptr || config_.clock == nullptr)) {
    throw std::invalid_argument("console sign-in needs sessions, randomness and a clock");
  }
  while (config_.public_url.ends_with('/')) config_.public_url.pop_back();
  if (const std::size_t scheme = config_.public_url.find("://"); scheme != std::string::npos) {
    if (const std::size_t path = config_.public_url.find('/', scheme + 3);
        path != std::string::npos) {
      base_path_ = config_.public_url.substr(path);
    }
  }
}

void AuthRoutes::AddTo(Router& router) const {
  using V = HttpVerb;
  const auto answer = [this](Result<HttpResponse> (AuthRoutes::*handler)(const RouteContext&)
                                 const) -> RouteHandler {
    return [this, handler](const RouteContext& ctx) {
      Result<HttpResponse> response = (this->*handler)(ctx);
      return NoStore(response ? std::move(response).value() : ProblemResponse(response.error()));
    };
  };
  router.Add(V::get, "/auth/login", answer(&AuthRoutes::Login));
  router.Add(V::get, "/auth/callback", answer(&AuthRoutes::Callback));
  router.Add(V::get, "/auth/session", [this](const RouteContext& ctx) { return Session(ctx); });
  router.Add(V::post, "/auth/logout", answer(&AuthRoutes::Logout));
  router.Add(V::post, "/auth/switch", answer(&AuthRoutes::Switch));
  router.Add(V::delete_, "/auth/switch", answer(&AuthRoutes::DropSwitch));
}

Status AuthRoutes::RequireEnabled() const {
  if (enabled()) return Ok{};
  return MakeError(ErrorCode::kNotFound,
                   "console sign-in is not configured: it needs DOCGATE_OIDC_ISSUER, "
                   "DOCGATE_OIDC_CLIENT_ID and DOCGATE_PUBLIC_URL");
}

void AuthRoutes::Put(HttpResponse& response, std::string_view name, std::string_view value,
                     std::string_view under, std::chrono::seconds max_age) const {
  response.insert(http::field::set_cookie,
                  SetCookie(name, value, {base_path_ + std::string(under), max_age, secure()}));
}

void AuthRoutes::PutSession(HttpResponse& response, std::string_view id,
                            TimePoint expires_at) const {
  Put(response, kSessionCookie, id, "/", SecondsUntil(expires_at, config_.clock->Now()));
}

void AuthRoutes::Drop(HttpResponse& response, std::string_view name, std::string_view under) const {
  Put(response, name, "", under, std::chrono::seconds(0));
}

Result<HttpResponse> AuthRoutes::Login(const RouteContext&) const {
  if (auto enabled = RequireEnabled(); !enabled) return enabled.error();
  LoginState login{config_.random->Token128(), config_.random->Token128(),
                   config_.random->Token128() + config_.random->Token128(),
                   config_.clock->Now() + kLoginLifetime};
  Result<std::string> url = config_.provider->AuthorizationUrl(
      SignInStart{login.state, login.nonce, EncodeBase64Url(digest().Sha256(login.code_verifier)),
                  config_.public_url + "/auth/callback"});
  if (!url) return url.error();
  HttpResponse response = Redirect(HttpStatus::found, *url);
  Put(response, kLoginCookie, SealLoginState(login, config_.login_key, digest()), "/auth/",
      kLoginLifetime);
  return response;
}

Result<HttpResponse> AuthRoutes::Callback(const RouteContext& ctx) const {
  if (auto enabled = RequireEnabled(); !enabled) return enabled.error();
  const auto query = CallbackQuery(View(ctx.request.target()));
  const auto value = [&](std::string_view name) -> std::optional<std::string> {
    const auto it = query.find(name);
    if (it == query.end()) return std::nullopt;
    return it->second;
  };
  const std::optional<std::string> sealed = CookieValue(ctx.request, kLoginCookie);
  const std::optional<LoginState> login =
      sealed ? OpenLoginState(*sealed, config_.login_key, config_.clock->Now(), digest())
             : std::nullopt;
  if (!login) {
    return Invalid(
        "this browser began no sign-in, or began it more than 10 minutes ago: sign in again "
        "from the console");
  }
  const std::optional<std::string> state = value("state");
  if (!state || !digest().SameSecret(*state, login->state)) {
    return Invalid("the sign-in's `state` is not the one this browser sent: sign in again");
  }
  if (const auto error = value("error")) {
    std::string detail = "the identity provider refused the sign-in: " + *error;
    if (const auto description = value("error_description")) detail += ": " + *description;
    return MakeError(ErrorCode::kUnauthenticated, std::move(detail));
  }
  const std::optional<std::string> code = value("code");
  if (!code || code->empty()) return Invalid("the identity provider sent no `code`");
  Result<SignedIn> signed_in = config_.provider->Redeem(
      *code, login->code_verifier, config_.public_url + "/auth/callback", login->nonce);
  if (!signed_in) return signed_in.error();
  const Actor& actor = signed_in->actor;
  if (ctx.trace != nullptr) ctx.trace->caller = actor.id;
  users_.Saw(actor);

  const OpenedSession opened = config_.sessions->Open(actor, std::move(signed_in->id_token));
  const std::optional<std::string> current_id = CookieValue(ctx.request, kSessionCookie);
  const std::optional<SessionRecord> current =
      current_id ? config_.sessions->Find(*current_id) : std::nullopt;
  const bool asks_first = current && current->user_id != actor.id;
  HttpResponse response =
      Redirect(HttpStatus::see_other, config_.public_url + (asks_first ? "/#switch" : "/"));
  Drop(response, kLoginCookie, "/auth/");
  if (asks_first) {
    // No silent switch: the new session waits beside the open one for the user's word.
    Put(response, kPendingCookie, opened.cookie_id, "/auth/", kLoginLifetime);
    return response;
  }
  if (current) config_.sessions->End(*current_id);
  PutSession(response, opened.cookie_id, opened.record.expires_at);
  return response;
}

HttpResponse AuthRoutes::Session(const RouteContext& ctx) const {
  json body{{"sign_in", enabled()}, {"user", nullptr}, {"pending", nullptr}};
  if (config_.sessions != nullptr) {
    if (const auto id = CookieValue(ctx.request, kSessionCookie)) {
      if (const auto session = config_.sessions->Find(*id)) {
        body["user"] = UserOf(*session);
        body["csrf_token"] = session->csrf_token;
        body["expires_at"] = FormatTime(session->expires_at);
      }
    }
    if (const auto id = CookieValue(ctx.request, kPendingCookie)) {
      if (const auto pending = config_.sessions->Find(*id)) body["pending"] = UserOf(*pending);
    }
  }
  return NoStore(JsonResponse(HttpStatus::ok, body));
}

Result<HttpResponse> AuthRoutes::Logout(const RouteContext& ctx) const {
  json body{{"end_session_url", nullptr}};
  const std::optional<std::string> id =
      config_.sessions != nullptr ? CookieValue(ctx.request, kSessionCookie) : std::nullopt;
  if (const auto session = id ? config_.sessions->Find(*id) : std::nullopt) {
    if (!CsrfMatches(ctx.request, *session, *config_.sessions)) return Forbidden(CsrfRefusal());
    config_.sessions->End(*id);
    if (config_.provider != nullptr) {
      if (auto url = config_.provider->EndSessionUrl(session->id_token, config_.public_url + "/")) {
        body["end_session_url"] = std::move(*url);
      }
    }
  }
  HttpResponse response = JsonResponse(HttpStatus::ok, body);
  if (id) {
    Drop(response, kSessionCookie, "/");
  }
  return response;
}

Result<HttpResponse> AuthRoutes::Switch(const RouteContext& ctx) const {
  if (auto enabled = RequireEnabled(); !enabled) return enabled.error();
  const std::optional<std::string> pending_id = CookieValue(ctx.request, kPendingCookie);
  const std::optional<SessionRecord> pending =
      pending_id ? config_.sessions->Find(*pending_id) : std::nullopt;
  if (!pending) {
    return MakeError(ErrorCode::kInvalidState,
                     "no sign-in waits to replace this session: it was taken, dropped, or is "
                     "older than 10 minutes");
  }
  const std::optional<std::string> current_id = CookieValue(ctx.request, kSessionCookie);
  if (const auto current = current_id ? config_.sessions->Find(*current_id) : std::nullopt) {
    if (!CsrfMatches(ctx.request, *current, *config_.sessions)) return Forbidden(CsrfRefusal());
    config_.sessions->End(*current_id);
  }
  json body{{"sign_in", true},
            {"user", UserOf(*pending)},
            {"pending", nullptr},
            {"csrf_token", pending->csrf_token},
            {"expires_at", FormatTime(pending->expires_at)}};
  HttpResponse response = JsonResponse(HttpStatus::ok, body);
  PutSession(response, *pending_id, pending->expires_at);
  Drop(response, kPendingCookie, "/auth/");
  return response;
}

Result<HttpResponse> AuthRoutes::DropSwitch(const RouteContext& ctx) const {
  if (auto enabled = RequireEnabled(); !enabled) return enabled.error();
  const std::optional<std::string> pending_id = CookieValue(ctx.request, kPendingCookie);
  if (pending_id) config_.sessions->End(*pending_id);
  HttpResponse response{HttpStatus::no_content, 11};
  Drop(response, kPendingCookie, "/auth/");
  return response;
}

}  // namespace docgate
