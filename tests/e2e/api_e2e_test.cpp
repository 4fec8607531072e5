// End-to-end: the real Application (in-process gate and events, the Beast server on port 0) on
// every backend (SQLite; PostgreSQL with and without the gate), driven over HTTP. Walks every route
// of shared/API.md that this build serves and every error code reachable in it.

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

#include "e2e/e2e_server.h"
#include "e2e/token_forge.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using e2e::Headers;
using e2e::HttpClient;
using e2e::HttpReply;
using nlohmann::json;
namespace http = boost::beast::http;

// Every backend.
class ApiTest : public e2e::ServerTest {};
// Backends with the gate on (LOCK_BUSY exists only there).
class GatedApiTest : public e2e::ServerTest {};
// What only the embedded default has: the generated secret file, SQLite's single writer.
class SqliteApiTest : public e2e::ServerTest {};

TEST_P(ApiTest, HealthAndReadinessNeedNoToken) {
  const auto health = Get("/healthz", {});
  EXPECT_EQ(health.status(), 200u);
  EXPECT_EQ(health.json(), json({{"status", "ok"}}));
  const auto ready = Get("/readyz", {});
  EXPECT_EQ(ready.status(), 200u);
  const json expected = {
      {"status", "ok"},
      {"checks",
       {{"database", "ok"}, {"lock", GetParam().gate ? "ok" : "disabled"}, {"broker", "disabled"}}}};
  EXPECT_EQ(ready.json(), expected);
}

TEST_P(SqliteApiTest, GeneratedJwtSecretIsKeptBesideTheDatabaseWithMode0600) {
  const auto file = dir_ / "data" / "jwt_secret";
  ASSERT_TRUE(std::filesystem::exists(file));
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(app_->jwt_secret().size(), 64u);
}

TEST_P(ApiTest, CreateAnswers201WithLocationAndETagThenGetReturnsIt) {
  const auto created = Post("/api/v1/documents", Alice(),
                            R"({"title": "Onboarding guide", "content": "hello"})");
  ASSERT_EQ(created.status(), 201u) << created.body();
  const json doc = created.json();
  const std::string id = doc["id"];
  EXPECT_EQ(created.header(http::field::location), "/api/v1/documents/" + id);
  EXPECT_EQ(created.header(http::field::etag), "\"1\"");
  EXPECT_EQ(created.header(http::field::content_type), "application/json");
  EXPECT_EQ(doc["title"], "Onboarding guide");
  EXPECT_EQ(doc["status"], "draft");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["author_id"], "alice");
  EXPECT_TRUE(doc["current_review_id"].is_null());
  EXPECT_TRUE(doc["approved_version"].is_null());
  EXPECT_EQ(doc["ingest_status"], "none");
  EXPECT_EQ(doc["created_at"].get<std::string>().size(), 24u);  // 2026-11-29T14:00:00.123Z
  EXPECT_EQ(doc["created_at"].get<std::string>().back(), 'Z');

  const auto got = Get("/api/v1/documents/" + id, Bob());
  ASSERT_EQ(got.status(), 200u);
  EXPECT_EQ(got.header(http::field::etag), "\"1\"");
  EXPECT_EQ(got.json(), doc);

  const auto content = Get("/api/v1/documents/" + id + "/content", Bob());
  ASSERT_EQ(content.status(), 200u);
  EXPECT_EQ(content.json(), json({{"document_id", id}, {"version", 1}, {"content", "hello"}}));
}

