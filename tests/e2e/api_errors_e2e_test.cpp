// End-to-end: the HTTP API's error answers (400, 401, 403, 404, 405, 409, 412, 413, 503) on every
// backend, driven over HTTP; the suites and their backends are those of api_e2e_test.cpp.

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "e2e/api_e2e_fixture.h"
#include "e2e/e2e_server.h"
#include "e2e/token_forge.h"

namespace docgate::api_e2e {
namespace {

TEST_P(ApiTest, MalformedBodiesAre400Validation) {
  for (const char* body :
       {"", "{", "not json", "[1, 2]", "\"title\"", "42", "null", R"({"title": 1, "content": "x"})",
        R"({"title": "x", "content": 5})", R"({"title": "x"})", R"({"content": "x"})",
        R"({"title": null, "content": "x"})", R"({"title": "", "content": "x"})",
        "{\"title\": \"\xff\", \"content\": \"x\"}",
        R"({"title": "x", "content": "x", "format": "html"})",
        R"({"title": "x", "content": "x", "format": "Markdown"})",
        R"({"title": "x", "content": "x", "format": null})",
        R"({"title": "x", "content": "x", "format": 1})"}) {
    ExpectProblem(Post("/api/v1/documents", Alice(), body), 400, "VALIDATION");
  }
  const std::string long_title(201, 'x');
  ExpectProblem(
      Post("/api/v1/documents", Alice(), json{{"title", long_title}, {"content", ""}}.dump()), 400,
      "VALIDATION");
  EXPECT_EQ(Post("/api/v1/documents", Alice(),
                 json{{"title", std::string(200, 'x')}, {"content", ""}}.dump())
                .status(),
            201u);

  const std::string id = Create(Alice());
  for (const char* body :
       {"", "[]", R"({"title": 5})", R"({"content": false})", R"({})", R"({"title": null})",
        R"({"format": "docx"})", R"({"format": ["text"]})"}) {
    ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, Alice(), body), 400,
                  "VALIDATION");
  }
  for (const char* tag : {"3", "W/\"1\"", "\"abc\"", "\"-1\"", "\"\""}) {
    Headers headers = Alice();
    headers.emplace_back("If-Match", tag);
    ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, headers, R"({"title": "t"})"),
                  400, "VALIDATION");
  }
  const std::string review = Submit(id, Alice());
  for (const char* body : {"[]", "{", R"({"comment": 5})"}) {
    ExpectProblem(Post("/api/v1/reviews/" + review + "/approve", Bob(), body), 400, "VALIDATION");
  }
  for (const char* body : {"", "{", R"({"reason": 5})", R"({"reason": null})"}) {
    ExpectProblem(Post("/api/v1/reviews/" + review + "/reject", Bob(), body), 400, "VALIDATION");
  }
  ExpectProblem(Post("/api/v1/reviews/" + review + "/reject", Bob(),
                     json{{"reason", std::string(2001, 'r')}}.dump()),
                400, "VALIDATION");
}

TEST_P(ApiTest, MalformedIdsAre400OnEveryIdRoute) {
  for (const char* bad : {"abc", "-1", "0", "99999999999999999999", "1.5", "%31", "+1"}) {
    const std::string id = bad;
    ExpectProblem(Get("/api/v1/documents/" + id, Alice()), 400, "VALIDATION");
    ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, Alice(), R"({"title": "x"})"),
                  400, "VALIDATION");
    ExpectProblem(Get("/api/v1/documents/" + id + "/content", Alice()), 400, "VALIDATION");
    ExpectProblem(Get("/api/v1/documents/" + id + "/preview", Alice()), 400, "VALIDATION");
    ExpectProblem(Post("/api/v1/documents/" + id + "/submit", Alice()), 400, "VALIDATION");
    ExpectProblem(Post("/api/v1/documents/" + id + "/withdraw", Alice()), 400, "VALIDATION");
    ExpectProblem(Get("/api/v1/documents/" + id + "/reviews", Alice()), 400, "VALIDATION");
    ExpectProblem(Get("/api/v1/reviews/" + id, Bob()), 400, "VALIDATION");
    ExpectProblem(Post("/api/v1/reviews/" + id + "/approve", Bob()), 400, "VALIDATION");
    ExpectProblem(Post("/api/v1/reviews/" + id + "/reject", Bob(), R"({"reason": "r"})"), 400,
                  "VALIDATION");
  }
}

