// Races over HTTP against the real server: many clients hit one document or one review in the
// same instant. Exactly one may win; the rest are 409s; nothing is a 5xx; the database holds
// exactly one review or one decision, and the outbox exactly one event for it.

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <optional>
#include <thread>
#include <vector>

#include "e2e/e2e_server.h"

namespace docgate {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

constexpr int kClients = 50;

// Every loser is a 409: LOCK_BUSY (the gate turned it away) or INVALID_STATE (it reached the
// database after the winner). Without the gate, only the row locks decide: INVALID_STATE only.
void ExpectLosersAre409(const std::vector<e2e::Outcome>& outcomes, bool gate) {
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
  const auto outcomes = e2e::Race(port_, kClients, [&](e2e::HttpClient& client, int) {
    return client.Request(http::verb::post, "/api/v1/documents/" + id + "/submit", "", alice);
  });

  auto counts = e2e::CountByStatus(outcomes);
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

  const auto outcomes = e2e::MixedDecisionRace(port_, review, reviewers);

  auto counts = e2e::CountByStatus(outcomes);
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

// A reader polling a draft while its author edits it: each edit replaces the draft's version, so
// a read of the document and then of its content could find the version gone in between. Every
// read must be one whole version: 200, with the content written as that version. One suite per
// store (the gate plays no part in reads).
class ReadRaceTest : public e2e::ServerTest {};

TEST_P(ReadRaceTest, ReadsOfADraftBeingEditedAreEachOneWholeVersion) {
  constexpr int kEdits = 200;
  const std::string id = Create(Alice(), "\u5165\u804c\u6307\u5357");  // 入职指南
  const std::string target = "/api/v1/documents/" + id;
  std::map<std::int64_t, std::string> written{{1, "# \u5165\u804c\u6307\u5357"}};
  std::atomic<bool> editing = true;
  std::thread author([&] {
    e2e::HttpClient client(port_);
    const auto alice = Alice();
    for (int i = 1; i <= kEdits; ++i) {
      const std::string content = "\u7b2c " + std::to_string(i) + " \u6b21\u4fee\u6539";  // 第 i 次修改
      const auto reply =
          client.Request(http::verb::put, target, json{{"content", content}}.dump(), alice);
      if (reply.status() != 200u) {
        ADD_FAILURE() << "edit " << i << ": " << reply.status() << " " << reply.body();
        break;
      }
      written[reply.json()["version"].get<std::int64_t>()] = content;
    }
    editing = false;
  });

  std::vector<std::pair<std::int64_t, std::string>> seen;
  e2e::HttpClient reader(port_);
  const auto bob = Bob();
  for (bool last = false; !last;) {
    last = !editing;  // one more read after the last edit
    const auto reply = reader.Request(http::verb::get, target + "/content", "", bob);
    ASSERT_EQ(reply.status(), 200u) << "read " << seen.size() << ": " << reply.body();
    seen.emplace_back(reply.json()["version"].get<std::int64_t>(), reply.json()["content"]);
  }
  author.join();

  ASSERT_EQ(written.size(), kEdits + 1u);
  for (const auto& [version, content] : seen) {
    ASSERT_TRUE(written.contains(version)) << "version " << version << " was never written";
    EXPECT_EQ(content, written.at(version)) << "version " << version;
  }
  EXPECT_EQ(seen.back().first, written.rbegin()->first) << "the last read sees the last edit";
}

INSTANTIATE_TEST_SUITE_P(Stores, ReadRaceTest, e2e::GatedBackends(), e2e::BackendName);

}  // namespace
}  // namespace docgate