TEST_P(ApiTest, LifecycleCreateSubmitApprove) {
  const std::string id = Create(Alice());
  ExpectProblem(Get("/api/v1/documents/" + id + "/preview", Bob()), 404, "NOT_FOUND");

  const auto submitted = Post("/api/v1/documents/" + id + "/submit", Alice());
  ASSERT_EQ(submitted.status(), 200u) << submitted.body();
  const json review = submitted.json()["review"];
  const std::string review_id = review["id"];
  EXPECT_EQ(submitted.json()["document"]["status"], "pending_review");
  EXPECT_EQ(submitted.json()["document"]["current_review_id"], review_id);
  EXPECT_EQ(review["status"], "pending");
  EXPECT_EQ(review["document_id"], id);
  EXPECT_EQ(review["document_version"], 1);
  EXPECT_EQ(review["submitted_by"], "alice");
  EXPECT_TRUE(review["decided_by"].is_null());

  const auto queue = Get("/api/v1/reviews", Bob());
  ASSERT_EQ(queue.status(), 200u);
  ASSERT_EQ(queue.json()["items"].size(), 1u);
  EXPECT_EQ(queue.json()["items"][0]["id"], review_id);
  EXPECT_TRUE(queue.json()["next"].is_null());

  const auto approved = Post("/api/v1/reviews/" + review_id + "/approve", Bob(),
                             R"({"comment": "clear and correct"})");
  ASSERT_EQ(approved.status(), 200u) << approved.body();
  const json doc = approved.json()["document"];
  EXPECT_EQ(doc["status"], "approved");
  EXPECT_EQ(doc["approved_version"], 1);
  EXPECT_TRUE(doc["current_review_id"].is_null());
  EXPECT_EQ(approved.json()["review"]["status"], "approved");
  EXPECT_EQ(approved.json()["review"]["decided_by"], "bob");
  EXPECT_EQ(approved.json()["review"]["comment"], "clear and correct");

  const auto got_review = Get("/api/v1/reviews/" + review_id, Alice());
  ASSERT_EQ(got_review.status(), 200u);
  EXPECT_EQ(got_review.json(), approved.json()["review"]);

  // The preview is the consumers' projection of the approval: moments later.
  EXPECT_EQ(WaitForIngestStatus(id, "done")["approved_version"], 1);
  const auto preview = Get("/api/v1/documents/" + id + "/preview", Alice());
  ASSERT_EQ(preview.status(), 200u) << preview.body();
  EXPECT_EQ(preview.json()["document_id"], id);
  EXPECT_EQ(preview.json()["version"], 1);
  EXPECT_EQ(preview.json()["content"], "# Onboarding guide");
  EXPECT_TRUE(preview.json()["approved_at"].is_string());

  EXPECT_TRUE(Get("/api/v1/reviews", Bob()).json()["items"].empty());
  const auto events = EventsWhenDelivered(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, EventType::kSubmitted);
  EXPECT_EQ(events[1].type, EventType::kApproved);
  EXPECT_EQ(std::to_string(events[1].review_id), review_id);
  EXPECT_EQ(events[1].actor_id, "bob");
}

