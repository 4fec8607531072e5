// The console's sign-in at the HTTP boundary (API.md v1.2 "Console sign-in", ADR 0013): the login
// cookie that binds a callback to the browser that began it, the session cookie that then
// authenticates /api/v1 with its CSRF token, logout, and the switch that never happens silently.
// The OpenID provider is a fake at its port (SignInProvider);
// tests/browser/console_sign_in.test.mjs runs the same flow against a real one.

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adapters/crypto/openssl_digest.h"
#include "adapters/http/openapi.h"
#include "adapters/http/sign_in_cookies.h"
#include "app/ports/sign_in_provider.h"
#include "core/base64url.h"
#include "support/fake_backed_api.h"
#include "support/openapi_samples.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;
using nlohmann::json;

constexpr char kAuthorizationEndpoint[] = "https://login.example.com/authorize";

// The provider's side, as the routes see it: what a login sent, and whom the next code names.
class FakeSignInProvider final : public SignInProvider {
 public:
  Result<std::string> AuthorizationUrl(const SignInStart& start) override {
    started.push_back(start);
    return std::string(kAuthorizationEndpoint) + "?state=" + start.state;
  }
  Result<SignedIn> Redeem(const std::string& code, const std::string& code_verifier,
                          const std::string& redirect_uri, const std::string& nonce) override {
    redeemed.push_back({code, code_verifier, redirect_uri, nonce});
    if (refuse) return MakeError(ErrorCode::kUnauthenticated, "invalid_grant");
    return SignedIn{next_user, "id-token-of-" + next_user.id};
  }
  std::optional<std::string> EndSessionUrl(const std::string& id_token_hint,
                                           const std::string& post_logout) override {
    return "https://login.example.com/logout?hint=" + id_token_hint + "&to=" + post_logout;
  }

  struct Redemption {
    std::string code, verifier, redirect_uri, nonce;
  };
  std::vector<SignInStart> started;
  std::vector<Redemption> redeemed;
  Actor next_user{"zhangsan", "张三", true, false, false};
  bool refuse = false;
};

// A browser: the cookies the server set (by name; Max-Age=0 drops one) and sent back by path.
struct Browser {
  std::map<std::string, std::pair<std::string, std::string>> cookies;  // name -> (value, path)

  void Take(const HttpResponse& response) {
    const auto [first, last] = response.equal_range(http::field::set_cookie);
    for (auto field = first; field != last; ++field) {
      const std::string text(field->value());
      const std::size_t equals = text.find('=');
      const std::size_t semicolon = text.find(';');
      const std::string name = text.substr(0, equals);
      const std::string value = text.substr(equals + 1, semicolon - equals - 1);
      const std::size_t path_at = text.find("Path=");
      const std::string path = text.substr(path_at + 5, text.find(';', path_at) - path_at - 5);
      if (text.find("Max-Age=0;") != std::string::npos) {
        cookies.erase(name);
      } else {
        cookies[name] = {value, path};
      }
    }
  }
  std::string CookieHeader(const std::string& target) const {
    std::string header;
    for (const auto& [name, cookie] : cookies) {
      if (!target.starts_with(cookie.second)) continue;
      if (!header.empty()) header += "; ";
      header += name + "=" + cookie.first;
    }
    return header;
  }
  std::optional<std::string> Value(const std::string& name) const {
    const auto it = cookies.find(name);
    if (it == cookies.end()) return std::nullopt;
    return it->second.first;
  }
};

class ConsoleSignInTest : public ::testing::Test {
 protected:
  HttpResponse Call(HttpVerb verb, const std::string& target, Browser& browser,
                    const std::map<std::string, std::string>& headers = {},
                    const std::string& body = {}) {
    HttpRequest request{verb, target, 11};
    if (const std::string cookies = browser.CookieHeader(target); !cookies.empty()) {
      request.set(http::field::cookie, cookies);
    }
    for (const auto& [name, value] : headers) request.set(name, value);
    request.body() = body;
    request.prepare_payload();
    HttpResponse response = api_.api.Handle(request);
    browser.Take(response);
    samples_.push_back(testing::OpenApiSample(verb, target, response));
    return response;
  }

