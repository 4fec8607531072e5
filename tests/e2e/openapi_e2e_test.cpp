// End-to-end: the OpenAPI document describes what docgate really answers. One real docgate on
// SQLite serves its document, then every served route is driven to a success and through the
// error codes reachable here; each real response (status, media type, required headers, body) is
// validated against the document by tests/support/openapi_check.py (python3-jsonschema, 2020-12).

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "adapters/http/openapi.h"
#include "e2e/e2e_server.h"
#include "support/openapi_samples.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using e2e::Headers;
using e2e::HttpReply;
using nlohmann::json;
namespace http = boost::beast::http;

class OpenApiE2eTest : public e2e::ServerTest {
 protected:
  // Sends the request and keeps the response as a sample for the checker.
  HttpReply Record(http::verb verb, const std::string& target, const Headers& headers,
                   const std::string& body = {}) {
    HttpReply reply = Call(verb, target, headers, body);
    samples_.push_back(testing::OpenApiSample(verb, target, reply.message));
    return reply;
  }

  // The checker over the recorded samples against `document`: (exit code, output). The console's
  // sign-in needs an identity provider: console_sign_in_test.cpp drives it to its successes.
  std::pair<int, std::string> Check(const std::string& document) {
    return testing::CheckOpenApiSamples(document, samples_, dir_, "--except /auth/");
  }

  json samples_ = json::array();
};