TEST_P(ApiTest, LifecycleRejectEditResubmitApprove) {
  const std::string id = Create(Alice());
  const std::string first = Submit(id, Alice());
  ExpectProblem(Post("/api/v1/reviews/" + first + "/reject", Bob(), R"({})"), 400, "VALIDATION");
  ExpectProblem(Post("/api/v1/reviews/" + first + "/reject", Bob(), R"({"reason": ""})"), 400,
                "VALIDATION");
  const auto rejected =
      Post("/api/v1/reviews/" + first + "/reject", Bob(), R"({"reason": "needs examples"})");
  ASSERT_EQ(rejected.status(), 200u) << rejected.body();
  EXPECT_EQ(rejected.json()["document"]["status"], "rejected");
  EXPECT_EQ(rejected.json()["review"]["status"], "rejected");
  EXPECT_EQ(rejected.json()["review"]["comment"], "needs examples");

  Headers if_match = Alice();
  if_match.emplace_back("If-Match", "\"1\"");
  const auto edited = Call(http::verb::put, "/api/v1/documents/" + id, if_match,
                           R"({"content": "# Onboarding guide\n\nWith examples."})");
  ASSERT_EQ(edited.status(), 200u) << edited.body();
  EXPECT_EQ(edited.json()["status"], "draft");
  EXPECT_EQ(edited.json()["version"], 2);
  EXPECT_EQ(edited.header(http::field::etag), "\"2\"");

  const std::string second = Submit(id, Alice());
  EXPECT_NE(second, first);
  EXPECT_EQ(Get("/api/v1/reviews/" + second, Bob()).json()["document_version"], 2);
  const auto approved = Post("/api/v1/reviews/" + second + "/approve", Bob());
  ASSERT_EQ(approved.status(), 200u) << approved.body();
  EXPECT_EQ(approved.json()["document"]["approved_version"], 2);
  EXPECT_TRUE(approved.json()["review"]["comment"].is_null());

  const auto history = Get("/api/v1/documents/" + id + "/reviews", Alice());
  ASSERT_EQ(history.status(), 200u);
  ASSERT_EQ(history.json()["items"].size(), 2u);
  EXPECT_EQ(history.json()["items"][0]["id"], second);  // newest first
  EXPECT_EQ(history.json()["items"][0]["status"], "approved");
  EXPECT_EQ(history.json()["items"][1]["id"], first);
  EXPECT_EQ(history.json()["items"][1]["status"], "rejected");

  WaitForIngestStatus(id, "done");
  EXPECT_EQ(Get("/api/v1/documents/" + id + "/preview", Bob()).json()["content"],
            "# Onboarding guide\n\nWith examples.");
  // A decided review never changes again.
  ExpectProblem(Post("/api/v1/reviews/" + first + "/approve", Bob()), 409, "INVALID_STATE");
  ExpectProblem(Post("/api/v1/reviews/" + second + "/reject", Bob(), R"({"reason": "late"})"), 409,
                "INVALID_STATE");
}

TEST_P(ApiTest, WithdrawReturnsTheDocumentToDraft) {
  const std::string id = Create(Alice());
  const std::string review = Submit(id, Alice());
  ExpectProblem(Post("/api/v1/documents/" + id + "/withdraw", Carol()), 403, "FORBIDDEN");
  const auto withdrawn = Post("/api/v1/documents/" + id + "/withdraw", Alice());
  ASSERT_EQ(withdrawn.status(), 200u) << withdrawn.body();
  EXPECT_EQ(withdrawn.json()["document"]["status"], "draft");
  EXPECT_TRUE(withdrawn.json()["document"]["current_review_id"].is_null());
  EXPECT_EQ(withdrawn.json()["review"]["id"], review);
  EXPECT_EQ(withdrawn.json()["review"]["status"], "withdrawn");
  ExpectProblem(Post("/api/v1/documents/" + id + "/withdraw", Alice()), 409, "INVALID_STATE");
  ExpectProblem(Post("/api/v1/reviews/" + review + "/approve", Bob()), 409, "INVALID_STATE");
  const auto queue = Get("/api/v1/reviews?status=withdrawn", Bob());
  ASSERT_EQ(queue.json()["items"].size(), 1u);
  EXPECT_EQ(queue.json()["items"][0]["id"], review);
}

TEST_P(ApiTest, DocumentListPaginatesNewestFirstWithCursors) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Create(i % 2 == 0 ? Alice() : Carol(), "Doc " + std::to_string(i)));
  std::vector<std::string> seen;
  std::string target = "/api/v1/documents?limit=2";
  for (int page = 0; page < 10; ++page) {
    const auto reply = Get(target, Bob());
    ASSERT_EQ(reply.status(), 200u) << reply.body();
    const json body = reply.json();
    EXPECT_LE(body["items"].size(), 2u);
    for (const auto& item : body["items"]) seen.push_back(item["id"]);
    if (body["next"].is_null()) break;
    target = "/api/v1/documents?limit=2&after=" + body["next"].get<std::string>();
  }
  EXPECT_EQ(seen, std::vector<std::string>(ids.rbegin(), ids.rend()));

  const auto by_carol = Get("/api/v1/documents?author_id=carol", Bob()).json()["items"];
  ASSERT_EQ(by_carol.size(), 2u);
  for (const auto& item : by_carol) EXPECT_EQ(item["author_id"], "carol");

  Submit(ids[0], Alice());
  const auto pending = Get("/api/v1/documents?status=pending_review", Bob()).json()["items"];
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0]["id"], ids[0]);
  EXPECT_EQ(Get("/api/v1/documents?status=draft&author_id=alice", Bob()).json()["items"].size(), 2u);
  EXPECT_EQ(Get("/api/v1/documents?limit=100", Bob()).json()["items"].size(), 5u);
}

TEST_P(ApiTest, ReviewQueuePaginatesOldestFirst) {
  std::vector<std::string> reviews;
  for (int i = 0; i < 3; ++i) reviews.push_back(Submit(Create(Alice()), Alice()));
  std::vector<std::string> seen;
  std::string target = "/api/v1/reviews?status=pending&limit=2";
  for (int page = 0; page < 10; ++page) {
    const auto body = Get(target, Bob()).json();
    for (const auto& item : body["items"]) seen.push_back(item["id"]);
    if (body["next"].is_null()) break;
    target = "/api/v1/reviews?limit=2&after=" + body["next"].get<std::string>();
  }
  EXPECT_EQ(seen, reviews);
}

TEST_P(ApiTest, KeepAliveServesTwoRequestsOnOneConnection) {
  HttpClient client(port_);
  const auto first = client.Request(http::verb::get, "/healthz");
  const auto second = client.Request(http::verb::get, "/api/v1/documents", {}, Alice());
  EXPECT_EQ(first.status(), 200u);
  EXPECT_EQ(second.status(), 200u);
  EXPECT_NE(first.header(http::field::connection), "close");
  EXPECT_EQ(client.Request(http::verb::get, "/readyz").status(), 200u);
}