  // Signs `browser` in as `user`: login, the provider's answer, the callback. The callback's
  // response.
  HttpResponse SignIn(Browser& browser, const Actor& user) {
    provider_.next_user = user;
    const HttpResponse login = Call(HttpVerb::get, "/auth/login", browser);
    EXPECT_EQ(login.result(), HttpStatus::found) << login.body();
    const std::string state = provider_.started.back().state;
    return Call(HttpVerb::get,
                "/auth/callback?code=code-" + user.id + "&state=" + state +
                    "&iss=https%3A%2F%2Flogin.example.com",
                browser);
  }

  json Session(Browser& browser) {
    return json::parse(Call(HttpVerb::get, "/auth/session", browser).body());
  }

  std::string Csrf(Browser& browser) { return Session(browser).value("csrf_token", ""); }

  HttpResponse CreateDocument(Browser& browser, const std::map<std::string, std::string>& headers) {
    return Call(HttpVerb::post, "/api/v1/documents", browser, headers,
                json{{"title", "值班手册"}, {"content", "交接班时核对告警。"}}.dump());
  }

  FakeSignInProvider provider_;
  FakeBackedApi api_{FakeBackedApi::DatabaseUp(), &provider_};
  nlohmann::json samples_ = nlohmann::json::array();  // every response, for the OpenAPI check
  const Actor zhangsan_{"zhangsan", "张三", true, false, false};
  const Actor lisi_{"lisi", "李四", false, true, false};
};

TEST_F(ConsoleSignInTest, LoginSendsTheBrowserToTheProviderWithPkceAndASealedState) {
  Browser browser;
  const HttpResponse login = Call(HttpVerb::get, "/auth/login", browser);
  ASSERT_EQ(login.result(), HttpStatus::found) << login.body();
  ASSERT_EQ(provider_.started.size(), 1u);
  const SignInStart& start = provider_.started.front();
  EXPECT_EQ(start.redirect_uri, "https://kb.example.com/auth/callback");
  EXPECT_EQ(std::string(login[http::field::location]),
            std::string(kAuthorizationEndpoint) + "?state=" + start.state);
  EXPECT_EQ(std::string(login[http::field::cache_control]), "no-store");
  EXPECT_GE(start.state.size(), 32u);
  EXPECT_NE(start.state, start.nonce);
  const std::string set_cookie(login[http::field::set_cookie]);
  EXPECT_NE(set_cookie.find("docgate_login="), std::string::npos) << set_cookie;
  for (const char* attribute :
       {"Path=/auth/", "Max-Age=600", "HttpOnly", "SameSite=Lax", "Secure"}) {
    EXPECT_NE(set_cookie.find(attribute), std::string::npos) << attribute << " in " << set_cookie;
  }

  // The callback redeems with the verifier whose S256 challenge was sent, and the same nonce.
  ASSERT_EQ(Call(HttpVerb::get, "/auth/callback?code=abc&state=" + start.state, browser).result(),
            HttpStatus::see_other);
  ASSERT_EQ(provider_.redeemed.size(), 1u);
  const auto& redeemed = provider_.redeemed.front();
  EXPECT_EQ(redeemed.code, "abc");
  EXPECT_EQ(redeemed.nonce, start.nonce);
  EXPECT_EQ(redeemed.redirect_uri, start.redirect_uri);
  EXPECT_GE(redeemed.verifier.size(), 43u) << "RFC 7636: 43..128 characters";
  EXPECT_EQ(EncodeBase64Url(api_.digest.Sha256(redeemed.verifier)), start.code_challenge);
}