TEST_P(OpenApiE2eTest, EveryRealResponseMatchesTheDocument) {
  // SQLite's writer held beyond a short busy timeout gives a real 503.
  Config config = MakeConfig();
  config.database.busy_timeout = 200ms;
  StartApp(config);

  const HttpReply spec = Record(http::verb::get, "/openapi.json", {});
  ASSERT_EQ(spec.status(), 200u);
  ASSERT_EQ(spec.body(), OpenApiDocument());
  Record(http::verb::get, "/healthz", {});
  Record(http::verb::get, "/readyz", {});
  Record(http::verb::get, "/metrics", {});
  const HttpReply console = Record(http::verb::get, "/", {});
  Record(http::verb::get, "/console/app.js", {});
  Record(http::verb::get, "/console/console.css", {});
  Record(http::verb::get, "/console/icon.svg", {});
  Record(http::verb::get, "/console/nothing.js", {});
  Record(http::verb::get, "/",
         {{"If-None-Match", std::string(console.message[http::field::etag])}});
  // Sign-in is off here (no provider): what the console asks answers all the same.
  ASSERT_EQ(Record(http::verb::get, "/auth/session", {}).status(), 200u);
  ASSERT_EQ(Record(http::verb::post, "/auth/logout", {}).status(), 200u);
  ASSERT_EQ(Record(http::verb::get, "/auth/login", {}).status(), 404u);

  const auto doc_body = json{{"title", "Onboarding guide"}, {"content", "Welcome aboard."}}.dump();
  const HttpReply created = Record(http::verb::post, "/api/v1/documents", Alice(), doc_body);
  ASSERT_EQ(created.status(), 201u) << created.body();
  const std::string id = created.json()["id"];
  const std::string other = Create(Alice(), "Release checklist");
  // An import (v1.2): a Markdown file as multipart/form-data; a type docgate does not import; an
  // empty file.
  Headers form = Alice();
  form.emplace_back("Content-Type", "multipart/form-data; boundary=openapi-e2e");
  const auto file_part = [](const std::string& filename, const std::string& content) {
    return "--openapi-e2e\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" +
           filename + "\"\r\n\r\n" + content + "\r\n--openapi-e2e--\r\n";
  };
  const HttpReply imported = Record(http::verb::post, "/api/v1/documents/import", form,
                                    file_part("guide.md", "# \xE5\xAF\xBC\xE5\x85\xA5\n"));
  ASSERT_EQ(imported.status(), 201u) << imported.body();
  ASSERT_EQ(Record(http::verb::post, "/api/v1/documents/import", form, file_part("t.csv", "a,b\n"))
                .status(),
            415u);
  ASSERT_EQ(Record(http::verb::post, "/api/v1/documents/import", form, file_part("empty.md", ""))
                .status(),
            422u);
  const HttpReply page = Record(http::verb::get, "/api/v1/documents?limit=1", Bob());
  ASSERT_FALSE(page.json()["next"].is_null()) << page.body();
  Record(http::verb::get, "/api/v1/documents?status=draft&author_id=alice&after=" + other, Bob());
  Record(http::verb::get, "/api/v1/documents/" + id, Bob());
  Headers if_match = Alice();
  if_match.emplace_back("If-Match", "\"1\"");
  ASSERT_EQ(Record(http::verb::put, "/api/v1/documents/" + id, if_match,
                   R"({"content": "Welcome aboard.\n\nRead this first."})")
                .status(),
            200u);
  Record(http::verb::get, "/api/v1/documents/" + id + "/content", Bob());
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/" + id + "/preview", Bob()).status(), 404u);

  const HttpReply submitted =
      Record(http::verb::post, "/api/v1/documents/" + id + "/submit", Alice());
  ASSERT_EQ(submitted.status(), 200u) << submitted.body();
  const std::string review = submitted.json()["review"]["id"];
  // Reviews as teams run them: an assignee, the assigned queue, a comment on a line, the list.
  ASSERT_EQ(Record(http::verb::post, "/api/v1/reviews/" + review + "/assignees", Alice(),
                   R"({"add": ["bob"]})")
                .status(),
            200u);
  Record(http::verb::get, "/api/v1/reviews?assignee=me", Bob());
  const HttpReply comment =
      Record(http::verb::post, "/api/v1/reviews/" + review + "/comments", Bob(),
             R"({"body": "\u7b2c\u4e00\u884c\u8981\u6539", "line": 1})");
  ASSERT_EQ(comment.status(), 201u) << comment.body();
  ASSERT_EQ(Record(http::verb::post, "/api/v1/reviews/" + review + "/comments", Bob(),
                   R"({"body": "x", "line": 99})")
                .status(),
            400u);
  Record(http::verb::get, "/api/v1/reviews/" + review + "/comments?limit=5", Alice());
  Record(http::verb::get, "/api/v1/reviews", Bob());
  Record(http::verb::get, "/api/v1/reviews?status=pending&limit=5", Bob());
  Record(http::verb::get, "/api/v1/reviews/" + review, Alice());
  ASSERT_EQ(Record(http::verb::post, "/api/v1/reviews/" + review + "/approve", Bob(),
                   R"({"comment": "clear and correct"})")
                .status(),
            200u);
  WaitForIngestStatus(id, "done");
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/" + id + "/preview", Bob()).status(), 200u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/search?q=welcome&limit=5", Bob()).json()["items"].size(),
            1u);
  Record(http::verb::get, "/api/v1/search?q=%20", Bob());
  Record(http::verb::get, "/api/v1/documents/" + id + "/reviews", Alice());
  // A revision: the approved document edited again, then its history and a version.
  Headers revise = Alice();
  revise.emplace_back("If-Match", "\"2\"");
  ASSERT_EQ(Record(http::verb::put, "/api/v1/documents/" + id, revise,
                   R"({"content": "\u7b2c\u4e8c\u7248"})")
                .status(),
            200u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/" + id + "/versions", Bob()).status(), 200u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/" + id + "/versions/2", Bob()).status(),
            200u);  // the approved version
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/" + id + "/versions/1", Bob()).status(),
            404u);  // a draft replaced before it was submitted
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/" + id + "/versions/0", Bob()).status(),
            400u);

  const std::string rejected_review = Submit(other, Alice());
  ASSERT_EQ(Record(http::verb::post, "/api/v1/reviews/" + rejected_review + "/reject", Bob(),
                   R"({"reason": "needs examples"})")
                .status(),
            200u);
  const std::string third = Create(Alice(), "FAQ");
  Submit(third, Alice());
  ASSERT_EQ(Record(http::verb::post, "/api/v1/documents/" + third + "/withdraw", Alice()).status(),
            200u);

  // The errors reachable on SQLite without idempotency keys.
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/abc", Bob()).status(), 400u);
  ASSERT_EQ(Record(http::verb::post, "/api/v1/documents", Alice(), "{}").status(), 400u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/" + id, {}).status(), 401u);
  ASSERT_EQ(Record(http::verb::post, "/api/v1/documents", Bob(), doc_body).status(), 403u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/reviews", Alice()).status(), 403u);
  const std::string own = Create(Admin(), "Admin's own");
  const std::string own_review = Submit(own, Admin());
  const HttpReply self =
      Record(http::verb::post, "/api/v1/reviews/" + own_review + "/approve", Admin());
  ExpectProblem(self, 403, "SELF_REVIEW");
  ASSERT_EQ(Record(http::verb::get, "/api/v1/me", Alice()).status(), 200u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/users/alice", Bob()).status(), 200u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/users/nobody-seen", Bob()).status(), 404u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/reviews/999999", Bob()).status(), 404u);
  ASSERT_EQ(Record(http::verb::get, "/api/v1/documents/999999/reviews", Bob()).status(), 404u);
  ASSERT_EQ(Record(http::verb::post, "/api/v1/documents/" + own + "/submit", Admin()).status(),
            409u);
  ASSERT_EQ(
      Record(http::verb::put, "/api/v1/documents/" + own, Admin(), R"({"title": "t"})").status(),
      409u);
  Headers stale = Alice();
  stale.emplace_back("If-Match", "\"7\"");
  ASSERT_EQ(
      Record(http::verb::put, "/api/v1/documents/" + third, stale, R"({"title": "t"})").status(),
      412u);
  const std::string fourth = Create(Alice(), "Held");
  const auto held = app_->internals().gate.Acquire("doc:submit:" + fourth, 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  ExpectProblem(Record(http::verb::post, "/api/v1/documents/" + fourth + "/submit", Alice()), 409,
                "LOCK_BUSY");
  ASSERT_EQ(app_->internals().gate.Release("doc:submit:" + fourth, held.token),
            ReleaseOutcome::kReleased);
  const std::string big = R"({"title": "t", "content": ")" + std::string(1024 * 1024, 'x') + "\"}";
  ASSERT_EQ(Record(http::verb::post, "/api/v1/documents", Alice(), big).status(), 413u);
  {
    auto writer = app_->internals().stores.documents->Begin();  // holds SQLite's single writer slot
    ExpectProblem(Record(http::verb::post, "/api/v1/documents", Alice(), doc_body), 503,
                  "UNAVAILABLE");
  }

  const auto [code, output] = Check(spec.body());
  EXPECT_EQ(code, 0) << output;
  EXPECT_NE(output.find("openapi_check responses: ok"), std::string::npos) << output;
}

// The checker is not a rubber stamp: a real response that the document does not describe fails.
TEST_P(OpenApiE2eTest, TheCheckerRefusesAResponseTheDocumentDoesNotDescribe) {
  json doc = json::parse(OpenApiDocument());
  doc["components"]["schemas"]["Health"]["properties"]["status"] = {{"const", "fine"}};
  Record(http::verb::get, "/healthz", {});
  const auto [code, output] = Check(doc.dump());
  EXPECT_EQ(code, 1) << output;
  EXPECT_NE(output.find("FAIL GET /healthz (/healthz) -> 200 body: at status: 'fine' was expected"),
            std::string::npos)
      << output;
}

INSTANTIATE_TEST_SUITE_P(Backends, OpenApiE2eTest, ::testing::Values(e2e::kSqlite),
                         e2e::BackendName);

}  // namespace
}  // namespace docgate
