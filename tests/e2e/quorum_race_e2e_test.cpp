// Quorums under races (issue 38): reviews that need two approvals (`required_approvals` 2), each
// approved by six reviewers at the same instant, the way the console's users click: every click
// sent again at once while the lock is busy (409 LOCK_BUSY), some clicks sent twice under one
// Idempotency-Key (a retry racing its original, and every key sent once more after its answer),
// some twice under two keys (a double click the client did not deduplicate). Whatever the
// interleaving:
//   - no answer is a 5xx, and every click ends in 200, 409 INVALID_STATE or 409 ALREADY_VOTED (or,
//     for a retry racing its original, 409 IDEMPOTENCY_IN_FLIGHT);
//   - every review ends approved with exactly two approvals, and its document approved;
//   - per document exactly one review.voted (by the reviewer acknowledged with a vote) and exactly
//     one document.approved (by the review's decided_by), nothing else but its document.submitted;
//   - per review exactly one reviewer is acknowledged with the approved review (200 whose review is
//     approved) and exactly one with a vote (200 whose review is pending): the two approvals;
//   - each key is answered once; its other answers replay that one byte for byte.
// One run per backend of e2e::AllBackends() (40 reviews), and 200 reviews on PostgreSQL with the
// Redis gate and the relay to RabbitMQ, whose events are counted as the broker delivered them
// (and in the outbox).

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "adapters/amqp/event_message.h"
#include "e2e/docgate_process.h"
#include "e2e/e2e_server.h"
#include "support/amqp_test_queue.h"

namespace docgate {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace http = boost::beast::http;

constexpr int kQuorumReviewers = 6;
// Reviews raced at once (each by its reviewers and their second clicks): well under the server's
// queue limit (128 waiting requests), so that no click is shed with a 503.
constexpr int kQuorumReviewsAtOnce = 4;
// A click retried this often while the lock stays busy gives up (and fails the test).
constexpr int kQuorumMaxTries = 1000;
// Under AddressSanitizer or ThreadSanitizer a request costs many times more: a fifth of the
// reviews.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kQuorumSlowdown = 5;
#else
constexpr int kQuorumSlowdown = 1;
#endif

// The backend of the issue's 200-review run: PostgreSQL, the Redis gate, events through RabbitMQ.
constexpr e2e::Backend kPostgresWithRedisAndBroker{"PostgresWithRedisAndBroker", true, true, true,
                                                   true};

int QuorumReviewCount(const e2e::Backend& backend) {
  return (backend.amqp ? 200 : 40) / kQuorumSlowdown;
}

std::string QuorumProblemCode(const e2e::HttpReply& reply) {
  if (reply.status() < 400) return "";
  const json problem = json::parse(reply.body(), nullptr, false);
  return problem.is_object() ? problem.value("code", "") : "";
}

// One client's click on approve and what it finally got.
struct QuorumClick {
  enum class Kind {
    kFirst,        // the reviewer's click
    kRetry,        // the same request under the same key, racing the first
    kDoubleClick,  // the same reviewer again under a key of its own
  };
  std::size_t review = 0;  // index into the test's reviews
  int reviewer = 0;
  std::string key;
  Kind kind = Kind::kFirst;
  e2e::HttpReply answer;  // the last answer (the first that was not 409 LOCK_BUSY)
  int lock_busy = 0;      // 409 LOCK_BUSY answers before it
  std::string error;      // no answer at all (the connection broke)
};

struct QuorumReview {
  std::string document;
  std::string review;
};

class QuorumRaceTest : public e2e::ServerTest {
 protected:
  void SetUp() override {
    // Bound before docgate starts, so that the queue sees every event it publishes.
    if (GetParam().amqp) {
      queue_ = std::make_unique<AmqpTestQueue>(e2e::RequiredEnv("DOCGATE_TEST_AMQP_URL"), "",
                                               TestExchange(), "#");
    }
    ServerTest::SetUp();
  }

  std::string Reviewer(int i) const { return "quorum-reviewer" + std::to_string(i); }

  // Creates a document and submits it asking for two approvals.
  QuorumReview Open(e2e::HttpClient& client, const e2e::Headers& author, int n) {
    const auto created =
        client.Request(http::verb::post, "/api/v1/documents",
                       json{{"title", "\u5ba1\u6279\u6307\u5357 " + std::to_string(n)},  // 审批指南
                            {"content", "# \u5ba1\u6279\n\n\u4e24\u4eba\u540c\u610f\u3002"}}
                           .dump(),
                       author);
    EXPECT_EQ(created.status(), 201u) << created.body();
    const std::string document = created.json()["id"];
    const auto submitted =
        client.Request(http::verb::post, "/api/v1/documents/" + document + "/submit",
                       json{{"required_approvals", 2}}.dump(), author);
    EXPECT_EQ(submitted.status(), 200u) << submitted.body();
    EXPECT_EQ(submitted.json()["review"]["required_approvals"], 2);
    return {document, submitted.json()["review"]["id"]};
  }