TEST_F(ConsoleSignInTest, ACallbackSignsInWithASessionCookieAndNoTokenInTheUrl) {
  Browser browser;
  const HttpResponse callback = SignIn(browser, zhangsan_);
  ASSERT_EQ(callback.result(), HttpStatus::see_other) << callback.body();
  EXPECT_EQ(std::string(callback[http::field::location]), "https://kb.example.com/");
  EXPECT_FALSE(browser.Value("docgate_login")) << "the login cookie is spent";
  const std::optional<std::string> id = browser.Value("docgate_session");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->size(), 64u);
  EXPECT_EQ(api_.stores.sessions->Find(*id, api_.clock.Now()), std::nullopt)
      << "the store knows the id only by its hash";

  const json session = Session(browser);
  EXPECT_EQ(session["sign_in"], true);
  EXPECT_EQ(session["user"], (json{{"id", "zhangsan"}, {"name", "张三"}, {"roles", {"author"}}}));
  EXPECT_EQ(session["pending"], nullptr);
  EXPECT_FALSE(session.value("csrf_token", "").empty());

  const HttpResponse me = Call(HttpVerb::get, "/api/v1/me", browser);
  ASSERT_EQ(me.result(), HttpStatus::ok) << me.body();
  EXPECT_EQ(json::parse(me.body())["name"], "张三");
  EXPECT_EQ(api_.users.Find("zhangsan")->name, "张三") << "the name is remembered at sign-in";
}

TEST_F(ConsoleSignInTest, ACallbackNotBoundToThisBrowsersLoginIsRefused) {
  Browser browser;
  ASSERT_EQ(Call(HttpVerb::get, "/auth/login", browser).result(), HttpStatus::found);
  const std::string state = provider_.started.back().state;

  Browser stranger;  // a callback link sent to another browser (login CSRF)
  EXPECT_EQ(Call(HttpVerb::get, "/auth/callback?code=c&state=" + state, stranger).result(),
            HttpStatus::bad_request);
  std::string other_state = state;
  other_state.back() = other_state.back() == 'f' ? 'e' : 'f';
  EXPECT_EQ(Call(HttpVerb::get, "/auth/callback?code=c&state=" + other_state, browser).result(),
            HttpStatus::bad_request)
      << "another state";
  EXPECT_EQ(Call(HttpVerb::get, "/auth/callback?code=c", browser).result(),
            HttpStatus::bad_request);

  Browser forger = browser;  // a login cookie whose state was rewritten: its MAC fails
  std::string& sealed = forger.cookies["docgate_login"].first;
  sealed[3] = sealed[3] == 'A' ? 'B' : 'A';
  EXPECT_EQ(Call(HttpVerb::get, "/auth/callback?code=c&state=" + state, forger).result(),
            HttpStatus::bad_request);

  api_.clock.Advance(std::chrono::minutes(11));
  const HttpResponse late = Call(HttpVerb::get, "/auth/callback?code=c&state=" + state, browser);
  EXPECT_EQ(late.result(), HttpStatus::bad_request) << "a login older than 10 minutes";
  EXPECT_NE(json::parse(late.body())["detail"].get<std::string>().find("10 minutes"),
            std::string::npos);
  EXPECT_TRUE(provider_.redeemed.empty()) << "no code is redeemed for a refused callback";
  EXPECT_FALSE(browser.Value("docgate_session"));
}

TEST_F(ConsoleSignInTest, AProviderThatRefusesIsA401AndSignsNoOneIn) {
  Browser browser;
  ASSERT_EQ(Call(HttpVerb::get, "/auth/login", browser).result(), HttpStatus::found);
  const std::string state = provider_.started.back().state;
  const HttpResponse denied = Call(
      HttpVerb::get,
      "/auth/callback?error=access_denied&error_description=%E7%94%A8%E6%88%B7%E5%8F%96%E6%B6%88"
      "&state=" +
          state,
      browser);
  EXPECT_EQ(denied.result(), HttpStatus::unauthorized);
  EXPECT_NE(denied.body().find("access_denied: 用户取消"), std::string::npos) << denied.body();

  ASSERT_EQ(Call(HttpVerb::get, "/auth/login", browser).result(), HttpStatus::found);
  provider_.refuse = true;
  EXPECT_EQ(
      Call(HttpVerb::get, "/auth/callback?code=c&state=" + provider_.started.back().state, browser)
          .result(),
      HttpStatus::unauthorized);
  EXPECT_FALSE(browser.Value("docgate_session"));
  EXPECT_EQ(Session(browser)["user"], nullptr);
}