TEST_P(ApiTest, MalformedBodiesAre400Validation) {
  for (const char* body : {"", "{", "not json", "[1, 2]", "\"title\"", "42", "null",
                           R"({"title": 1, "content": "x"})", R"({"title": "x", "content": 5})",
                           R"({"title": "x"})", R"({"content": "x"})", R"({"title": null, "content": "x"})",
                           R"({"title": "", "content": "x"})", "{\"title\": \"\xff\", \"content\": \"x\"}"}) {
    ExpectProblem(Post("/api/v1/documents", Alice(), body), 400, "VALIDATION");
  }
  const std::string long_title(201, 'x');
  ExpectProblem(Post("/api/v1/documents", Alice(), json{{"title", long_title}, {"content", ""}}.dump()),
                400, "VALIDATION");
  EXPECT_EQ(Post("/api/v1/documents", Alice(),
                 json{{"title", std::string(200, 'x')}, {"content", ""}}.dump())
                .status(),
            201u);

  const std::string id = Create(Alice());
  for (const char* body : {"", "[]", R"({"title": 5})", R"({"content": false})", R"({})",
                           R"({"title": null})"}) {
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
                            "limit=-1", "limit=99999999999", "after=abc", "after=0", "after=",
                            "author_id=", "unknown=1", "limit=1&limit=2", "status=%zz"}) {
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
      "not-the-secret", TokenClaims{"alice", {"admin"}, std::nullopt, clock_.Now() + 1h}, clock_.Now());
  ExpectProblem(Get(target, {{"Authorization", "Bearer " + forged}}), 401, "UNAUTHENTICATED");
  // "alg": "none", built by hand: libjwt refuses to sign it.
  const std::string none =
      e2e::SigningInput(R"({"alg":"none","typ":"JWT"})", R"({"sub":"alice","roles":["admin"]})") +
      ".";
  ExpectProblem(Get(target, {{"Authorization", "Bearer " + none}}), 401, "UNAUTHENTICATED");
  ExpectProblem(Post(target, {{"Authorization", "Bearer " + none}},
                     R"({"title": "t", "content": "c"})"),
                401, "UNAUTHENTICATED");
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
  for (const char* path : {"/", "/nope", "/api/v1", "/api/v1/documents/", "/api/v1/documents/1/x",
                           "/api/v2/documents"}) {
    ExpectProblem(Get(path, Alice()), 404, "NOT_FOUND");
  }
}