  // The clicks on review `r`: each reviewer's, one reviewer's retry under the same key and another
  // reviewer's second click under a second key (which ones turns with r).
  static void AddClicks(std::vector<QuorumClick>& clicks, std::size_t r) {
    const int retrying = static_cast<int>(r % kQuorumReviewers);
    const int double_clicking = static_cast<int>((r + 3) % kQuorumReviewers);
    for (int i = 0; i < kQuorumReviewers; ++i) {
      const std::string key = "quorum-" + std::to_string(r) + "-" + std::to_string(i);
      clicks.push_back({r, i, key, QuorumClick::Kind::kFirst, {}, 0, {}});
      if (i == retrying) clicks.push_back({r, i, key, QuorumClick::Kind::kRetry, {}, 0, {}});
      if (i == double_clicking) {
        clicks.push_back({r, i, key + "-again", QuorumClick::Kind::kDoubleClick, {}, 0, {}});
      }
    }
  }

  static std::string ApproveTarget(const QuorumReview& review) {
    return "/api/v1/reviews/" + review.review + "/approve";
  }
  static std::string ApproveBody(int reviewer) {
    return json{{"comment", "\u540c\u610f " + std::to_string(reviewer)}}.dump();  // 同意 n
  }

  // Sends `click` until it is answered with anything but 409 LOCK_BUSY (at most kQuorumMaxTries).
  static void Click(e2e::HttpClient& client, QuorumClick& click, const QuorumReview& review,
                    const e2e::Headers& headers) {
    e2e::Headers keyed = headers;
    keyed.emplace_back("Idempotency-Key", click.key);
    for (int tries = 1;; ++tries) {
      try {
        click.answer = client.Request(http::verb::post, ApproveTarget(review),
                                      ApproveBody(click.reviewer), keyed);
      } catch (const std::exception& e) {
        click.error = e.what();
        return;
      }
      const bool busy =
          click.answer.status() == 409u && QuorumProblemCode(click.answer) == "LOCK_BUSY";
      if (!busy || tries == kQuorumMaxTries) return;
      ++click.lock_busy;
    }
  }

  // The events this run wrote, each once: what the in-process consumer saw, or what the broker
  // delivered (copies of one event_id counted once; `copies` counts the others).
  std::vector<OutboxEvent> DeliveredEvents(std::size_t expected, int& copies) {
    if (!GetParam().amqp) return StopAndCollectEvents();
    std::map<std::string, OutboxEvent> by_id;
    std::vector<OutboxEvent> events;
    const auto keep = [&](const std::vector<ReceivedMessage>& messages) {
      for (const auto& message : messages) {
        auto event = DecodeEventBody(message.body);
        ASSERT_TRUE(event) << "undecodable body: " << message.body;
        if (by_id.emplace(event->event_id, *event).second) {
          events.push_back(*event);
        } else {
          ++copies;
        }
      }
    };
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (events.size() < expected && std::chrono::steady_clock::now() < deadline) {
      keep(queue_->Receive(expected - events.size(), 200ms));
    }
    keep(queue_->ReceiveFor(1s));  // anything beyond them (an event written twice, say)
    return events;
  }

