// Races over HTTP against the real server: many clients hit one document or one review in the
// same instant. Exactly one may win; the rest are 409s; nothing is a 5xx; the database holds
// exactly one review or one decision, and the outbox exactly one event for it.

#include <gtest/gtest.h>

#include <functional>
#include <latch>
#include <optional>
#include <map>
#include <thread>
#include <vector>

#include "e2e/e2e_server.h"

namespace docgate {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

constexpr int kClients = 50;

struct Outcome {
  unsigned status = 0;
  std::string code;
};

// Sends one request per client, all released at once by a latch; each client has its own
// connection, opened before the start so that connecting does not spread the requests out.
std::vector<Outcome> Race(std::uint16_t port, int clients,
                          const std::function<e2e::HttpReply(e2e::HttpClient&, int)>& request) {
  std::vector<Outcome> outcomes(clients);
  std::latch ready(clients);
  std::latch go(1);
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      e2e::HttpClient client(port);
      ready.count_down();
      go.wait();
      const auto reply = request(client, i);
      outcomes[i].status = reply.status();
      if (reply.status() >= 400) outcomes[i].code = json::parse(reply.body())["code"];
    });
  }
  ready.wait();
  go.count_down();
  for (auto& t : threads) t.join();
  return outcomes;
}

std::map<unsigned, int> CountByStatus(const std::vector<Outcome>& outcomes) {
  std::map<unsigned, int> counts;
  for (const auto& o : outcomes) ++counts[o.status];
  return counts;
}

// Every loser is a 409: LOCK_BUSY (the gate turned it away) or INVALID_STATE (it reached the
// database after the winner). Without the gate, only the row locks decide: INVALID_STATE only.
void ExpectLosersAre409(const std::vector<Outcome>& outcomes, bool gate) {
  for (const auto& o : outcomes) {
    if (o.status == 200) continue;
    EXPECT_EQ(o.status, 409u) << o.code;
    if (gate) {
      EXPECT_TRUE(o.code == "LOCK_BUSY" || o.code == "INVALID_STATE") << o.code;
    } else {
      EXPECT_EQ(o.code, "INVALID_STATE");
    }
  }
}

class RaceTest : public e2e::ServerTest {
 protected:
  // The events of `type` for `document` after everything committed has been delivered.
  int CountEvents(EventType type, DocumentId document) {
    if (!events_) events_ = StopAndCollectEvents();
    int count = 0;
    for (const auto& e : *events_) count += e.type == type && e.document_id == document;
    return count;
  }

 private:
  std::optional<std::vector<OutboxEvent>> events_;
};

TEST_P(RaceTest, FiftyConcurrentSubmitsOpenExactlyOneReview) {
  const std::string id = Create(Alice());
  const auto alice = Alice();
  const auto outcomes = Race(port_, kClients, [&](e2e::HttpClient& client, int) {
    return client.Request(http::verb::post, "/api/v1/documents/" + id + "/submit", "", alice);
  });

  auto counts = CountByStatus(outcomes);
  EXPECT_EQ(counts[200], 1);
  EXPECT_EQ(counts[409], kClients - 1);
  ExpectLosersAre409(outcomes, GetParam().gate);
  const auto reviews = Get("/api/v1/documents/" + id + "/reviews", Alice()).json()["items"];
  ASSERT_EQ(reviews.size(), 1u);
  EXPECT_EQ(reviews[0]["status"], "pending");
  EXPECT_EQ(CountEvents(EventType::kSubmitted, std::stoll(id)), 1);
}

TEST_P(RaceTest, FiftyConcurrentMixedApproveAndRejectDecideExactlyOnce) {
  const std::string id = Create(Alice());
  const std::string review = Submit(id, Alice());
  std::vector<e2e::Headers> reviewers;
  for (int i = 0; i < kClients; ++i) {
    reviewers.push_back(As("reviewer" + std::to_string(i), {"reviewer"}));
  }

  const auto outcomes = Race(port_, kClients, [&](e2e::HttpClient& client, int i) {
    const bool approve = i % 2 == 0;
    return client.Request(http::verb::post,
                          "/api/v1/reviews/" + review + (approve ? "/approve" : "/reject"),
                          approve ? std::string("{}") : json{{"reason", "no"}}.dump(),
                          reviewers[i]);
  });

  auto counts = CountByStatus(outcomes);
  EXPECT_EQ(counts[200], 1);
  EXPECT_EQ(counts[409], kClients - 1);
  ExpectLosersAre409(outcomes, GetParam().gate);

  const auto decided = Get("/api/v1/reviews/" + review, Alice()).json();
  const std::string status = decided["status"];
  ASSERT_TRUE(status == "approved" || status == "rejected") << status;
  const int approvals = CountEvents(EventType::kApproved, std::stoll(id));
  const int rejections = CountEvents(EventType::kRejected, std::stoll(id));
  EXPECT_EQ(approvals + rejections, 1);
  EXPECT_EQ(approvals, status == "approved" ? 1 : 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, RaceTest, e2e::AllBackends(), e2e::BackendName);

}  // namespace
}  // namespace docgate