TEST_F(ConsoleSignInTest, ASessionChangesStateOnlyWithItsCsrfToken) {
  Browser browser;
  ASSERT_EQ(SignIn(browser, zhangsan_).result(), HttpStatus::see_other);
  const std::string csrf = Csrf(browser);

  EXPECT_EQ(CreateDocument(browser, {}).result(), HttpStatus::forbidden);
  EXPECT_EQ(CreateDocument(browser, {{"X-Docgate-CSRF", csrf + "0"}}).result(),
            HttpStatus::forbidden);
  EXPECT_EQ(json::parse(Call(HttpVerb::get, "/api/v1/documents", browser).body())["items"],
            json::array())
      << "nothing was written";
  const HttpResponse created = CreateDocument(browser, {{"X-Docgate-CSRF", csrf}});
  ASSERT_EQ(created.result(), HttpStatus::created) << created.body();
  EXPECT_EQ(json::parse(created.body())["author_name"], "张三");
  const std::string id = json::parse(created.body())["id"];
  for (const HttpVerb verb : {HttpVerb::put, HttpVerb::post}) {
    const std::string target =
        verb == HttpVerb::put ? "/api/v1/documents/" + id : "/api/v1/documents/" + id + "/submit";
    EXPECT_EQ(Call(verb, target, browser, {{"If-Match", "\"1\""}},
                   json{{"title", "值班手册"}, {"content", "改"}}.dump())
                  .result(),
              HttpStatus::forbidden)
        << target;
  }
  EXPECT_EQ(Call(HttpVerb::get, "/api/v1/documents/" + id, browser).result(), HttpStatus::ok)
      << "a read needs no token";

  // A bearer token is the caller, whatever cookie comes with it.
  const std::string reviewer = api_.Bearer("wangwu", {"reviewer"});
  const HttpResponse me = Call(HttpVerb::get, "/api/v1/me", browser, {{"Authorization", reviewer}});
  EXPECT_EQ(json::parse(me.body())["id"], "wangwu");
}

TEST_F(ConsoleSignInTest, LogoutEndsTheSessionAndOffersTheProvidersEndSession) {
  Browser browser;
  ASSERT_EQ(SignIn(browser, zhangsan_).result(), HttpStatus::see_other);
  Browser copy = browser;  // the same cookie in another tab, or another instance's request
  EXPECT_EQ(Call(HttpVerb::post, "/auth/logout", browser).result(), HttpStatus::forbidden)
      << "a cross-site form cannot sign anyone out";
  ASSERT_EQ(Call(HttpVerb::get, "/api/v1/me", browser).result(), HttpStatus::ok);

  const HttpResponse logout =
      Call(HttpVerb::post, "/auth/logout", browser, {{"X-Docgate-CSRF", Csrf(browser)}});
  ASSERT_EQ(logout.result(), HttpStatus::ok) << logout.body();
  EXPECT_EQ(
      json::parse(logout.body())["end_session_url"],
      "https://login.example.com/logout?hint=id-token-of-zhangsan&to=https://kb.example.com/");
  EXPECT_FALSE(browser.Value("docgate_session"));
  const HttpResponse after = Call(HttpVerb::get, "/api/v1/me", copy);
  EXPECT_EQ(after.result(), HttpStatus::unauthorized) << "ended for every copy of the cookie";
  EXPECT_EQ(Session(copy)["user"], nullptr);
  EXPECT_EQ(json::parse(Call(HttpVerb::post, "/auth/logout", copy).body())["end_session_url"],
            nullptr)
      << "a logout without a session is no error";
}

TEST_F(ConsoleSignInTest, ASessionExpiresAfterItsLifetime) {
  Browser browser;
  ASSERT_EQ(SignIn(browser, zhangsan_).result(), HttpStatus::see_other);
  api_.clock.Advance(std::chrono::hours(8) - std::chrono::seconds(1));
  EXPECT_EQ(Call(HttpVerb::get, "/api/v1/me", browser).result(), HttpStatus::ok);
  api_.clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ(Call(HttpVerb::get, "/api/v1/me", browser).result(), HttpStatus::unauthorized);
  EXPECT_EQ(Session(browser)["user"], nullptr);
}