  std::unique_ptr<AmqpTestQueue> queue_;
};

TEST_P(QuorumRaceTest, SixReviewersApprovingEachTwoApprovalReviewAtOnceApproveItExactlyOnce) {
  const int count = QuorumReviewCount(GetParam());
  const auto author = Alice();
  std::vector<e2e::Headers> reviewers;
  for (int i = 0; i < kQuorumReviewers; ++i) {
    auto headers = As(Reviewer(i), {"reviewer"});
    headers.emplace_back("Content-Type", "application/json");
    reviewers.push_back(std::move(headers));
  }
  std::vector<QuorumReview> reviews;
  {
    e2e::HttpClient client(port_);
    for (int n = 0; n < count; ++n) reviews.push_back(Open(client, author, n));
  }
  ASSERT_FALSE(HasFailure());

  // The races, kQuorumReviewsAtOnce reviews at a time, every click released at once.
  std::vector<QuorumClick> clicks;
  for (std::size_t first = 0; first < reviews.size(); first += kQuorumReviewsAtOnce) {
    std::vector<QuorumClick> batch;
    for (std::size_t r = first; r < std::min(reviews.size(), first + kQuorumReviewsAtOnce); ++r) {
      AddClicks(batch, r);
    }
    e2e::RaceReplies({port_}, static_cast<int>(batch.size()), [&](e2e::HttpClient& client, int i) {
      QuorumClick& click = batch[i];
      Click(client, click, reviews[click.review], reviewers[click.reviewer]);
      return click.answer;
    });
    clicks.insert(clicks.end(), batch.begin(), batch.end());
  }

  // Each key sent once more after its answer (the answer was lost): the first answer again.
  std::map<std::string, const QuorumClick*> original;  // key -> the click answered first-hand
  std::map<std::string, int> originals;                // key -> how many were
  for (const auto& click : clicks) {
    if (click.error.empty() && click.answer.header("Idempotent-Replayed") != "true" &&
        QuorumProblemCode(click.answer) != "IDEMPOTENCY_IN_FLIGHT") {
      original[click.key] = &click;
      ++originals[click.key];
    }
  }
  int replays_checked = 0;
  {
    e2e::HttpClient client(port_);
    for (const auto& [key, click] : original) {
      auto headers = reviewers[click->reviewer];
      headers.emplace_back("Idempotency-Key", key);
      const auto again = client.Request(http::verb::post, ApproveTarget(reviews[click->review]),
                                        ApproveBody(click->reviewer), headers);
      EXPECT_EQ(again.header("Idempotent-Replayed"), "true") << key << ": " << again.body();
      EXPECT_EQ(again.status(), click->answer.status()) << key;
      EXPECT_EQ(again.body(), click->answer.body()) << key;
      ++replays_checked;
    }
  }

  // What every click got.
  std::map<std::string, int> clicks_of_key;
  for (const auto& click : clicks) ++clicks_of_key[click.key];
  std::map<std::string, int> tally;  // "200", "409 INVALID_STATE", ... -> clicks
  int lock_busy = 0;
  for (const auto& click : clicks) {
    lock_busy += click.lock_busy;
    const std::string where = "review " + reviews[click.review].review + ", " +
                              Reviewer(click.reviewer) + " under " + click.key;
    ASSERT_TRUE(click.error.empty()) << where << ": no answer: " << click.error;
    const unsigned status = click.answer.status();
    const std::string code = QuorumProblemCode(click.answer);
    ++tally[std::to_string(status) + (code.empty() ? "" : " " + code)];
    EXPECT_LT(status, 500u) << where << ": " << click.answer.body();
    if (status == 200u) continue;
    EXPECT_EQ(status, 409u) << where << ": " << click.answer.body();
    if (code == "IDEMPOTENCY_IN_FLIGHT") {
      EXPECT_EQ(clicks_of_key[click.key], 2) << where << ": no other click had its key";
    } else {
      EXPECT_TRUE(code == "INVALID_STATE" || code == "ALREADY_VOTED")
          << where << ": " << click.answer.body();
    }
  }
  for (const auto& [key, n] : originals) EXPECT_EQ(n, 1) << key << " was answered first-hand twice";
  EXPECT_EQ(originals.size(), clicks_of_key.size()) << "a key without a first-hand answer";

  // Each review, as the server shows it and as its reviewers were told.
  std::map<std::int64_t, std::string> voter_of;     // document -> the reviewer told "voted"
  std::map<std::int64_t, std::string> approver_of;  // document -> the review's decided_by
  for (std::size_t r = 0; r < reviews.size(); ++r) {
    const QuorumReview& review = reviews[r];
    const json shown = Get("/api/v1/reviews/" + review.review, author).json();
    EXPECT_EQ(shown["status"], "approved") << shown.dump();
    EXPECT_EQ(shown["required_approvals"], 2) << shown.dump();
    std::set<std::string> approvals;
    for (const auto& approval : shown["approvals"]) approvals.insert(approval["reviewer_id"]);
    EXPECT_EQ(shown["approvals"].size(), 2u) << shown.dump();
    EXPECT_EQ(approvals.size(), 2u) << shown.dump();
    const std::string decided_by =
        shown["decided_by"].is_string() ? shown["decided_by"].get<std::string>() : "";
    EXPECT_EQ(Get("/api/v1/documents/" + review.document, author).json()["status"], "approved");

    std::set<std::string> told_approved;  // reviewers whose 200 showed the review approved
    std::set<std::string> told_voted;     // ... still pending (their vote counted)
    for (const auto& click : clicks) {
      if (click.review != r) continue;
      const std::string reviewer = Reviewer(click.reviewer);
      if (click.answer.status() == 200u) {
        const json body = click.answer.json();
        EXPECT_EQ(body["review"]["id"], review.review);
        const std::string status = body["review"]["status"];
        if (status == "approved") {
          told_approved.insert(reviewer);
          EXPECT_EQ(body["document"]["status"], "approved");
        } else {
          EXPECT_EQ(status, "pending") << click.answer.body();
          told_voted.insert(reviewer);
          EXPECT_EQ(body["review"]["approvals"].size(), 1u) << click.answer.body();
        }
      } else if (QuorumProblemCode(click.answer) == "ALREADY_VOTED") {
        // Only a reviewer whose first approval counted, clicking again under another key.
        EXPECT_TRUE(approvals.contains(reviewer)) << review.review << ": " << reviewer;
      }
    }
    EXPECT_EQ(told_approved.size(), 1u) << "review " << review.review;
    EXPECT_EQ(told_voted.size(), 1u) << "review " << review.review;
    if (told_approved.size() == 1u && told_voted.size() == 1u) {
      EXPECT_EQ(*told_approved.begin(), decided_by) << review.review;
      EXPECT_EQ((std::set<std::string>{*told_approved.begin(), *told_voted.begin()}), approvals)
          << review.review;
      voter_of[std::stoll(review.document)] = *told_voted.begin();
    }
    approver_of[std::stoll(review.document)] = decided_by;
  }

  // The events: per document its submission, one vote and one approval, by whom they were told.
  int copies = 0;
  const auto events = DeliveredEvents(3 * reviews.size(), copies);
  std::map<std::int64_t, std::map<EventType, std::vector<OutboxEvent>>> by_document;
  for (const auto& e : events) by_document[e.document_id][e.type].push_back(e);
  EXPECT_EQ(by_document.size(), reviews.size());
  for (const auto& review : reviews) {
    const std::int64_t document = std::stoll(review.document);
    auto& of = by_document[document];
    std::size_t all = 0;
    for (const auto& [type, list] : of) all += list.size();
    EXPECT_EQ(of[EventType::kSubmitted].size(), 1u) << "document " << document;
    ASSERT_EQ(of[EventType::kApproved].size(), 1u) << "document " << document;
    ASSERT_EQ(of[EventType::kVoted].size(), 1u) << "document " << document;
    EXPECT_EQ(all, 3u) << "document " << document << ": nothing but those three";
    EXPECT_EQ(of[EventType::kApproved][0].actor_id, approver_of[document]);
    EXPECT_EQ(of[EventType::kApproved][0].review_id, std::stoll(review.review));
    const OutboxEvent& voted = of[EventType::kVoted][0];
    EXPECT_EQ(voted.review_id, std::stoll(review.review));
    EXPECT_EQ(voted.reviewer_id, voted.actor_id);
    if (voter_of.contains(document)) {
      EXPECT_EQ(voted.reviewer_id, voter_of[document]);
    }
  }
  if (GetParam().amqp) {
    // What the broker delivered is what the outbox holds: the same events, every one of them.
    std::set<std::string> delivered;
    for (const auto& e : events) delivered.insert(e.event_id);
    const auto outbox = pg_->Execute("SELECT event_id, event_type FROM kh_outbox");
    EXPECT_EQ(outbox.size(), 3 * reviews.size());
    std::map<std::string, int> outbox_by_type;
    for (const auto& row : outbox) {
      EXPECT_TRUE(delivered.contains(row[0].as<std::string>()))
          << row[1].as<std::string>() << " " << row[0].as<std::string>() << " never arrived";
      ++outbox_by_type[row[1].as<std::string>()];
    }
    EXPECT_EQ(outbox_by_type["document.approved"], static_cast<int>(reviews.size()));
    EXPECT_EQ(outbox_by_type["review.voted"], static_cast<int>(reviews.size()));
  }

  std::cout << "[ quorum   ] " << reviews.size() << " reviews, " << clicks.size() << " clicks:";
  for (const auto& [answer, n] : tally) std::cout << " " << answer << " x" << n << ";";
  std::cout << " " << lock_busy << " LOCK_BUSY retried, " << replays_checked
            << " keys replayed after their answer, " << events.size() << " events (" << copies
            << " duplicate copies)\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, QuorumRaceTest, e2e::AllBackends(), e2e::BackendName);
INSTANTIATE_TEST_SUITE_P(Broker, QuorumRaceTest, ::testing::Values(kPostgresWithRedisAndBroker),
                         e2e::BackendName);

}  // namespace
}  // namespace docgate