TEST_P(ApiTest, MalformedQueriesAre400) {
  for (const char* query : {"status=bogus", "status=", "limit=0", "limit=101", "limit=abc",
                            "limit=-1", "limit=99999999999", "after=abc", "after=0",
                            "after=", "author_id=", "unknown=1", "limit=1&limit=2", "status=%zz"}) {
    ExpectProblem(Get(std::string("/api/v1/documents?") + query, Alice()), 400, "VALIDATION");
  }
  for (const char* query : {"status=draft", "limit=0", "limit=101", "after=-5", "author_id=x"}) {
    ExpectProblem(Get(std::string("/api/v1/reviews?") + query, Bob()), 400, "VALIDATION");
  }
}

// API.md v1.1 "Limits": bytes a store cannot keep are refused as input, on every backend.
TEST_P(ApiTest, BadBytesInQueriesPathsAndHeadersAre400NeverA500) {
  for (const char* value :
       {"%00", "a%00b", "%FF", "%C0%AF", "%E0%80%AF", "%ED%A0%80", "%F4%90%80%80", "%E5%BC"}) {
    ExpectProblem(Get(std::string("/api/v1/documents?author_id=") + value, Alice()), 400,
                  "VALIDATION");
    ExpectProblem(Get(std::string("/api/v1/search?q=") + value, Alice()), 400, "VALIDATION");
    ExpectProblem(Get(std::string("/api/v1/documents/") + value, Alice()), 400, "VALIDATION");
    ExpectProblem(Post(std::string("/api/v1/reviews/") + value + "/approve", Bob()), 400,
                  "VALIDATION");
    ExpectProblem(Get(std::string("/api/v1/") + value, Alice()), 400, "VALIDATION");
  }
  ExpectProblem(Get("/api/v1/documents?author_id=" + std::string(256, 'a'), Alice()), 400,
                "VALIDATION");
  EXPECT_EQ(Get("/api/v1/documents?author_id=" + std::string(255, 'a'), Alice()).json()["items"],
            json::array());

  Headers bad_key = Alice();
  bad_key.emplace_back("Idempotency-Key", "key-\xff\xfe");
  ExpectProblem(Post("/api/v1/documents", bad_key, R"({"title": "t", "content": "c"})"), 400,
                "VALIDATION");
  const std::string id = Create(Alice());
  Headers bad_tag = Alice();
  bad_tag.emplace_back("If-Match", "\"\xed\xa0\x80\"");
  ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, bad_tag, R"({"title": "t"})"), 400,
                "VALIDATION");
  {
    HttpClient client(port_);
    ExpectProblem(client.Raw("POST /api/v1/documents HTTP/1.1\r\nHost: x\r\nIdempotency-Key: " +
                             std::string("a\0b", 3) + "\r\nContent-Length: 2\r\n\r\n{}"),
                  400, "VALIDATION");
  }
  ExpectProblem(
      Post("/api/v1/documents", Alice(), R"({"title": "t", "content": "nul \u0000 inside"})"), 400,
      "VALIDATION");
  ExpectProblem(Post("/api/v1/documents", Alice(), R"({"title": "a\u0000b", "content": "c"})"), 400,
                "VALIDATION");
  EXPECT_EQ(Get("/healthz", {}).status(), 200u);
}

TEST_P(ApiTest, PathIdsWithLeadingZerosAre400NotAliases) {
  const std::string id = Create(Alice());
  EXPECT_EQ(Get("/api/v1/documents/" + id, Alice()).status(), 200u);
  ExpectProblem(Get("/api/v1/documents/0" + id, Alice()), 400, "VALIDATION");
  ExpectProblem(Get("/api/v1/documents/00" + id + "/content", Alice()), 400, "VALIDATION");
  ExpectProblem(Post("/api/v1/documents/0" + id + "/submit", Alice()), 400, "VALIDATION");
  const std::string review = Submit(id, Alice());
  ExpectProblem(Get("/api/v1/reviews/0" + review, Bob()), 400, "VALIDATION");
  ExpectProblem(Get("/api/v1/documents?after=0" + id, Alice()), 400, "VALIDATION");
}

