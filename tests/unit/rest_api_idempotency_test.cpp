// Which answers RestApi stores under an Idempotency-Key (app/idempotency.h IsStoredRefusal): a
// success and a decision on the state are stored and replayed; a refusal of a request that was not
// admitted (validation, authentication, authorization, no such target) leaves no row, so a later
// request under the key runs; whatever is stored fits kMaxStoredOutcomeBytes; a replay is the first
// answer byte for byte (status, header fields, body); a record stored before outcomes were is
// replayed as stored, and one that cannot be read is a 500 that changes nothing.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "adapters/http/idempotency_codec.h"
#include "core/lifecycle.h"
#include "support/fake_backed_api.h"

namespace docgate {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

std::string CreateBody(const std::string& title) {
  return json{{"title", title}, {"content", "# " + title}}.dump();
}

std::string Code(const HttpResponse& response) {
  return json::parse(response.body()).value("code", "");
}

bool Replayed(const HttpResponse& response) {
  return response[kIdempotentReplayedHeader] == "true";
}

// Every header field in order, but the replay's mark.
std::vector<std::pair<std::string, std::string>> Fields(const HttpResponse& response) {
  std::vector<std::pair<std::string, std::string>> fields;
  for (const auto& field : response) {
    if (field.name_string() == kIdempotentReplayedHeader) continue;
    fields.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  return fields;
}

// `replay` is `first` again, byte for byte, marked as a replay.
void ExpectReplayOf(const HttpResponse& replay, const HttpResponse& first) {
  EXPECT_FALSE(Replayed(first));
  EXPECT_TRUE(Replayed(replay));
  EXPECT_EQ(replay.result(), first.result());
  EXPECT_EQ(Fields(replay), Fields(first));
  EXPECT_EQ(replay.body(), first.body());
}

class RestApiIdempotencyTest : public ::testing::Test {
 protected:
  // A POST with `authorization` (none when empty) and, unless nullopt, `key`.
  static HttpRequest PostRequest(const std::string& target, const std::string& authorization,
                                 const std::string& body, const std::optional<std::string>& key) {
    HttpRequest request{HttpVerb::post, target, 11};
    if (!authorization.empty()) request.set(http::field::authorization, authorization);
    if (key) request.set(kIdempotencyKeyHeader, *key);
    request.body() = body;
    request.prepare_payload();
    return request;
  }
  HttpResponse Post(const std::string& target, const std::string& authorization,
                    const std::string& body, const std::optional<std::string>& key) {
    return fakes_.api.Handle(PostRequest(target, authorization, body, key));
  }
  // The record stored for `caller`'s POST of `body` to `target` under `key` (answered).
  std::string StoredRecord(const std::string& caller, const std::string& target,
                           const std::string& body, const std::string& key) {
    const auto decision = fakes_.idempotency.Begin(
        {caller, key, RequestFingerprint(PostRequest(target, "", body, std::nullopt))});
    EXPECT_EQ(decision.verdict, IdempotencyVerdict::kReplay);
    return decision.response;
  }
  // Stores `record` as the answer of `caller`'s POST of `body` to `target` under `key`, as if an
  // earlier docgate had.
  void Store(const std::string& caller, const std::string& target, const std::string& body,
             const std::string& key, const std::string& record) {
    const auto decision = fakes_.idempotency.Begin(
        {caller, key, RequestFingerprint(PostRequest(target, "", body, std::nullopt))});
    ASSERT_EQ(decision.verdict, IdempotencyVerdict::kProceed);
    ASSERT_TRUE(fakes_.stores.idempotency->CompleteIdempotentRequest(
        caller, key, decision.owner, record, fakes_.clock.Now() + std::chrono::hours(1)));
  }
  // Creates a draft as `author` (without a key); returns its id.
  std::string Create(const std::string& author) {
    const auto created = Post("/api/v1/documents", author, CreateBody("Guide"), std::nullopt);
    EXPECT_EQ(created.result(), HttpStatus::created) << created.body();
    return json::parse(created.body())["id"];
  }
  // Submits document `id` as `author` (without a key); returns the review id.
  std::string Submit(const std::string& id, const std::string& author) {
    const auto submitted = Post("/api/v1/documents/" + id + "/submit", author, "", std::nullopt);
    EXPECT_EQ(submitted.result(), HttpStatus::ok) << submitted.body();
    return json::parse(submitted.body())["review"]["id"];
  }
  std::size_t Rows() { return fakes_.database.IdempotencyKeyCount(); }

  FakeBackedApi fakes_;
  const std::string alice_ = fakes_.Bearer("alice", {"author"});
  const std::string carol_ = fakes_.Bearer("carol", {"author"});
  const std::string bob_ = fakes_.Bearer("bob", {"reviewer"});
  const std::string root_ = fakes_.Bearer("root", {"admin"});
};

TEST_F(RestApiIdempotencyTest, ARefusedRequestLeavesNoRowAndAnotherRequestUnderTheKeyRuns) {
  const auto refused = Post("/api/v1/documents", alice_, "{", "k");
  EXPECT_EQ(refused.result(), HttpStatus::bad_request);
  EXPECT_EQ(Code(refused), "VALIDATION");
  EXPECT_EQ(Rows(), 0u);

  // The refused request had no effect and left nothing: the key is as good as new (not 422).
  const auto created = Post("/api/v1/documents", alice_, CreateBody("Guide"), "k");
  EXPECT_EQ(created.result(), HttpStatus::created) << created.body();
  EXPECT_FALSE(Replayed(created));
  EXPECT_EQ(Rows(), 1u);
  const auto again = Post("/api/v1/documents", alice_, CreateBody("Guide"), "k");
  EXPECT_TRUE(Replayed(again));
  EXPECT_EQ(again.body(), created.body());
  EXPECT_EQ(Rows(), 1u);
}

TEST_F(RestApiIdempotencyTest, NoRefusalOfAnUnadmittedRequestIsStored) {
  const std::string draft = Create(alice_);
  const std::string review = Submit(Create(alice_), alice_);
  struct Case {
    std::string target;
    std::string authorization;
    std::string body;
    HttpStatus status;
    std::string code;
  };
  const std::string documents = "/api/v1/documents";
  const std::string approve = "/api/v1/reviews/" + review + "/approve";
  const std::vector<Case> cases = {
      {documents, alice_, "{", HttpStatus::bad_request, "VALIDATION"},
      {documents, alice_, R"({"title": "t"})", HttpStatus::bad_request, "VALIDATION"},
      {documents, alice_, CreateBody(std::string(201, 't')), HttpStatus::bad_request, "VALIDATION"},
      {documents + "/0x1/submit", alice_, "", HttpStatus::bad_request, "VALIDATION"},
      {"/api/v1/reviews/" + review + "/reject", bob_, "{}", HttpStatus::bad_request, "VALIDATION"},
      {approve, bob_, json{{"comment", std::string(2001, 'c')}}.dump(), HttpStatus::bad_request,
       "VALIDATION"},
      {documents, "", CreateBody("Guide"), HttpStatus::unauthorized, "UNAUTHENTICATED"},
      {documents, "Bearer forged", CreateBody("Guide"), HttpStatus::unauthorized,
       "UNAUTHENTICATED"},
      {documents, bob_, CreateBody("Guide"), HttpStatus::forbidden, "FORBIDDEN"},
      {approve, alice_, "{}", HttpStatus::forbidden, "FORBIDDEN"},
      {documents + "/" + draft + "/submit", carol_, "", HttpStatus::forbidden, "FORBIDDEN"},
      {documents + "/" + draft + "/withdraw", carol_, "", HttpStatus::forbidden, "FORBIDDEN"},
      {documents + "/999/submit", alice_, "", HttpStatus::not_found, "NOT_FOUND"},
      {"/api/v1/reviews/999/approve", bob_, "{}", HttpStatus::not_found, "NOT_FOUND"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string key = "refused-" + std::to_string(i);
    for (int attempt = 0; attempt < 2; ++attempt) {
      const auto response = Post(c.target, c.authorization, c.body, key);
      EXPECT_EQ(response.result(), c.status) << i << ": " << response.body();
      EXPECT_EQ(Code(response), c.code) << i;
      EXPECT_FALSE(Replayed(response)) << i << ": decided again, not replayed";
    }
  }
  EXPECT_EQ(Rows(), 0u);
  EXPECT_EQ(fakes_.database.AllEvents().size(), 1u) << "only the setup's submit";
}

TEST_F(RestApiIdempotencyTest, ADecisionOnTheStateIsStoredAndReplayed) {
  // INVALID_STATE: withdrawing a draft.
  const std::string draft = Create(alice_);
  const std::string withdraw = "/api/v1/documents/" + draft + "/withdraw";
  const auto invalid = Post(withdraw, alice_, "", "w");
  EXPECT_EQ(invalid.result(), HttpStatus::conflict);
  EXPECT_EQ(Code(invalid), "INVALID_STATE");
  EXPECT_EQ(Rows(), 1u);
  // Once the draft is pending, the retry still gets the first answer, and withdraws nothing.
  Submit(draft, alice_);
  const auto replay = Post(withdraw, alice_, "", "w");
  EXPECT_TRUE(Replayed(replay));
  EXPECT_EQ(replay.result(), HttpStatus::conflict);
  EXPECT_EQ(replay.body(), invalid.body());
  EXPECT_EQ(fakes_.stores.documents->FindDocument(std::stoll(draft))->status,
            DocumentStatus::kPendingReview);
  const auto reused = Post("/api/v1/documents/" + draft + "/submit", alice_, "", "w");
  EXPECT_EQ(Code(reused), "IDEMPOTENCY_KEY_REUSED");

  // SELF_REVIEW: an admin deciding the review of a document they wrote.
  const std::string review = Submit(Create(root_), root_);
  const std::string approve = "/api/v1/reviews/" + review + "/approve";
  const auto self = Post(approve, root_, "{}", "a");
  EXPECT_EQ(self.result(), HttpStatus::forbidden);
  EXPECT_EQ(Code(self), "SELF_REVIEW");
  EXPECT_EQ(Rows(), 2u);
  const auto self_again = Post(approve, root_, "{}", "a");
  EXPECT_TRUE(Replayed(self_again));
  EXPECT_EQ(self_again.body(), self.body());
  EXPECT_EQ(Rows(), 2u);
}

// A quorum of two over HTTP: the first approval answers the review still pending; the same
// reviewer's second is 409 ALREADY_VOTED, stored and replayed like INVALID_STATE; a retry of the
// first approval under its key replays it; another reviewer's approval approves.
TEST_F(RestApiIdempotencyTest, ASecondApprovalByTheSameReviewerIsAlreadyVoted) {
  const std::string id = Create(alice_);
  const std::string submit = "/api/v1/documents/" + id + "/submit";
  for (const char* bad :
       {R"({"required_approvals": 0})", R"({"required_approvals": 11})",
        R"({"required_approvals": "2"})", R"({"required_approvals": 1.5})",
        R"({"reviewers": "bob"})", R"({"reviewers": [7]})", R"({"reviewers": [""]})"}) {
    const auto refused = Post(submit, alice_, bad, std::nullopt);
    EXPECT_EQ(refused.result(), HttpStatus::bad_request) << bad;
    EXPECT_EQ(Code(refused), "VALIDATION") << bad;
  }
  const auto submitted = Post(submit, alice_, R"({"required_approvals": 2})", "s");
  ASSERT_EQ(submitted.result(), HttpStatus::ok) << submitted.body();
  const json review = json::parse(submitted.body())["review"];
  EXPECT_EQ(review["required_approvals"], 2);
  EXPECT_EQ(review["approvals"], json::array());
  EXPECT_EQ(review["assignees"], json::array());
  const std::string approve = "/api/v1/reviews/" + review["id"].get<std::string>() + "/approve";

  const auto first = Post(approve, bob_, R"({"comment": "清楚"})", "v1");
  ASSERT_EQ(first.result(), HttpStatus::ok) << first.body();
  const json counted = json::parse(first.body());
  EXPECT_EQ(counted["review"]["status"], "pending");
  EXPECT_EQ(counted["document"]["status"], "pending_review");
  ASSERT_EQ(counted["review"]["approvals"].size(), 1u);
  EXPECT_EQ(counted["review"]["approvals"][0]["reviewer_id"], "bob");
  EXPECT_EQ(counted["review"]["approvals"][0]["reviewer_name"], nullptr) << "no name seen";
  EXPECT_EQ(counted["review"]["approvals"][0]["comment"], "清楚");

  const auto twice = Post(approve, bob_, "{}", "v2");
  EXPECT_EQ(twice.result(), HttpStatus::conflict);
  EXPECT_EQ(Code(twice), "ALREADY_VOTED");
  ExpectReplayOf(Post(approve, bob_, "{}", "v2"), twice);
  ExpectReplayOf(Post(approve, bob_, R"({"comment": "清楚"})", "v1"), first);

  const auto second = Post(approve, fakes_.Bearer("carol", {"reviewer"}), "{}", "v3");
  ASSERT_EQ(second.result(), HttpStatus::ok) << second.body();
  EXPECT_EQ(json::parse(second.body())["review"]["status"], "approved");
  EXPECT_EQ(json::parse(second.body())["review"]["decided_by"], "carol");
  EXPECT_EQ(json::parse(second.body())["review"]["approvals"].size(), 2u);
}

// The longest answers any POST gives, each stored: every echoed field at its bound, made of the
// characters that take the most bytes once escaped in the stored envelope (U+1F600: 12 bytes;
// '"' and '\' in a token subject, which may not hold a control character: 4 bytes).
TEST_F(RestApiIdempotencyTest, TheLongestAnswersAreStoredWithinTheBound) {
  const std::string author = fakes_.Bearer(std::string(kMaxSubjectBytes, '"'), {"author"});
  std::string emoji_200;
  for (int i = 0; i < 200; ++i) emoji_200 += "\xF0\x9F\x98\x80";
  const std::string emoji_2000 = [&] {
    std::string out;
    for (int i = 0; i < 10; ++i) out += emoji_200;
    return out;
  }();

  const auto created = Post("/api/v1/documents", author, CreateBody(emoji_200), "create");
  ASSERT_EQ(created.result(), HttpStatus::created) << created.body();
  const std::string id = json::parse(created.body())["id"];
  // As many assignees as a review may have, each id of the longest emoji (12 bytes escaped each).
  json reviewers = json::array();
  for (std::size_t i = 0; i < kMaxAssignees; ++i) {
    reviewers.push_back(emoji_200.substr(0, 4 * 63) + std::to_string(i));
  }
  const auto submitted =
      Post("/api/v1/documents/" + id + "/submit", author,
           json{{"required_approvals", kMaxRequiredApprovals}, {"reviewers", reviewers}}.dump(),
           "submit");
  ASSERT_EQ(submitted.result(), HttpStatus::ok) << submitted.body();
  const std::string review = json::parse(submitted.body())["review"]["id"];
  // Ten reviewers of the longest ids approve with the longest comments; the tenth approval, which
  // completes the review, answers all ten.
  const std::string approve = "/api/v1/reviews/" + review + "/approve";
  const std::string comment = json{{"comment", emoji_2000}}.dump();
  std::string subject;
  HttpResponse approved;
  for (int i = 0; i < kMaxRequiredApprovals; ++i) {
    subject = std::string(kMaxSubjectBytes - 1, '\\') + static_cast<char>('0' + i);
    approved = Post(approve, fakes_.Bearer(subject, {"reviewer"}), comment, "approve");
    ASSERT_EQ(approved.result(), HttpStatus::ok) << approved.body();
  }
  EXPECT_EQ(json::parse(approved.body())["review"]["status"], "approved");
  EXPECT_EQ(Rows(), 2u + kMaxRequiredApprovals);

  const std::size_t longest = StoredRecord(subject, approve, comment, "approve").size();
  EXPECT_LE(longest, kMaxStoredOutcomeBytes);
  EXPECT_GT(longest, kMaxStoredOutcomeBytes * 3 / 4) << "not the worst case any more";
  ExpectReplayOf(Post(approve, fakes_.Bearer(subject, {"reviewer"}), comment, "approve"), approved);
}

// Assignees and comments over HTTP (API.md v1.2): reviewers named at submit fill their queue
// (`assignee=me`), the author assigns more under a key and a retry replays it; an author as
// assignee is 403 SELF_REVIEW, stored like any decision on the state; a comment on a line is 201
// with its fields and replayed under its key; lines beyond the version's are 400.
TEST_F(RestApiIdempotencyTest, AssigneesAndCommentsAreKeyedLikeEveryPost) {
  const json draft{{"title", "\u503c\u73ed\u624b\u518c"},
                   {"content", "\u7b2c\u4e00\u6b65\n\u7b2c\u4e8c\u6b65\n"}};
  const auto created = Post("/api/v1/documents", alice_, draft.dump(), std::nullopt);
  ASSERT_EQ(created.result(), HttpStatus::created) << created.body();
  const std::string id = json::parse(created.body())["id"];
  const auto submitted = Post("/api/v1/documents/" + id + "/submit", alice_,
                              R"({"reviewers": ["bob"]})", std::nullopt);
  ASSERT_EQ(submitted.result(), HttpStatus::ok) << submitted.body();
  const json review = json::parse(submitted.body())["review"];
  EXPECT_EQ(review["assignees"], json{"bob"});
  const std::string base = "/api/v1/reviews/" + review["id"].get<std::string>();

  const auto queue = [&](const std::string& who) {
    HttpRequest request{HttpVerb::get, "/api/v1/reviews?assignee=me", 11};
    request.set(http::field::authorization, who);
    const HttpResponse response = fakes_.api.Handle(request);
    EXPECT_EQ(response.result(), HttpStatus::ok) << response.body();
    return json::parse(response.body())["items"];
  };
  ASSERT_EQ(queue(bob_).size(), 1u);
  EXPECT_EQ(queue(bob_)[0]["title"], "\u503c\u73ed\u624b\u518c");
  const std::string dave = fakes_.Bearer("dave", {"reviewer"});
  EXPECT_TRUE(queue(dave).empty());

  const std::string add_dave = R"({"add": ["dave"]})";
  const auto assigned = Post(base + "/assignees", alice_, add_dave, "a1");
  ASSERT_EQ(assigned.result(), HttpStatus::ok) << assigned.body();
  EXPECT_EQ(json::parse(assigned.body())["assignees"], (json{"bob", "dave"}));
  ExpectReplayOf(Post(base + "/assignees", alice_, add_dave, "a1"), assigned);
  EXPECT_EQ(queue(dave).size(), 1u);
  EXPECT_EQ(Post(base + "/assignees", bob_, add_dave, std::nullopt).result(), HttpStatus::forbidden)
      << "a reviewer does not assign";
  const auto self = Post(base + "/assignees", alice_, R"({"add": ["alice"]})", "a2");
  EXPECT_EQ(self.result(), HttpStatus::forbidden);
  EXPECT_EQ(Code(self), "SELF_REVIEW");
  ExpectReplayOf(Post(base + "/assignees", alice_, R"({"add": ["alice"]})", "a2"), self);
  EXPECT_EQ(Code(Post(base + "/assignees", alice_, R"({"add": "dave"})", std::nullopt)),
            "VALIDATION");

  const std::string on_line =
      json{{"body", "\u7b2c\u4e8c\u6b65\u5199\u9519\u4e86"}, {"line", 2}}.dump();
  const auto comment = Post(base + "/comments", bob_, on_line, "c1");
  ASSERT_EQ(comment.result(), HttpStatus::created) << comment.body();
  const json body = json::parse(comment.body());
  EXPECT_EQ(body["review_id"], review["id"]);
  EXPECT_EQ(body["author_id"], "bob");
  EXPECT_EQ(body["line"], 2);
  EXPECT_EQ(body["parent_id"], nullptr);
  EXPECT_EQ(body["document_version"], 1);
  ExpectReplayOf(Post(base + "/comments", bob_, on_line, "c1"), comment);
  const auto reply = Post(base + "/comments", alice_,
                          json{{"body", "\u5df2\u6539"}, {"parent_id", body["id"]}}.dump(), "c2");
  ASSERT_EQ(reply.result(), HttpStatus::created) << reply.body();
  EXPECT_EQ(json::parse(reply.body())["parent_id"], body["id"]);
  for (const char* bad : {R"({"body": "x", "line": 3})", R"({"body": "x", "line": "2"})",
                          R"({"body": "x", "parent_id": 1})", R"({"body": ""})", R"({})"}) {
    const auto refused = Post(base + "/comments", bob_, bad, std::nullopt);
    EXPECT_EQ(refused.result(), HttpStatus::bad_request) << bad << refused.body();
  }
  HttpRequest list{HttpVerb::get, base + "/comments?limit=1", 11};
  list.set(http::field::authorization, dave);
  const json page = json::parse(fakes_.api.Handle(list).body());
  ASSERT_EQ(page["items"].size(), 1u);
  EXPECT_EQ(page["items"][0], body);
  EXPECT_EQ(page["next"], body["id"]);
}

TEST_F(RestApiIdempotencyTest, EveryReplayIsTheFirstAnswerByteForByte) {
  const std::string body = CreateBody("入职指南 — 第二版");
  const auto created = Post("/api/v1/documents", alice_, body, "create");
  ASSERT_EQ(created.result(), HttpStatus::created) << created.body();
  ExpectReplayOf(Post("/api/v1/documents", alice_, body, "create"), created);
  const std::string id = json::parse(created.body())["id"];

  const std::string submit = "/api/v1/documents/" + id + "/submit";
  const auto submitted = Post(submit, alice_, "", "submit");
  ASSERT_EQ(submitted.result(), HttpStatus::ok) << submitted.body();
  ExpectReplayOf(Post(submit, alice_, "", "submit"), submitted);

  const std::string review = json::parse(submitted.body())["review"]["id"];
  const std::string approve = "/api/v1/reviews/" + review + "/approve";
  const std::string comment = json{{"comment", "写得很好。\n\"好\" 100%"}}.dump();
  const auto approved = Post(approve, bob_, comment, "approve");
  ASSERT_EQ(approved.result(), HttpStatus::ok) << approved.body();
  ExpectReplayOf(Post(approve, bob_, comment, "approve"), approved);

  const std::string other = Submit(Create(alice_), alice_);
  const std::string reject = "/api/v1/reviews/" + other + "/reject";
  const std::string reason = json{{"reason", "缺少第三节"}}.dump();
  const auto rejected = Post(reject, bob_, reason, "reject");
  ASSERT_EQ(rejected.result(), HttpStatus::ok) << rejected.body();
  ExpectReplayOf(Post(reject, bob_, reason, "reject"), rejected);

  // Stored refusals: INVALID_STATE (approving the approved review again) and SELF_REVIEW.
  const auto invalid = Post(approve, bob_, "{}", "approve-again");
  ASSERT_EQ(Code(invalid), "INVALID_STATE");
  ExpectReplayOf(Post(approve, bob_, "{}", "approve-again"), invalid);
  const std::string own = "/api/v1/reviews/" + Submit(Create(root_), root_) + "/approve";
  const auto self = Post(own, root_, "{}", "self");
  ASSERT_EQ(Code(self), "SELF_REVIEW");
  ExpectReplayOf(Post(own, root_, "{}", "self"), self);
  EXPECT_EQ(Rows(), 6u);
}

TEST_F(RestApiIdempotencyTest, ARecordStoredBeforeOutcomesIsReplayedAsItWasStored) {
  // An earlier docgate stored the whole response (idempotency_codec.h EncodeResponse).
  const std::string body = CreateBody("Guide");
  HttpResponse earlier{HttpStatus::created, 11};
  earlier.set(http::field::content_type, "application/json");
  earlier.set(http::field::etag, "\"1\"");
  earlier.set(http::field::location, "/api/v1/documents/7");
  earlier.body() = R"({"id":"7","title":"指南"})";
  Store("alice", "/api/v1/documents", body, "old", EncodeResponse(earlier));

  const auto replay = Post("/api/v1/documents", alice_, body, "old");
  EXPECT_TRUE(Replayed(replay));
  EXPECT_EQ(replay.result(), HttpStatus::created);
  EXPECT_EQ(Fields(replay), Fields(earlier));
  EXPECT_EQ(replay.body(), earlier.body());
  EXPECT_TRUE(fakes_.stores.documents->ListDocuments({}).empty()) << "replayed, not run";
}

TEST_F(RestApiIdempotencyTest, AnUnreadableRecordIsA500ThatChangesNothing) {
  const std::string body = CreateBody("Guide");
  const std::vector<std::string> records = {
      std::string(kOutcomeFormat) + "1\nkind created\n",  // fields missing
      std::string(kOutcomeFormat) + "9\nkind created\n",  // a format this docgate cannot read
      "not json",                                         // neither form
  };
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string key = "unreadable-" + std::to_string(i);
    Store("alice", "/api/v1/documents", body, key, records[i]);
    for (int attempt = 0; attempt < 2; ++attempt) {
      const auto response = Post("/api/v1/documents", alice_, body, key);
      EXPECT_EQ(response.result(), HttpStatus::internal_server_error) << i;
      EXPECT_EQ(Code(response), "INTERNAL") << i;
    }
  }
  EXPECT_TRUE(fakes_.stores.documents->ListDocuments({}).empty());
  EXPECT_EQ(Rows(), records.size());
}

}  // namespace
}  // namespace docgate
