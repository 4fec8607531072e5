// Idempotency-Key end to end (shared/API.md "Idempotency"), over HTTP against the real server on
// every backend: a retry replays the first answer byte for byte and changes nothing; concurrent
// retries make one effect; a different request under the key is refused; keys are per caller,
// survive a restart, expire, and are shared by instances on one database.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "adapters/http/idempotency_codec.h"
#include "e2e/e2e_server.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using e2e::Headers;
using e2e::HttpClient;
using e2e::HttpReply;
using nlohmann::json;
namespace http = boost::beast::http;

constexpr char kDocuments[] = "/api/v1/documents";

Headers WithKey(Headers headers, const std::string& key) {
  headers.emplace_back("Idempotency-Key", key);
  return headers;
}

std::string CreateBody(const std::string& title = "Onboarding guide") {
  return json{{"title", title}, {"content", "# " + title}}.dump();
}

bool Replayed(const HttpReply& reply) { return reply.header("Idempotent-Replayed") == "true"; }

// The same answer again: status, the headers a client acts on, and the body byte for byte.
void ExpectReplayOf(const HttpReply& replay, const HttpReply& first) {
  EXPECT_TRUE(Replayed(replay));
  EXPECT_FALSE(Replayed(first));
  EXPECT_EQ(replay.status(), first.status());
  EXPECT_EQ(replay.body(), first.body());
  for (const auto field : {http::field::content_type, http::field::location, http::field::etag}) {
    EXPECT_EQ(replay.header(field), first.header(field)) << field;
  }
}

class IdempotencyTest : public e2e::ServerTest {
 protected:
  std::size_t DocumentCount() {
    return Get(std::string(kDocuments) + "?limit=100", Alice()).json()["items"].size();
  }
  std::size_t ReviewCount(const std::string& id) {
    return Get(std::string(kDocuments) + "/" + id + "/reviews", Alice()).json()["items"].size();
  }
  // Every event of `type` for `document`, once everything committed has been delivered (stops
  // the application).
  int CountEvents(EventType type, const std::string& document) {
    int count = 0;
    for (const auto& e : StopAndCollectEvents()) {
      count += e.type == type && e.document_id == std::stoll(document);
    }
    return count;
  }

  // Every racer's answer is the one success (replayed or not, the same body) or 409
  // IDEMPOTENCY_IN_FLIGHT with Retry-After; exactly one ran the use case.
  void ExpectOneSuccessReplayedOrInFlight(const std::vector<HttpReply>& replies) {
    int originals = 0;
    std::set<std::string> bodies;
    for (const auto& reply : replies) {
      if (reply.status() == 200) {
        bodies.insert(reply.body());
        originals += !Replayed(reply);
        continue;
      }
      ExpectProblem(reply, 409, "IDEMPOTENCY_IN_FLIGHT");
      EXPECT_EQ(reply.header(http::field::retry_after), "1");
    }
    EXPECT_EQ(originals, 1);
    EXPECT_EQ(bodies.size(), 1u);
  }
};

TEST_P(IdempotencyTest, ARetriedCreateIsReplayedByteForByteAndCreatesOneDocument) {
  const auto first = Post(kDocuments, WithKey(Alice(), "create-1"), CreateBody());
  ASSERT_EQ(first.status(), 201u) << first.body();
  EXPECT_FALSE(first.header(http::field::location).empty());
  const auto again = Post(kDocuments, WithKey(Alice(), "create-1"), CreateBody());
  ExpectReplayOf(again, first);
  ExpectReplayOf(Post(kDocuments, WithKey(Alice(), "create-1"), CreateBody()), first);
  EXPECT_EQ(DocumentCount(), 1u);
}

TEST_P(IdempotencyTest, RetriedSubmitAndApproveMakeOneTransitionAndOneEventEach) {
  const std::string id = Create(Alice());
  const std::string submit = std::string(kDocuments) + "/" + id + "/submit";
  const auto submitted = Post(submit, WithKey(Alice(), "submit-1"));
  ASSERT_EQ(submitted.status(), 200u) << submitted.body();
  ExpectReplayOf(Post(submit, WithKey(Alice(), "submit-1")), submitted);
  EXPECT_EQ(ReviewCount(id), 1u);

  const std::string review = submitted.json()["review"]["id"];
  const std::string approve = "/api/v1/reviews/" + review + "/approve";
  const std::string body = json{{"comment", "ok \xE2\x9C\x93"}}.dump();
  const auto approved = Post(approve, WithKey(Bob(), "approve-1"), body);
  ASSERT_EQ(approved.status(), 200u) << approved.body();
  EXPECT_EQ(approved.json()["review"]["status"], "approved");
  ExpectReplayOf(Post(approve, WithKey(Bob(), "approve-1"), body), approved);
  // Without the key the same approval is a new request, decided on the state: already approved.
  ExpectProblem(Post(approve, Bob(), body), 409, "INVALID_STATE");

  const auto events = StopAndCollectEvents();
  int submits = 0;
  int approvals = 0;
  for (const auto& e : events) {
    submits += e.type == EventType::kSubmitted && e.document_id == std::stoll(id);
    approvals += e.type == EventType::kApproved && e.document_id == std::stoll(id);
  }
  EXPECT_EQ(submits, 1);
  EXPECT_EQ(approvals, 1);
}