TEST_P(ApiTest, BodiesNestedDeeperThan64LevelsAre400) {
  const auto nested = [](std::size_t levels) {
    return std::string(levels, '[') + std::string(levels, ']');
  };
  // The document itself is one level: 63 more inside it make 64.
  EXPECT_EQ(Post("/api/v1/documents", Alice(),
                 R"({"title": "t", "content": "c", "x": )" + nested(63) + "}")
                .status(),
            201u);
  ExpectProblem(Post("/api/v1/documents", Alice(),
                     R"({"title": "t", "content": "c", "x": )" + nested(64) + "}"),
                400, "VALIDATION");
  ExpectProblem(Post("/api/v1/documents", Alice(), nested(100000)), 400, "VALIDATION");
  ExpectProblem(Post("/api/v1/documents", Alice(), std::string(100000, '[')), 400, "VALIDATION");
  EXPECT_EQ(Get("/healthz", {}).status(), 200u);
}

TEST_P(ApiTest, SubjectIsAtMost255BytesAndChineseIdsWork) {
  const std::string longest(255, 'a');
  EXPECT_EQ(Post("/api/v1/documents", As(longest, {"author"}), R"({"title": "t", "content": "c"})")
                .status(),
            201u);
  const auto mine = Get("/api/v1/documents?author_id=" + longest, Alice());
  ASSERT_EQ(mine.status(), 200u) << mine.body();
  EXPECT_EQ(mine.json()["items"].size(), 1u);
  ExpectProblem(Get("/api/v1/documents", ForgedAs(longest + "a", {"author"})), 401,
                "UNAUTHENTICATED");
  ExpectProblem(Post("/api/v1/documents", ForgedAs(longest + "a", {"author"}),
                     R"({"title": "t", "content": "c"})"),
                401, "UNAUTHENTICATED");
  for (const std::string bad : {"alice\n", "\x1b[31m", "bob\r\nroot"}) {
    ExpectProblem(Get("/api/v1/documents", ForgedAs(bad, {"author"})), 401, "UNAUTHENTICATED");
  }

  const Headers zhang = As("张三", {"author"});
  const auto created =
      Post("/api/v1/documents", zhang, json{{"title", "入职指南"}, {"content", "欢迎"}}.dump());
  ASSERT_EQ(created.status(), 201u) << created.body();
  EXPECT_EQ(created.json()["author_id"], "张三");
  const auto listed = Get("/api/v1/documents?author_id=%E5%BC%A0%E4%B8%89", Alice());
  ASSERT_EQ(listed.status(), 200u) << listed.body();
  ASSERT_EQ(listed.json()["items"].size(), 1u);
  EXPECT_EQ(listed.json()["items"][0]["title"], "入职指南");
  Headers keyed = zhang;
  keyed.emplace_back("Idempotency-Key", "zhang-1");
  const std::string id = created.json()["id"];
  EXPECT_EQ(Post("/api/v1/documents/" + id + "/submit", keyed).status(), 200u);
  const auto replayed = Post("/api/v1/documents/" + id + "/submit", keyed);
  EXPECT_EQ(replayed.status(), 200u);
  EXPECT_EQ(replayed.header("Idempotent-Replayed"), "true");
}

