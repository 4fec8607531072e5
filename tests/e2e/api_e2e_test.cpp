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

#include "e2e/api_e2e_fixture.h"
#include "e2e/e2e_server.h"
#include "e2e/token_forge.h"

namespace docgate::api_e2e {
namespace {

TEST_P(ApiTest, HealthAndReadinessNeedNoToken) {
  const auto health = Get("/healthz", {});
  EXPECT_EQ(health.status(), 200u);
  EXPECT_EQ(health.json(), json({{"status", "ok"}}));
  const auto ready = Get("/readyz", {});
  EXPECT_EQ(ready.status(), 200u);
  const json expected = {{"status", "ok"},
                         {"checks",
                          {{"database", "ok"},
                           {"lock", GetParam().gate ? "ok" : "disabled"},
                           {"broker", "disabled"},
                           {"embeddings", "off"},
                           {"identity", "disabled"}}}};
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
  const auto created =
      Post("/api/v1/documents", Alice(), R"({"title": "Onboarding guide", "content": "hello"})");
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

// Issue 39: `format` is markdown unless the author says text, on create or by a PUT; a change of
// format alone is an edit.
TEST_P(ApiTest, TheFormatIsSetOnCreateAndChangedByAPut) {
  const auto text =
      Post("/api/v1/documents", Alice(),
           json{{"title", "值班记录"}, {"content", "# 不是标题"}, {"format", "text"}}.dump());
  ASSERT_EQ(text.status(), 201u) << text.body();
  EXPECT_EQ(text.json()["format"], "text");
  const std::string id = text.json()["id"];
  EXPECT_EQ(Get("/api/v1/documents/" + id, Bob()).json()["format"], "text");
  const auto changed = Call(http::verb::put, "/api/v1/documents/" + id, Alice(),
                            json{{"format", "markdown"}}.dump());
  ASSERT_EQ(changed.status(), 200u) << changed.body();
  EXPECT_EQ(changed.json()["format"], "markdown");
  EXPECT_EQ(Get("/api/v1/documents/" + id, Bob()).json()["format"], "markdown");
  EXPECT_EQ(Get("/api/v1/documents/" + id + "/content", Bob()).json()["content"], "# 不是标题")
      << "the content is what it was";
  EXPECT_EQ(Get("/api/v1/documents/" + Create(Alice()), Bob()).json()["format"], "markdown");
}

TEST_P(ApiTest, ARevisionKeepsTheApprovedVersionPublishedAndShowsTheHistory) {
  const std::string id = Create(Alice(), "\u5165\u804c\u6307\u5357");  // 入职指南
  ASSERT_EQ(Post("/api/v1/reviews/" + Submit(id, Alice()) + "/approve", Bob()).status(), 200u);
  WaitForIngestStatus(id, "done");

  Headers if_match = Alice();
  if_match.emplace_back("If-Match", "\"1\"");
  const std::string revised = "\u7b2c\u4e8c\u7248\uff1a\u7533\u8bf7 VPN";  // 第二版：申请 VPN
  const auto edited =
      Call(http::verb::put, "/api/v1/documents/" + id, if_match, json{{"content", revised}}.dump());
  ASSERT_EQ(edited.status(), 200u) << edited.body();
  EXPECT_EQ(edited.json()["status"], "draft");
  EXPECT_EQ(edited.json()["version"], 2);
  EXPECT_EQ(edited.json()["approved_version"], 1);
  EXPECT_EQ(edited.json()["ingest_status"], "done");
  EXPECT_EQ(edited.header(http::field::etag), "\"2\"");
  EXPECT_EQ(Get("/api/v1/documents/" + id + "/preview", Bob()).json()["version"], 1);
  EXPECT_EQ(Get("/api/v1/documents/" + id + "/content", Bob()).json()["content"], revised);

  const std::string review = Submit(id, Alice());
  const auto history = Get("/api/v1/documents/" + id + "/versions", Bob());
  ASSERT_EQ(history.status(), 200u) << history.body();
  const json items = history.json()["items"];
  ASSERT_EQ(items.size(), 2u) << history.body();
  EXPECT_EQ(items[0]["version"], 2);
  EXPECT_EQ(items[0]["edited_by"], "alice");
  EXPECT_EQ(items[0]["review_id"], review);
  EXPECT_EQ(items[0]["review_status"], "pending");
  EXPECT_EQ(items[1]["version"], 1);
  EXPECT_EQ(items[1]["title"], "\u5165\u804c\u6307\u5357");
  EXPECT_EQ(items[1]["review_status"], "approved");
  EXPECT_EQ(items[1]["created_at"].get<std::string>().size(), 24u);

  const auto v1 = Get("/api/v1/documents/" + id + "/versions/1", Bob());
  ASSERT_EQ(v1.status(), 200u) << v1.body();
  EXPECT_EQ(v1.json(), json({{"document_id", id},
                             {"version", 1},
                             {"title", "\u5165\u804c\u6307\u5357"},
                             {"content", "# \u5165\u804c\u6307\u5357"}}));
  EXPECT_EQ(Get("/api/v1/documents/" + id + "/versions/2", Bob()).json()["content"], revised);
  ExpectProblem(Get("/api/v1/documents/" + id + "/versions/3", Bob()), 404, "NOT_FOUND");
  for (const char* bad : {"0", "-1", "01", "abc", "2147483648"}) {
    ExpectProblem(Get("/api/v1/documents/" + id + "/versions/" + bad, Bob()), 400, "VALIDATION");
  }
  ExpectProblem(Get("/api/v1/documents/9999999/versions", Bob()), 404, "NOT_FOUND");
  ExpectProblem(Get("/api/v1/documents/" + id + "/versions", {}), 401, "UNAUTHENTICATED");
  ExpectProblem(Call(http::verb::put, "/api/v1/documents/" + id, Alice(), R"({"title": "x"})"), 409,
                "INVALID_STATE");  // under review

  ASSERT_EQ(Post("/api/v1/reviews/" + review + "/approve", Bob()).status(), 200u);
  EXPECT_EQ(Get("/api/v1/documents/" + id + "/preview", Bob()).json()["content"], revised)
      << "the preview reads its own writes";
  WaitForIngestStatus(id, "done");
  const auto hits = Get("/api/v1/search?q=vpn", Bob());
  ASSERT_EQ(hits.status(), 200u);
  ASSERT_EQ(hits.json()["items"].size(), 1u) << hits.body();
  EXPECT_EQ(hits.json()["items"][0]["version"], 2);
}

// Issue 36, item 7: an admin drafts a revision, the author edits on top of it (the admin's draft is
// not kept); the history names both as editors of the kept version, and four eyes keeps both out.
TEST_P(ApiTest, TheHistoryNamesEveryEditorOfAVersionEvenOfADraftItReplaced) {
  const std::string id = Create(Alice(), "\u5165\u804c\u6307\u5357");  // 入职指南
  ASSERT_EQ(Post("/api/v1/reviews/" + Submit(id, Alice()) + "/approve", Bob()).status(), 200u);
  const auto put = [&](Headers who, int version, const std::string& content) {
    who.emplace_back("If-Match", "\"" + std::to_string(version) + "\"");
    return Call(http::verb::put, "/api/v1/documents/" + id, who, json{{"content", content}}.dump());
  };
  ASSERT_EQ(put(Admin(), 1, "\u7ba1\u7406\u5458\u7684\u8349\u7a3f").status(),
            200u);  // 管理员的草稿
  ASSERT_EQ(put(Alice(), 2, "\u4f5c\u8005\u7684\u4fee\u8ba2").status(), 200u);  // 作者的修订
  const std::string review = Submit(id, Alice());

  const auto history = Get("/api/v1/documents/" + id + "/versions", Bob());
  ASSERT_EQ(history.status(), 200u) << history.body();
  const json items = history.json()["items"];
  ASSERT_EQ(items.size(), 2u) << "the admin's draft 2 is not kept: " << history.body();
  EXPECT_EQ(items[0]["version"], 3);
  EXPECT_EQ(items[0]["edited_by"], "alice");
  EXPECT_EQ(items[0]["editors"], json({"root", "alice"})) << history.body();
  EXPECT_EQ(items[1]["editors"], json({"alice"}));
  ExpectProblem(Post("/api/v1/reviews/" + review + "/approve", Admin()), 403, "SELF_REVIEW");
}

// Issue 16: a Chinese word inside a longer run is found, its place in the snippet is given in code
// points, and the search says which mode ran; modes that need embeddings are refused without them.
TEST_P(ApiTest, ChineseSearchHighlightsTheMatchInCodePoints) {
  const std::string title = "\u6d88\u606f\u961f\u5217\u8fd0\u7ef4\u624b\u518c";  // 消息队列运维手册
  const std::string content =  // 消费失败的消息重试三次后进入死信队列。
      "\u6d88\u8d39\u5931\u8d25\u7684\u6d88\u606f\u91cd\u8bd5\u4e09\u6b21\u540e\u8fdb"
      "\u5165\u6b7b\u4fe1\u961f\u5217\u3002";
  const auto created =
      Post("/api/v1/documents", Alice(), json{{"title", title}, {"content", content}}.dump());
  ASSERT_EQ(created.status(), 201u) << created.body();
  const std::string id = created.json()["id"];
  const std::string review = Submit(id, Alice());
  ASSERT_EQ(Post("/api/v1/reviews/" + review + "/approve", Bob()).status(), 200u);
  WaitForIngestStatus(id, "done");

  const std::string dead_letter = "%E6%AD%BB%E4%BF%A1%E9%98%9F%E5%88%97";  // 死信队列
  const auto hits = Get("/api/v1/search?q=" + dead_letter, Bob());
  ASSERT_EQ(hits.status(), 200u) << hits.body();
  EXPECT_EQ(hits.json()["mode"], "keyword");
  ASSERT_EQ(hits.json()["items"].size(), 1u) << hits.body();
  const json hit = hits.json()["items"][0];
  EXPECT_EQ(hit["document_id"], id);
  EXPECT_EQ(hit["title"], title);
  EXPECT_EQ(hit["snippet"], content);
  EXPECT_EQ(hit["highlights"], json::parse("[[14, 18]]")) << "code points, not bytes";
  const auto full_width = Get("/api/v1/search?q=%EF%BC%88%E9%87%8D%E8%AF%95%EF%BC%89&mode=keyword",
                              Bob());  // （重试）
  ASSERT_EQ(full_width.status(), 200u) << full_width.body();
  ASSERT_EQ(full_width.json()["items"].size(), 1u) << full_width.body();
  EXPECT_EQ(full_width.json()["items"][0]["highlights"], json::parse("[[7, 9]]"));
  for (const char* mode : {"semantic", "hybrid", "vector", ""}) {
    ExpectProblem(Get("/api/v1/search?q=x&mode=" + std::string(mode), Bob()), 400, "VALIDATION");
  }
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
  for (int i = 0; i < 5; ++i)
    ids.push_back(Create(i % 2 == 0 ? Alice() : Carol(), "Doc " + std::to_string(i)));
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
  EXPECT_EQ(Get("/api/v1/documents?status=draft&author_id=alice", Bob()).json()["items"].size(),
            2u);
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
}  // namespace docgate::api_e2e