TEST_P(IdempotencyTest, TwentyConcurrentSubmitsWithOneKeyMakeOneReviewAndOneEvent) {
  const std::string id = Create(Alice());
  const std::string submit = std::string(kDocuments) + "/" + id + "/submit";
  const auto alice = WithKey(Alice(), "submit-race");
  const auto replies = e2e::RaceReplies({port_}, 20, [&](HttpClient& client, int) {
    return client.Request(http::verb::post, submit, "", alice);
  });
  ExpectOneSuccessReplayedOrInFlight(replies);
  // Once the winner has answered, every retry is its replay.
  const auto after = Post(submit, alice);
  EXPECT_TRUE(Replayed(after));
  EXPECT_EQ(after.status(), 200u);
  EXPECT_EQ(ReviewCount(id), 1u);
  EXPECT_EQ(CountEvents(EventType::kSubmitted, id), 1);
}

TEST_P(IdempotencyTest, TheSameKeyWithADifferentRequestIsRefusedWith422) {
  const auto first = Post(kDocuments, WithKey(Alice(), "k"), CreateBody("One"));
  ASSERT_EQ(first.status(), 201u);
  ExpectProblem(Post(kDocuments, WithKey(Alice(), "k"), CreateBody("Two")), 422,
                "IDEMPOTENCY_KEY_REUSED");
  const std::string id = first.json()["id"];
  ExpectProblem(Post(std::string(kDocuments) + "/" + id + "/submit", WithKey(Alice(), "k")), 422,
                "IDEMPOTENCY_KEY_REUSED");
  EXPECT_EQ(DocumentCount(), 1u);
  EXPECT_EQ(ReviewCount(id), 0u);
  ExpectReplayOf(Post(kDocuments, WithKey(Alice(), "k"), CreateBody("One")), first);
}

TEST_P(IdempotencyTest, AnotherCallersKeyIsIndependent) {
  const auto alice = Post(kDocuments, WithKey(Alice(), "shared-key"), CreateBody());
  const auto carol = Post(kDocuments, WithKey(Carol(), "shared-key"), CreateBody());
  ASSERT_EQ(alice.status(), 201u);
  ASSERT_EQ(carol.status(), 201u);
  EXPECT_FALSE(Replayed(carol));
  EXPECT_NE(alice.json()["id"], carol.json()["id"]);
  EXPECT_EQ(carol.json()["author_id"], "carol");
  EXPECT_EQ(DocumentCount(), 2u);
}

TEST_P(IdempotencyTest, KeysSurviveARestart) {
  const auto first = Post(kDocuments, WithKey(Alice(), "durable"), CreateBody());
  ASSERT_EQ(first.status(), 201u);
  StartApp(MakeConfig());
  ExpectReplayOf(Post(kDocuments, WithKey(Alice(), "durable"), CreateBody()), first);
  EXPECT_EQ(DocumentCount(), 1u);
}

TEST_P(IdempotencyTest, AStoredAnswerExpiresWithItsTtl) {
  const auto first = Post(kDocuments, WithKey(Alice(), "daily"), CreateBody());
  ASSERT_EQ(first.status(), 201u);
  clock_.Advance(24h - 1ms);
  EXPECT_TRUE(Replayed(Post(kDocuments, WithKey(Alice(), "daily"), CreateBody())));
  clock_.Advance(1ms);
  const auto later = Post(kDocuments, WithKey(Alice(), "daily"), CreateBody());
  EXPECT_EQ(later.status(), 201u);
  EXPECT_FALSE(Replayed(later));
  EXPECT_NE(later.json()["id"], first.json()["id"]);
  EXPECT_EQ(DocumentCount(), 2u);
}

TEST_P(IdempotencyTest, AnInvalidKeyIs400AndChangesNothing) {
  for (const std::string& key :
       {std::string(), std::string(256, 'k'), std::string("caf\xC3\xA9"), std::string("a\tb")}) {
    const auto reply = Post(kDocuments, WithKey(Alice(), key), CreateBody());
    ExpectProblem(reply, 400, "VALIDATION");
    EXPECT_NE(reply.json()["detail"].get<std::string>().find("Idempotency-Key"), std::string::npos)
        << reply.body();
  }
  EXPECT_EQ(Post(kDocuments, WithKey(Alice(), std::string(255, 'k')), CreateBody()).status(), 201u);
  EXPECT_EQ(DocumentCount(), 1u);
}