TEST_P(ApiTest, KnownPathsWithTheWrongMethodAre405WithAllow) {
  const auto reply = Call(http::verb::delete_, "/api/v1/documents/1", Alice());
  EXPECT_EQ(reply.status(), 405u);
  EXPECT_EQ(reply.header(http::field::allow), "GET, PUT");
  EXPECT_EQ(reply.header(http::field::content_type), "application/problem+json");
  EXPECT_EQ(Call(http::verb::patch, "/healthz", {}).header(http::field::allow), "GET");
  EXPECT_EQ(Call(http::verb::get, "/api/v1/reviews/1/approve", Bob()).header(http::field::allow),
            "POST");
  EXPECT_EQ(Call(http::verb::put, "/api/v1/documents", Alice(), "{}").header(http::field::allow),
            "POST, GET");
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
  const auto held = app_->gate().Acquire("doc:submit:" + id, 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  const auto busy = Post("/api/v1/documents/" + id + "/submit", Alice());
  ExpectProblem(busy, 409, "LOCK_BUSY");
  EXPECT_GE(std::stoi(busy.header(http::field::retry_after)), 1);
  EXPECT_EQ(busy.header(http::field::retry_after), "8");
  ExpectProblem(Post("/api/v1/documents/" + id + "/withdraw", Alice()), 409, "LOCK_BUSY");
  ASSERT_EQ(app_->gate().Release("doc:submit:" + id, held.token), ReleaseOutcome::kReleased);
  const std::string review = Submit(id, Alice());

  const auto review_lock = app_->gate().Acquire("doc:review:" + review, 10s);
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
  EXPECT_EQ(Call(http::verb::put, "/api/v1/documents/" + id, wildcard, R"({"title": "t"})").status(),
            200u);
  Headers current = Alice();
  current.emplace_back("If-Match", "\"2\"");
  const auto edited = Call(http::verb::put, "/api/v1/documents/" + id, current, R"({"title": "u"})");
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
  const std::string fits = R"({"title": "t", "content": ")" +
                           std::string(1024 * 1024 - 40, 'x') + "\"}";
  ASSERT_LE(fits.size(), 1024u * 1024u);
  EXPECT_EQ(Post("/api/v1/documents", Alice(), fits).status(), 201u);
  // Chunked bodies are held to the same limit.
  HttpClient client(port_);
  std::string chunked = "POST /api/v1/documents HTTP/1.1\r\nHost: x\r\nAuthorization: " +
                        Alice()[0].second + "\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 17; ++i) chunked += "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
  chunked += "0\r\n\r\n";
  ExpectProblem(client.Raw(chunked), 413, "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(Get("/healthz", {}).status(), 200u);
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
  const auto reply = client.Raw("POST /api/v1/documents HTTP/1.1\r\nHost: x\r\nAuthorization: " +
                                Alice()[0].second + "\r\nExpect: 100-continue\r\nContent-Length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(reply.status(), 100u);
  EXPECT_EQ(client.Read().status(), 201u);
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
    auto writer = app_->stores().documents->Begin();  // holds SQLite's single writer slot
    const auto reply = Post("/api/v1/documents", Alice(), R"({"title": "t", "content": "c"})");
    ExpectProblem(reply, 503, "UNAVAILABLE");
    EXPECT_GE(std::stoi(reply.header(http::field::retry_after)), 1);
    EXPECT_EQ(Get("/api/v1/documents/" + id, Alice()).status(), 200u);  // reads still work
  }
  EXPECT_EQ(Post("/api/v1/documents", Alice(), R"({"title": "t", "content": "c"})").status(), 201u);
}

TEST_P(ApiTest, GracefulStopFinishesInFlightRequestsAndClosesIdleConnections) {
  const std::string id = Create(Alice());
  HttpClient idle(port_);
  ASSERT_EQ(idle.Request(http::verb::get, "/healthz").status(), 200u);

  const Headers alice = Alice();
  clock_.ArmOnce();  // the next Now() (the in-flight request's token check) blocks
  HttpReply in_flight;
  std::string request_error;
  std::thread request([&] {
    try {
      HttpClient client(port_);
      in_flight = client.Request(http::verb::get, "/api/v1/documents/" + id, {}, alice);
    } catch (const std::exception& e) {
      request_error = e.what();
    }
  });
  ASSERT_TRUE(clock_.WaitUntilBlocked());

  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    app_->Stop();
    stopped = true;
  });
  EXPECT_TRUE(idle.WaitForClose());  // idle keep-alive connections are closed at once
  EXPECT_FALSE(stopped);             // ... while the in-flight request holds Stop
  bool served_after_stop = true;
  try {
    HttpClient late(port_, 2s);
    served_after_stop = late.Request(http::verb::get, "/healthz").status() == 200u;
  } catch (const std::exception&) {
    served_after_stop = false;
  }
  EXPECT_FALSE(served_after_stop);

  clock_.Release();
  request.join();
  stopper.join();
  EXPECT_TRUE(stopped);
  ASSERT_EQ(request_error, "");
  EXPECT_EQ(in_flight.status(), 200u) << in_flight.body();
  EXPECT_EQ(in_flight.json()["id"], id);
  EXPECT_EQ(in_flight.header(http::field::connection), "close");
}

TEST_P(ApiTest, EventsStillInTheOutboxAreDeliveredAfterARestart) {
  consumer_.FailNext(1'000'000);  // as if the process died before delivering anything
  const std::string id = Create(Alice());
  const std::string review = Submit(id, Alice());
  ASSERT_EQ(Post("/api/v1/reviews/" + review + "/approve", Bob(), "{}").status(), 200u);
  app_->Stop();
  consumer_.FailNext(0);
  EXPECT_TRUE(consumer_.events().empty());

  StartApp(MakeConfig());  // same database
  const auto events = EventsWhenDelivered(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, EventType::kSubmitted);
  EXPECT_EQ(events[1].type, EventType::kApproved);
  EXPECT_EQ(std::to_string(events[1].review_id), review);
  EXPECT_EQ(events[1].actor_id, "bob");
  EXPECT_NE(events[0].event_id, events[1].event_id);
}

INSTANTIATE_TEST_SUITE_P(Backends, ApiTest, e2e::AllBackends(), e2e::BackendName);
INSTANTIATE_TEST_SUITE_P(Backends, GatedApiTest, e2e::GatedBackends(), e2e::BackendName);
INSTANTIATE_TEST_SUITE_P(Backends, SqliteApiTest, ::testing::Values(e2e::kSqlite),
                         e2e::BackendName);

}  // namespace
}  // namespace docgate