TEST_P(ApiTest, BadTokensAre401WithWwwAuthenticate) {
  const std::string target = "/api/v1/documents";
  ExpectProblem(Get(target, {}), 401, "UNAUTHENTICATED");
  ExpectProblem(Get(target, {{"Authorization", "Bearer"}}), 401, "UNAUTHENTICATED");
  ExpectProblem(Get(target, {{"Authorization", "Bearer not.a.jwt"}}), 401, "UNAUTHENTICATED");
  ExpectProblem(Get(target, {{"Authorization", "Basic YWxpY2U6cHc="}}), 401, "UNAUTHENTICATED");
  const std::string forged = SignHs256Token(
      "not-the-secret", TokenClaims{"alice", {"admin"}, std::nullopt, clock_.Now() + 1h},
      clock_.Now());
  ExpectProblem(Get(target, {{"Authorization", "Bearer " + forged}}), 401, "UNAUTHENTICATED");
  // "alg": "none", built by hand: libjwt refuses to sign it.
  const std::string none =
      e2e::SigningInput(R"({"alg":"none","typ":"JWT"})", R"({"sub":"alice","roles":["admin"]})") +
      ".";
  ExpectProblem(Get(target, {{"Authorization", "Bearer " + none}}), 401, "UNAUTHENTICATED");
  ExpectProblem(
      Post(target, {{"Authorization", "Bearer " + none}}, R"({"title": "t", "content": "c"})"), 401,
      "UNAUTHENTICATED");
  const std::string expiring = SignHs256Token(
      app_->jwt_secret(), TokenClaims{"alice", {"author"}, std::nullopt, clock_.Now() + 60s},
      clock_.Now());
  EXPECT_EQ(Get(target, {{"Authorization", "Bearer " + expiring}}).status(), 200u);
  clock_.Advance(61s);
  ExpectProblem(Get(target, {{"Authorization", "Bearer " + expiring}}), 401, "UNAUTHENTICATED");
  // Every /api/v1 route needs the token, the probes do not.
  ExpectProblem(Get("/api/v1/reviews/1", {}), 401, "UNAUTHENTICATED");
  ExpectProblem(Post("/api/v1/reviews/1/approve", {}), 401, "UNAUTHENTICATED");
}

TEST_P(ApiTest, RolesAndOwnershipAre403) {
  ExpectProblem(Post("/api/v1/documents", Bob(), R"({"title": "t", "content": "c"})"), 403,
                "FORBIDDEN");
  ExpectProblem(Post("/api/v1/documents", As("nobody", {}), R"({"title": "t", "content": "c"})"),
                403, "FORBIDDEN");
  ExpectProblem(Get("/api/v1/reviews", Alice()), 403, "FORBIDDEN");
  const std::string id = Create(Alice());
  ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, Carol(), R"({"title": "mine"})"),
                403, "FORBIDDEN");
  ExpectProblem(Post("/api/v1/documents/" + id + "/submit", Carol()), 403, "FORBIDDEN");
  const std::string review = Submit(id, Alice());
  ExpectProblem(Post("/api/v1/reviews/" + review + "/approve", Alice()), 403, "FORBIDDEN");
  ExpectProblem(Post("/api/v1/reviews/" + review + "/reject", Carol(), R"({"reason": "no"})"), 403,
                "FORBIDDEN");
  // Reading needs no particular role.
  EXPECT_EQ(Get("/api/v1/documents/" + id, As("nobody", {})).status(), 200u);
}

TEST_P(ApiTest, NobodyDecidesTheirOwnDocumentNotEvenAdmin) {
  const Headers dual = As("dana", {"author", "reviewer"});
  const std::string review = Submit(Create(dual), dual);
  ExpectProblem(Post("/api/v1/reviews/" + review + "/approve", dual), 403, "SELF_REVIEW");
  ExpectProblem(Post("/api/v1/reviews/" + review + "/reject", dual, R"({"reason": "mine"})"), 403,
                "SELF_REVIEW");

  const std::string admin_review = Submit(Create(Admin()), Admin());
  ExpectProblem(Post("/api/v1/reviews/" + admin_review + "/approve", Admin()), 403, "SELF_REVIEW");
  // ... but an admin decides other people's documents.
  EXPECT_EQ(Post("/api/v1/reviews/" + review + "/approve", Admin()).status(), 200u);
}

TEST_P(ApiTest, UnknownThingsAre404) {
  ExpectProblem(Get("/api/v1/documents/424242", Alice()), 404, "NOT_FOUND");
  ExpectProblem(Get("/api/v1/documents/424242/content", Alice()), 404, "NOT_FOUND");
  ExpectProblem(Get("/api/v1/documents/424242/reviews", Alice()), 404, "NOT_FOUND");
  ExpectProblem(Post("/api/v1/documents/424242/submit", Alice()), 404, "NOT_FOUND");
  ExpectProblem(Post("/api/v1/documents/424242/withdraw", Alice()), 404, "NOT_FOUND");
  ExpectProblem(Call(http::verb::put, "/api/v1/documents/424242", Alice(), R"({"title": "x"})"),
                404, "NOT_FOUND");
  ExpectProblem(Get("/api/v1/reviews/424242", Bob()), 404, "NOT_FOUND");
  ExpectProblem(Post("/api/v1/reviews/424242/approve", Bob()), 404, "NOT_FOUND");
  ExpectProblem(Post("/api/v1/reviews/424242/reject", Bob(), R"({"reason": "r"})"), 404,
                "NOT_FOUND");
  for (const char* path : {"/nope", "/console/", "/console/nope.js", "/api/v1",
                           "/api/v1/documents/", "/api/v1/documents/1/x", "/api/v2/documents"}) {
    ExpectProblem(Get(path, Alice()), 404, "NOT_FOUND");
  }
}