TEST_F(ConsoleSignInTest, AnotherUsersSignInWaitsForTheUsersWord) {
  Browser browser;
  ASSERT_EQ(SignIn(browser, zhangsan_).result(), HttpStatus::see_other);
  const std::string first_cookie = *browser.Value("docgate_session");
  const std::string csrf = Csrf(browser);

  const HttpResponse second = SignIn(browser, lisi_);
  ASSERT_EQ(second.result(), HttpStatus::see_other);
  EXPECT_EQ(std::string(second[http::field::location]), "https://kb.example.com/#switch");
  EXPECT_EQ(browser.Value("docgate_session"), first_cookie) << "no silent switch";
  const json asking = Session(browser);
  EXPECT_EQ(asking["user"]["id"], "zhangsan");
  EXPECT_EQ(asking["pending"]["id"], "lisi");
  EXPECT_EQ(asking["pending"]["name"], "李四");
  EXPECT_EQ(json::parse(Call(HttpVerb::get, "/api/v1/me", browser).body())["id"], "zhangsan");

  EXPECT_EQ(Call(HttpVerb::post, "/auth/switch", browser).result(), HttpStatus::forbidden);
  const HttpResponse switched =
      Call(HttpVerb::post, "/auth/switch", browser, {{"X-Docgate-CSRF", csrf}});
  ASSERT_EQ(switched.result(), HttpStatus::ok) << switched.body();
  EXPECT_EQ(json::parse(switched.body())["user"]["id"], "lisi");
  EXPECT_EQ(json::parse(Call(HttpVerb::get, "/api/v1/me", browser).body())["id"], "lisi");
  EXPECT_FALSE(browser.Value("docgate_pending"));
  Browser old;
  old.cookies["docgate_session"] = {first_cookie, "/"};
  EXPECT_EQ(Call(HttpVerb::get, "/api/v1/me", old).result(), HttpStatus::unauthorized)
      << "the session switched from is ended";
  EXPECT_EQ(
      Call(HttpVerb::post, "/auth/switch", browser, {{"X-Docgate-CSRF", Csrf(browser)}}).result(),
      HttpStatus::conflict)
      << "nothing waits any more";
}

TEST_F(ConsoleSignInTest, AWaitingSignInCanBeDroppedAndTheSameUserSimplySignsInAgain) {
  Browser browser;
  ASSERT_EQ(SignIn(browser, zhangsan_).result(), HttpStatus::see_other);
  ASSERT_EQ(SignIn(browser, lisi_).result(), HttpStatus::see_other);
  const std::string pending = *browser.Value("docgate_pending");
  EXPECT_EQ(Call(HttpVerb::delete_, "/auth/switch", browser).result(), HttpStatus::no_content);
  EXPECT_FALSE(browser.Value("docgate_pending"));
  EXPECT_EQ(Session(browser)["user"]["id"], "zhangsan");
  Browser thief;
  thief.cookies["docgate_session"] = {pending, "/"};
  EXPECT_EQ(Call(HttpVerb::get, "/api/v1/me", thief).result(), HttpStatus::unauthorized)
      << "the dropped sign-in's session is gone";

  const std::string before = *browser.Value("docgate_session");
  const HttpResponse again = SignIn(browser, zhangsan_);
  EXPECT_EQ(std::string(again[http::field::location]), "https://kb.example.com/");
  EXPECT_NE(browser.Value("docgate_session"), before) << "a new session";
  Browser old;
  old.cookies["docgate_session"] = {before, "/"};
  EXPECT_EQ(Call(HttpVerb::get, "/api/v1/me", old).result(), HttpStatus::unauthorized);
}