TEST_P(IdempotencyTest, ARefusedRequestIsNotStoredButADecisionOnTheStateIs) {
  // Not admitted (no such review, a malformed body): decided again on every try, never stored.
  const std::string missing = "/api/v1/reviews/999/approve";
  ExpectProblem(Post(missing, WithKey(Bob(), "approve-missing"), "{}"), 404, "NOT_FOUND");
  const auto again = Post(missing, WithKey(Bob(), "approve-missing"), "{}");
  ExpectProblem(again, 404, "NOT_FOUND");
  EXPECT_FALSE(Replayed(again));
  const auto bad = Post(kDocuments, WithKey(Alice(), "bad-json"), "{");
  ExpectProblem(bad, 400, "VALIDATION");
  EXPECT_FALSE(Replayed(Post(kDocuments, WithKey(Alice(), "bad-json"), "{")));
  // The key kept nothing of the refusal: a different request under it runs (not 422).
  const auto created = Post(kDocuments, WithKey(Alice(), "bad-json"), CreateBody());
  ASSERT_EQ(created.status(), 201u) << created.body();
  EXPECT_FALSE(Replayed(created));
  ExpectReplayOf(Post(kDocuments, WithKey(Alice(), "bad-json"), CreateBody()), created);

  // A decision on the state (withdrawing a draft): stored, so the retry sees it again even once
  // the state has changed.
  const std::string withdraw =
      std::string(kDocuments) + "/" + std::string(created.json()["id"]) + "/withdraw";
  const auto invalid = Post(withdraw, WithKey(Alice(), "withdraw-draft"));
  ExpectProblem(invalid, 409, "INVALID_STATE");
  Submit(created.json()["id"], Alice());
  ExpectReplayOf(Post(withdraw, WithKey(Alice(), "withdraw-draft")), invalid);
  EXPECT_EQ(ReviewCount(created.json()["id"]), 1u);
  EXPECT_EQ(DocumentCount(), 1u);
}

TEST_P(IdempotencyTest, TheSameRequestInFlightIs409UntilItsLeaseRunsOut) {
  // A request that reserved the key and never answered (its process died, say).
  HttpRequest request{http::verb::post, kDocuments, 11};
  request.body() = CreateBody();
  const auto stuck =
      app_->internals().idempotency.Begin({"alice", "stuck", RequestFingerprint(request)});
  ASSERT_EQ(stuck.verdict, IdempotencyVerdict::kProceed);

  const auto busy = Post(kDocuments, WithKey(Alice(), "stuck"), CreateBody());
  ExpectProblem(busy, 409, "IDEMPOTENCY_IN_FLIGHT");
  EXPECT_EQ(busy.header(http::field::retry_after), "1");
  ExpectProblem(Post(kDocuments, WithKey(Alice(), "stuck"), CreateBody("Other")), 422,
                "IDEMPOTENCY_KEY_REUSED");
  EXPECT_EQ(DocumentCount(), 0u);

  clock_.Advance(30s);
  const auto retried = Post(kDocuments, WithKey(Alice(), "stuck"), CreateBody());
  EXPECT_EQ(retried.status(), 201u) << retried.body();
  EXPECT_FALSE(Replayed(retried));
  // The request that lost its lease can no longer store an answer over the new one.
  EXPECT_FALSE(app_->internals().idempotency.CompleteWithoutEffect(
      {"alice", "stuck", RequestFingerprint(request)}, stuck.owner,
      IdempotentOutcome::Refused(MakeError(ErrorCode::kInvalidState, "late"))));
  ExpectReplayOf(Post(kDocuments, WithKey(Alice(), "stuck"), CreateBody()), retried);
  EXPECT_EQ(DocumentCount(), 1u);
}

TEST_P(IdempotencyTest, TwoInstancesOnOneDatabaseShareKeys) {
  Application second(MakeConfig(), &clock_);
  second.AddConsumer(consumer_);
  second.Start();

  // A create answered by one instance is replayed by the other.
  const auto first = Post(kDocuments, WithKey(Alice(), "create-across"), CreateBody());
  ASSERT_EQ(first.status(), 201u);
  HttpClient other(second.port());
  const auto replay =
      other.Request(http::verb::post, kDocuments, CreateBody(), WithKey(Alice(), "create-across"));
  ExpectReplayOf(replay, first);

  // Concurrent retries spread over both instances: one review, one event.
  const std::string id = first.json()["id"];
  const std::string submit = std::string(kDocuments) + "/" + id + "/submit";
  const auto alice = WithKey(Alice(), "submit-across");
  const auto replies = e2e::RaceReplies({port_, second.port()}, 20, [&](HttpClient& client, int) {
    return client.Request(http::verb::post, submit, "", alice);
  });
  ExpectOneSuccessReplayedOrInFlight(replies);
  EXPECT_EQ(ReviewCount(id), 1u);
  EXPECT_EQ(DocumentCount(), 1u);

  second.Stop();
  second.internals().relay.RunOnce();
  EXPECT_EQ(CountEvents(EventType::kSubmitted, id), 1);
}

TEST_P(IdempotencyTest, RequestsWithoutTheKeyAreUnaffected) {
  const auto first = Post(kDocuments, Alice(), CreateBody());
  const auto second = Post(kDocuments, Alice(), CreateBody());
  EXPECT_EQ(first.status(), 201u);
  EXPECT_EQ(second.status(), 201u);
  EXPECT_FALSE(Replayed(second));
  EXPECT_EQ(DocumentCount(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, IdempotencyTest, e2e::AllBackends(), e2e::BackendName);

}  // namespace
}  // namespace docgate