TEST_P(ApiTest, KnownPathsWithTheWrongMethodAre405WithAllow) {
  const auto reply = Call(http::verb::delete_, "/api/v1/documents/1", Alice());
  EXPECT_EQ(reply.status(), 405u);
  EXPECT_EQ(reply.header(http::field::allow), "GET, HEAD, PUT");
  EXPECT_EQ(reply.header(http::field::content_type), "application/problem+json");
  EXPECT_EQ(Call(http::verb::patch, "/healthz", {}).header(http::field::allow), "GET, HEAD");
  EXPECT_EQ(Call(http::verb::get, "/api/v1/reviews/1/approve", Bob()).header(http::field::allow),
            "POST");
  EXPECT_EQ(Call(http::verb::put, "/api/v1/documents", Alice(), "{}").header(http::field::allow),
            "POST, GET, HEAD");
  EXPECT_EQ(Call(http::verb::head, "/api/v1/reviews/1/approve", Bob()).status(), 405u)
      << "HEAD only where GET is";
}

// API.md v1.2: HEAD is answered wherever GET is, with the GET's status and headers and no body.
TEST_P(ApiTest, HeadIsAnsweredWhereverGetIsWithTheHeaderOfTheGet) {
  const std::string id = Create(Alice());
  const std::vector<std::string> paths = {"/api/v1/documents/" + id, "/api/v1/documents?limit=5",
                                          "/api/v1/documents/" + id + "/content", "/healthz", "/"};
  for (const std::string& path : paths) {
    const auto get = Get(path, Alice());
    const auto head = Call(http::verb::head, path, Alice());
    EXPECT_EQ(head.status(), get.status()) << path;
    EXPECT_EQ(head.header(http::field::content_type), get.header(http::field::content_type))
        << path;
    EXPECT_EQ(head.header(http::field::content_length), std::to_string(get.body().size())) << path;
    EXPECT_TRUE(head.body().empty()) << path;
  }
  EXPECT_EQ(Call(http::verb::head, "/api/v1/documents/" + id, {}).status(), 401u)
      << "HEAD asks for the GET's credentials";
  EXPECT_EQ(Call(http::verb::head, "/api/v1/documents/999999", Alice()).status(), 404u);
}

TEST_P(ApiTest, InvalidTransitionsAre409) {
  const std::string id = Create(Alice());
  ExpectProblem(Post("/api/v1/documents/" + id + "/withdraw", Alice()), 409, "INVALID_STATE");
  const std::string review = Submit(id, Alice());
  ExpectProblem(Post("/api/v1/documents/" + id + "/submit", Alice()), 409, "INVALID_STATE");
  ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, Alice(), R"({"title": "t2"})"),
                409, "INVALID_STATE");
  ASSERT_EQ(Post("/api/v1/reviews/" + review + "/approve", Bob()).status(), 200u);
  ExpectProblem(Post("/api/v1/reviews/" + review + "/approve", Bob()), 409, "INVALID_STATE");
  ExpectProblem(Post("/api/v1/documents/" + id + "/submit", Alice()), 409, "INVALID_STATE");
}