TEST_F(ConsoleSignInTest, TheScreenLetsOnlyCookiesOfASessionIdsShapeThrough) {
  HttpRequest header{HttpVerb::post, "/api/v1/documents", 11};
  header.set(http::field::cookie, "docgate_session=not-an-id");
  RequestTrace trace;
  const auto refused = api_.api.Screen(header, trace);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->result(), HttpStatus::unauthorized);
  header.set(http::field::cookie, "other=1; docgate_session=" + std::string(64, 'a'));
  EXPECT_EQ(api_.api.Screen(header, trace), std::nullopt)
      << "the body is read, and Handle asks the store";
}

// What the sign-in routes answer is what src/adapters/http/openapi.json says they do, and each of
// them is driven to its success (the end-to-end OpenAPI test runs without a provider).
TEST_F(ConsoleSignInTest, EveryAnswerIsTheDocumentedOne) {
  Browser browser;
  ASSERT_EQ(Call(HttpVerb::get, "/auth/callback?code=c&state=s", browser).result(),
            HttpStatus::bad_request);
  ASSERT_EQ(Call(HttpVerb::get, "/auth/login", browser).result(), HttpStatus::found);
  ASSERT_EQ(
      Call(HttpVerb::get,
           "/auth/callback?error=access_denied&state=" + provider_.started.back().state, browser)
          .result(),
      HttpStatus::unauthorized);
  ASSERT_EQ(SignIn(browser, zhangsan_).result(), HttpStatus::see_other);
  ASSERT_EQ(SignIn(browser, lisi_).result(), HttpStatus::see_other);
  ASSERT_EQ(Call(HttpVerb::get, "/auth/session", browser).result(), HttpStatus::ok);
  ASSERT_EQ(Call(HttpVerb::post, "/auth/switch", browser).result(), HttpStatus::forbidden);
  ASSERT_EQ(
      Call(HttpVerb::post, "/auth/switch", browser, {{"X-Docgate-CSRF", Csrf(browser)}}).result(),
      HttpStatus::ok);
  ASSERT_EQ(
      Call(HttpVerb::post, "/auth/switch", browser, {{"X-Docgate-CSRF", Csrf(browser)}}).result(),
      HttpStatus::conflict);
  ASSERT_EQ(Call(HttpVerb::delete_, "/auth/switch", browser).result(), HttpStatus::no_content);
  ASSERT_EQ(Call(HttpVerb::post, "/auth/logout", browser).result(), HttpStatus::forbidden);
  ASSERT_EQ(
      Call(HttpVerb::post, "/auth/logout", browser, {{"X-Docgate-CSRF", Csrf(browser)}}).result(),
      HttpStatus::ok);

  const auto dir = std::filesystem::temp_directory_path() /
                   ("docgate-sign-in-openapi-" + std::to_string(::getpid()));
  const auto [code, output] =
      testing::CheckOpenApiSamples(std::string(OpenApiDocument()), samples_, dir, "--only /auth/");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(code, 0) << output;
  EXPECT_NE(output.find("openapi_check responses: ok"), std::string::npos) << output;
}

// Behind a proxy that serves docgate under a prefix, the cookies go to that prefix's paths and the
// browser comes back to the console there.
TEST(ConsoleSignInPrefixTest, CookiesAndRedirectsFollowThePublicUrlsPath) {
  FakeSignInProvider provider;
  FakeBackedApi api(FakeBackedApi::DatabaseUp(), &provider, "https://intra.example.com/kb/");
  const HttpResponse login = api.api.Handle(HttpRequest{HttpVerb::get, "/auth/login", 11});
  ASSERT_EQ(login.result(), HttpStatus::found);
  const std::string login_cookie(login[http::field::set_cookie]);
  EXPECT_NE(login_cookie.find("; Path=/kb/auth/;"), std::string::npos) << login_cookie;
  EXPECT_EQ(provider.started.front().redirect_uri, "https://intra.example.com/kb/auth/callback");

  HttpRequest callback{HttpVerb::get,
                       "/auth/callback?code=c&state=" + provider.started.front().state, 11};
  callback.set(http::field::cookie, login_cookie.substr(0, login_cookie.find(';')));
  const HttpResponse answer = api.api.Handle(callback);
  ASSERT_EQ(answer.result(), HttpStatus::see_other) << answer.body();
  EXPECT_EQ(std::string(answer[http::field::location]), "https://intra.example.com/kb/");
  std::vector<std::string> set;
  const auto [first, last] = answer.equal_range(http::field::set_cookie);
  for (auto field = first; field != last; ++field) set.emplace_back(field->value());
  ASSERT_EQ(set.size(), 2u);
  EXPECT_NE(set[0].find("docgate_login=; Path=/kb/auth/; Max-Age=0"), std::string::npos) << set[0];
  EXPECT_NE(set[1].find("docgate_session="), std::string::npos) << set[1];
  EXPECT_NE(set[1].find("; Path=/kb/;"), std::string::npos) << set[1];
}