TEST_P(GatedApiTest, HeldLocksAre409LockBusyWithRetryAfter) {
  const std::string id = Create(Alice());
  const auto held = app_->internals().gate.Acquire("doc:submit:" + id, 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  const auto busy = Post("/api/v1/documents/" + id + "/submit", Alice());
  ExpectProblem(busy, 409, "LOCK_BUSY");
  EXPECT_GE(std::stoi(busy.header(http::field::retry_after)), 1);
  EXPECT_EQ(busy.header(http::field::retry_after), "8");
  ExpectProblem(Post("/api/v1/documents/" + id + "/withdraw", Alice()), 409, "LOCK_BUSY");
  ASSERT_EQ(app_->internals().gate.Release("doc:submit:" + id, held.token),
            ReleaseOutcome::kReleased);
  const std::string review = Submit(id, Alice());

  const auto review_lock = app_->internals().gate.Acquire("doc:review:" + review, 10s);
  ASSERT_EQ(review_lock.outcome, AcquireOutcome::kAcquired);
  clock_.Advance(2500ms);
  const auto busy_review = Post("/api/v1/reviews/" + review + "/approve", Bob());
  ExpectProblem(busy_review, 409, "LOCK_BUSY");
  EXPECT_EQ(busy_review.header(http::field::retry_after), "8");  // 7.5 s left, rounded up
  // The key expires by its TTL; nobody has to release it.
  clock_.Advance(7501ms);
  EXPECT_EQ(Post("/api/v1/reviews/" + review + "/approve", Bob()).status(), 200u);
}

TEST_P(ApiTest, StaleIfMatchIs412AndMatchingOrWildcardSucceeds) {
  const std::string id = Create(Alice());
  Headers stale = Alice();
  stale.emplace_back("If-Match", "\"7\"");
  ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, stale, R"({"title": "t"})"), 412,
                "VERSION_MISMATCH");
  Headers wildcard = Alice();
  wildcard.emplace_back("If-Match", "*");
  EXPECT_EQ(
      Call(http::verb::put, "/api/v1/documents/" + id, wildcard, R"({"title": "t"})").status(),
      200u);
  Headers current = Alice();
  current.emplace_back("If-Match", "\"2\"");
  const auto edited =
      Call(http::verb::put, "/api/v1/documents/" + id, current, R"({"title": "u"})");
  EXPECT_EQ(edited.status(), 200u) << edited.body();
  EXPECT_EQ(edited.json()["version"], 3);
  ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, current, R"({"title": "v"})"), 412,
                "VERSION_MISMATCH");
}

TEST_P(ApiTest, ApproveAcceptsAnEmptyBodyOrAnEmptyObject) {
  const std::string first = Submit(Create(Alice()), Alice());
  EXPECT_EQ(Post("/api/v1/reviews/" + first + "/approve", Bob(), "").status(), 200u);
  const std::string second = Submit(Create(Alice()), Alice());
  EXPECT_EQ(Post("/api/v1/reviews/" + second + "/approve", Bob(), "{}").status(), 200u);
}

TEST_P(ApiTest, BodiesOverTheLimitAre413) {
  const std::string big = R"({"title": "t", "content": ")" + std::string(1024 * 1024, 'x') + "\"}";
  ExpectProblem(Post("/api/v1/documents", Alice(), big), 413, "PAYLOAD_TOO_LARGE");
  // Just under the limit is fine.
  const std::string fits =
      R"({"title": "t", "content": ")" + std::string(1024 * 1024 - 40, 'x') + "\"}";
  ASSERT_LE(fits.size(), 1024u * 1024u);
  EXPECT_EQ(Post("/api/v1/documents", Alice(), fits).status(), 201u);
  // Chunked bodies are held to the same limit.
  HttpClient client(port_);
  std::string chunked =
      "POST /api/v1/documents HTTP/1.1\r\nHost: x\r\nAuthorization: " + Alice()[0].second +
      "\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 17; ++i) chunked += "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
  chunked += "0\r\n\r\n";
  ExpectProblem(client.Raw(chunked), 413, "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(Get("/healthz", {}).status(), 200u);
}

// The answers the HTTP server makes itself, before any handler, speak the request's language too.
TEST_P(ApiTest, TheServersOwnRefusalsAreInTheRequestsLanguage) {
  Headers chinese = Alice();
  chinese.emplace_back("Accept-Language", "zh-CN");
  const std::string big = R"({"title": "t", "content": ")" + std::string(1024 * 1024, 'x') + "\"}";
  const auto too_large = Post("/api/v1/documents", chinese, big);
  ExpectProblem(too_large, 413, "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(too_large.header(http::field::content_language), "zh-CN");
  EXPECT_NE(too_large.body().find("请求体超过"), std::string::npos) << too_large.body();

  HttpClient client(port_);
  const auto huge =
      client.Raw("GET /healthz HTTP/1.1\r\nHost: x\r\nAccept-Language: zh-CN\r\nX-Big: " +
                 std::string(64 * 1024, 'h') + "\r\n\r\n");
  ExpectProblem(huge, 400, "VALIDATION");
  EXPECT_EQ(huge.header(http::field::content_language), "zh-CN");
  EXPECT_NE(huge.body().find("请求头超过"), std::string::npos) << huge.body();
  EXPECT_EQ(Post("/api/v1/documents", Alice(), big).header(http::field::content_language), "en");
}

TEST_P(ApiTest, GarbageAndHugeHeadersAre400AndTheServerKeepsServing) {
  {
    HttpClient client(port_);
    ExpectProblem(client.Raw("GARBAGE\r\n\r\n"), 400, "VALIDATION");
  }
  {
    HttpClient client(port_);
    ExpectProblem(client.Raw("GET /healthz HTTP/1.1\r\nHost x\r\n\r\n"), 400, "VALIDATION");
  }
  {
    HttpClient client(port_);
    ExpectProblem(client.Raw("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " +
                             std::string(64 * 1024, 'a') + "\r\n\r\n"),
                  400, "VALIDATION");
  }
  {
    HttpClient client(port_);
    ExpectProblem(client.Raw("POST /api/v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: "
                             "99999999999999999999999\r\n\r\n"),
                  400, "VALIDATION");
  }
  EXPECT_EQ(Get("/healthz", {}).status(), 200u);
}

TEST_P(ApiTest, ExpectContinueIsHonoured) {
  HttpClient client(port_);
  const std::string body = R"({"title": "t", "content": "c"})";
  const auto reply = client.Raw(
      "POST /api/v1/documents HTTP/1.1\r\nHost: x\r\nAuthorization: " + Alice()[0].second +
      "\r\nExpect: 100-continue\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
      body);
  EXPECT_EQ(reply.status(), 100u);
  EXPECT_EQ(client.Read().status(), 201u);
}

// An unauthenticated upload is refused as soon as its header is in: the 401 comes while the
// client still holds its 1 MiB body back, and the body is never read. The same holds for a
// route that does not exist.
TEST_P(SqliteApiTest, AnUnauthenticatedUploadIs401BeforeItsBodyIsSent) {
  const std::string header =
      "HTTP/1.1\r\nHost: x\r\nAccept-Language: zh-CN\r\n"
      "Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n";
  HttpClient client(port_);
  const auto refused = client.Raw("POST /api/v1/documents " + header);
  ExpectProblem(refused, 401, "UNAUTHENTICATED");
  EXPECT_EQ(refused.header(http::field::content_language), "zh-CN");
  EXPECT_FALSE(refused.header(http::field::www_authenticate).empty());
  EXPECT_TRUE(client.WaitForClose());
  HttpClient nowhere(port_);
  ExpectProblem(nowhere.Raw("POST /api/v1/nowhere " + header), 404, "NOT_FOUND");
}

TEST_P(SqliteApiTest, DatabaseBusyBeyondItsTimeoutIs503WithRetryAfter) {
  app_.reset();
  Config config = MakeConfig();
  config.database.busy_timeout = 200ms;
  app_ = std::make_unique<Application>(config, &clock_);
  app_->Start();
  port_ = app_->port();
  const std::string id = Create(Alice());
  {
    auto writer = app_->internals().stores.documents->Begin();  // holds SQLite's single writer slot
    const auto reply = Post("/api/v1/documents", Alice(), R"({"title": "t", "content": "c"})");
    ExpectProblem(reply, 503, "UNAVAILABLE");
    EXPECT_GE(std::stoi(reply.header(http::field::retry_after)), 1);
    EXPECT_EQ(Get("/api/v1/documents/" + id, Alice()).status(), 200u);  // reads still work
  }
  EXPECT_EQ(Post("/api/v1/documents", Alice(), R"({"title": "t", "content": "c"})").status(), 201u);
}

}  // namespace
}  // namespace docgate::api_e2e