TEST(ConsoleSignInOffTest, WithoutAProviderTheSessionSaysSoAndLoginIsNotFound) {
  FakeBackedApi api;
  HttpRequest request{HttpVerb::get, "/auth/session", 11};
  request.set(http::field::cookie, "docgate_session=" + std::string(64, 'a'));
  const HttpResponse session = api.api.Handle(request);
  ASSERT_EQ(session.result(), HttpStatus::ok);
  EXPECT_EQ(json::parse(session.body()),
            (json{{"sign_in", false}, {"user", nullptr}, {"pending", nullptr}}));
  const HttpResponse login = api.api.Handle(HttpRequest{HttpVerb::get, "/auth/login", 11});
  EXPECT_EQ(login.result(), HttpStatus::not_found);
  EXPECT_NE(login.body().find("DOCGATE_PUBLIC_URL"), std::string::npos);
  HttpRequest me{HttpVerb::get, "/api/v1/me", 11};
  me.set(http::field::cookie, "docgate_session=" + std::string(64, 'a'));
  EXPECT_EQ(api.api.Handle(me).result(), HttpStatus::unauthorized) << "cookies count for nothing";
}

TEST(LoginStateTest, OpensOnlyUnderItsKeyAndBeforeItExpires) {
  const TimePoint now{std::chrono::milliseconds(1'700'000'000'000)};
  const LoginState login{"state-1", "nonce-1", std::string(64, 'f'), now + kLoginLifetime};
  const OpenSslDigest digest;
  const std::string key = LoginStateKey(digest, "secret-a");
  const std::string sealed = SealLoginState(login, key, digest);
  const auto opened = OpenLoginState(sealed, key, now, digest);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->state, "state-1");
  EXPECT_EQ(opened->nonce, "nonce-1");
  EXPECT_EQ(opened->code_verifier, login.code_verifier);
  EXPECT_FALSE(OpenLoginState(sealed, LoginStateKey(digest, "secret-b"), now, digest))
      << "another instance's key";
  EXPECT_FALSE(OpenLoginState(sealed, key, login.expires_at, digest));
  EXPECT_FALSE(OpenLoginState(sealed.substr(0, sealed.size() - 1), key, now, digest));
  EXPECT_FALSE(OpenLoginState("", key, now, digest));
  EXPECT_FALSE(OpenLoginState(".", key, now, digest));
  // The payload of another login under the first's MAC.
  const std::string other =
      SealLoginState({"state-2", "n", "v", now + kLoginLifetime}, key, digest);
  EXPECT_FALSE(OpenLoginState(other.substr(0, other.find('.')) + sealed.substr(sealed.find('.')),
                              key, now, digest));
}

TEST(SessionCookieTest, ReadsTheNamedCookieAmongOthers) {
  HttpRequest header{HttpVerb::get, "/", 11};
  header.set(http::field::cookie, "a=1; docgate_session_x=2;docgate_session = \"abc\" ; z=");
  EXPECT_EQ(CookieValue(header, "docgate_session"), "abc");
  EXPECT_EQ(CookieValue(header, "z"), "");
  EXPECT_EQ(CookieValue(header, "docgate"), std::nullopt);
  EXPECT_EQ(SetCookie("n", "v", {"/auth/", std::chrono::seconds(0), true}),
            "n=v; Path=/auth/; Max-Age=0; HttpOnly; SameSite=Lax; Secure");
}

}  // namespace
}  // namespace docgate
