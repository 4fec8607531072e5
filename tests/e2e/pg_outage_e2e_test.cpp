// Fault test (issue 3): the real Application on PostgreSQL, reached through a TcpProxy the test
// cuts while 8 clients create, submit, approve and read documents over HTTP. During the outage
// every request gets 503 UNAVAILABLE with Retry-After and /readyz says the database is down; once
// the proxy forwards again the same running Application answers 2xx; and the database, read with
// SQL at the end, holds no half-applied transition.

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/http/jwt_auth.h"
#include "e2e/http_client.h"
#include "e2e/pg_outage_e2e_fixture.h"
#include "fakes/recording_consumer.h"
#include "runtime/application.h"
#include "support/pg_test_database.h"
#include "support/tcp_proxy.h"

namespace docgate::pg_outage_e2e {
namespace {

constexpr int kClients = 8;
// Bounds on the waits for a state; reaching one fails the test.
constexpr auto kPhaseDeadline = 60s;

// Consistency of the final database, each query counting violations.
constexpr const char* kPendingDocumentWithoutItsOnePendingReview =
    "SELECT count(*) FROM kh_document d WHERE d.status = 'pending_review' AND ("
    "  d.current_review_id IS NULL"
    "  OR (SELECT count(*) FROM kh_document_review r"
    "      WHERE r.document_id = d.id AND r.status = 'pending') <> 1"
    "  OR NOT EXISTS (SELECT 1 FROM kh_document_review r WHERE r.id = d.current_review_id"
    "                 AND r.document_id = d.id AND r.status = 'pending'))";
constexpr const char* kPendingReviewOfDocumentNotPending =
    "SELECT count(*) FROM kh_document_review r JOIN kh_document d ON d.id = r.document_id"
    " WHERE r.status = 'pending' AND d.status <> 'pending_review'";
constexpr const char* kCurrentReviewOutsidePendingReview =
    "SELECT count(*) FROM kh_document WHERE status <> 'pending_review'"
    " AND current_review_id IS NOT NULL";
// Documents here are approved at most once and never edited afterwards, so an approved review's
// document must be approved at exactly that version.
constexpr const char* kApprovedReviewNotAppliedToItsDocument =
    "SELECT count(*) FROM kh_document_review r JOIN kh_document d ON d.id = r.document_id"
    " WHERE r.status = 'approved' AND (d.status <> 'approved'"
    "  OR d.approved_version IS DISTINCT FROM r.document_version OR d.approved_at IS NULL"
    "  OR r.decided_by IS NULL OR r.decided_at IS NULL)";
constexpr const char* kApprovedDocumentWithoutApprovedReview =
    "SELECT count(*) FROM kh_document d WHERE (d.status = 'approved'"
    "  OR d.approved_version IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM kh_document_review r"
    "  WHERE r.document_id = d.id AND r.status = 'approved'"
    "  AND r.document_version = d.approved_version)";
// Each review has exactly one submitted event and, when approved, exactly one approved event,
// both naming its document and version.
constexpr const char* kReviewWithWrongEvents =
    "SELECT count(*) FROM kh_document_review r WHERE"
    " (SELECT count(*) FROM kh_outbox o WHERE o.review_id = r.id"
    "  AND o.event_type = 'document.submitted' AND o.document_id = r.document_id"
    "  AND o.version = r.document_version) <> 1"
    " OR (SELECT count(*) FROM kh_outbox o WHERE o.review_id = r.id"
    "  AND o.event_type = 'document.approved' AND o.document_id = r.document_id"
    "  AND o.version = r.document_version) <> CASE WHEN r.status = 'approved' THEN 1 ELSE 0 END";
constexpr const char* kEventWithoutReview =
    "SELECT count(*) FROM kh_outbox o"
    " WHERE NOT EXISTS (SELECT 1 FROM kh_document_review r WHERE r.id = o.review_id)";
constexpr const char* kEventsByType =
    "SELECT event_type, count(*) FROM kh_outbox GROUP BY event_type";
constexpr const char* kReviewsByStatus =
    "SELECT status, count(*) FROM kh_document_review GROUP BY status";
constexpr const char* kDocumentIds = "SELECT id FROM kh_document";
constexpr const char* kReviews = "SELECT id, document_id, status FROM kh_document_review";
constexpr const char* kUndeliveredEvents =
    "SELECT count(*) FROM kh_outbox WHERE delivered_at IS NULL";
constexpr const char* kEventIds = "SELECT event_id FROM kh_outbox";

std::map<std::string, std::int64_t> CountsByKey(const PgTestDatabase& db, const char* sql) {
  std::map<std::string, std::int64_t> counts;
  for (const auto& row : db.Execute(sql)) {
    counts[row[0].as<std::string>()] = row[1].as<std::int64_t>();
  }
  return counts;
}

std::int64_t CountOf(const std::map<std::string, std::int64_t>& counts, const std::string& key) {
  const auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

TEST(PgOutageE2eTest, OutageGives503OnlyThenRecoversWithoutRestartLeavingNoHalfTransition) {
  spdlog::set_level(spdlog::level::err);
  PgTestDatabase db;
  TcpProxy proxy(PortOfUrl(db.url()));

  Config config;
  config.http.address = "127.0.0.1";
  config.http.port = 0;
  config.http.io_threads = 2;
  config.http.worker_threads = 4;
  config.http.shutdown_grace = 10s;
  config.database.url = WithHostPort(db.url(), "127.0.0.1:" + std::to_string(proxy.port()));
  config.database.pool_size = 4;
  config.database.connect_timeout = 1s;
  config.database.statement_timeout = 1s;
  config.database.busy_timeout = 1s;
  config.auth.jwt_secret = "pg-outage-e2e-test-secret";
  Application app(config);
  RecordingConsumer consumer;
  app.AddConsumer(consumer);
  app.Start();
  const std::uint16_t port = app.port();

  const auto bearer = [&](const std::string& subject, const std::string& role) -> Headers {
    const TimePoint now = app.internals().clock.Now();
    return {
        {"Authorization",
         "Bearer " + SignHs256Token(app.jwt_secret(),
                                    TokenClaims{subject, {role}, std::nullopt, now + 1h}, now)}};
  };
  // GET /readyz: status (0: no answer) and body (or the transport error).
  const auto readyz = [port]() -> std::pair<unsigned, std::string> {
    try {
      HttpClient client(port, kRequestTimeout);
      const auto reply = client.Request(http::verb::get, "/readyz");
      return {reply.status(), reply.body()};
    } catch (const std::exception& e) {
      return {0, e.what()};
    }
  };

  Timeline timeline;
  std::vector<std::unique_ptr<OutageClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<OutageClient>(
        i, port, bearer("author-" + std::to_string(i), "author"),
        bearer("reviewer-" + std::to_string(i), "reviewer"), timeline));
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  // Stops and joins the clients on every way out, a failed ASSERT included.
  struct StopAndJoin {
    std::atomic<bool>& stop;
    std::vector<std::thread>& threads;
    ~StopAndJoin() {
      stop = true;
      for (std::thread& thread : threads) {
        if (thread.joinable()) thread.join();
      }
    }
  } stop_and_join{stop, threads};
  for (auto& client : clients) threads.emplace_back([&stop, c = client.get()] { c->Run(stop); });
  const auto every_client = [&clients](int (OutageClient::*counter)() const, int at_least) {
    return [&clients, counter, at_least] {
      return std::all_of(clients.begin(), clients.end(),
                         [&](const auto& c) { return ((*c).*counter)() >= at_least; });
    };
  };

  // (a) Healthy: every client completes two approvals.
  const bool healthy =
      PollUntil(every_client(&OutageClient::approvals_before_cut, 2), kPhaseDeadline);

  // (b) Outage. Requests in flight at the cut may end either way; every request sent after
  // proxy.Stop() returned and answered before the restore must be 503.
  timeline.Set(Timeline::kCutStarted);
  proxy.Stop();
  timeline.Set(Timeline::kCutEstablished);
  std::vector<std::string> readyz_during_outage;
  const auto check_readyz_down = [&] {
    const auto [status, text] = readyz();
    json body = json::parse(text, nullptr, false);
    if (status != 503 || !body.is_object() || body["status"] != "down" ||
        body["checks"]["database"] != "down") {
      readyz_during_outage.push_back(std::to_string(status) + " " + text);
    }
  };
  check_readyz_down();
  int readyz_checks = 1;
  const bool outage_seen = PollUntil(
      [&] {
        check_readyz_down();
        ++readyz_checks;
        return every_client(&OutageClient::outage_503s, 5)();
      },
      kPhaseDeadline);

  // (c) Restore, with the same Application.
  timeline.Set(Timeline::kRestoreStarted);
  proxy.Start();
  timeline.Set(Timeline::kRestored);
  const auto restored_at = SteadyClock::now();
  std::string last_readyz;
  const bool ready_again = PollUntil(
      [&] {
        const auto [status, text] = readyz();
        last_readyz = std::to_string(status) + " " + text;
        json body = json::parse(text, nullptr, false);
        return status == 200 && body.is_object() && body["checks"]["database"] == "ok";
      },
      kPhaseDeadline);
  const auto ready_after =
      std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - restored_at);
  const bool recovered =
      PollUntil(every_client(&OutageClient::approvals_after_restore, 2), kPhaseDeadline);
  stop = true;
  for (std::thread& thread : threads) thread.join();

  ASSERT_TRUE(healthy) << "the clients did not complete their approvals before the cut";
  EXPECT_TRUE(outage_seen) << "not every client got 503s during the outage";
  EXPECT_TRUE(readyz_during_outage.empty())
      << readyz_during_outage.size() << " of " << readyz_checks
      << " /readyz during the outage were not 503 down; first: " << readyz_during_outage.front();
  EXPECT_TRUE(ready_again) << "/readyz after the restore: " << last_readyz;
  EXPECT_TRUE(recovered) << "not every client completed approvals after the restore";

  // Per phase. A request straddling the cut or the restore belongs to neither side.
  const SteadyTime cut_started = *timeline.Get(Timeline::kCutStarted);
  const SteadyTime cut_established = *timeline.Get(Timeline::kCutEstablished);
  const SteadyTime restore_started = *timeline.Get(Timeline::kRestoreStarted);
  const SteadyTime restored = *timeline.Get(Timeline::kRestored);
  PhaseCounts before_cut, at_cut, outage, at_restore, after_restore;
  int conflicts = 0;
  std::vector<std::string> failures;
  const auto fail = [&failures](const std::string& why, const Exchange& ex) {
    if (failures.size() < 20) failures.push_back(why + ": " + Describe(ex));
  };
  std::set<std::int64_t> created, submit_attempts, approve_attempts, approved;
  for (const auto& client : clients) {
    // Transitions of this client whose outcome the cut made unknown: a 503 or no answer to a
    // request in flight at the cut, which may have committed all the same.
    std::set<std::string> unknown_at_cut;
    for (const Exchange& ex : client->exchanges()) {
      if (ex.status == 0) fail("no response (a hang or a dropped connection)", ex);
      if (ex.status >= 500 && ex.status != 503) fail("5xx other than 503", ex);
      if (ex.status == 503 && (ex.code != "UNAVAILABLE" || ex.retry_after < 1 ||
                               ex.content_type != "application/problem+json")) {
        fail("503 without UNAVAILABLE problem+json and Retry-After >= 1", ex);
      }
      const bool success = ex.status >= 200 && ex.status < 300;
      // The only other answer a client expects: 409 INVALID_STATE to a transition it repeats
      // after an unknown outcome that had in fact committed.
      const bool in_flight_at_cut = ex.answered >= cut_started && ex.sent < cut_established;
      if (in_flight_at_cut && (ex.status == 503 || ex.status == 0))
        unknown_at_cut.insert(ex.target);
      // The one other answer a client may get: 409 INVALID_STATE when it repeats a transition
      // whose outcome the cut made unknown and which had in fact committed. Anywhere else a 409
      // means a 503 was given for a transition that was applied.
      const bool expected_conflict = ex.status == 409 && ex.code == "INVALID_STATE" &&
                                     (ex.step == Step::kSubmit || ex.step == Step::kApprove) &&
                                     unknown_at_cut.count(ex.target) != 0;
      if (ex.status == 409) ++conflicts;
      if (ex.answered < cut_started) {
        before_cut.Add(ex);
        if (!success) fail("not 2xx before the cut", ex);
      } else if (ex.sent < cut_established) {
        at_cut.Add(ex);
        if (!success && ex.status != 503 && !expected_conflict) fail("unexpected at the cut", ex);
      } else if (ex.answered < restore_started) {
        outage.Add(ex);
        if (ex.status != 503) fail("not 503 during the outage", ex);
      } else if (ex.sent < restored) {
        at_restore.Add(ex);
        if (!success && ex.status != 503 && !expected_conflict) {
          fail("unexpected at the restore", ex);
        }
      } else {
        after_restore.Add(ex);
        if (!success && ex.status != 503 && !expected_conflict) {
          fail("unexpected after the restore", ex);
        }
      }
    }
    for (const std::string& anomaly : client->anomalies()) failures.push_back(anomaly);
    created.insert(client->created().begin(), client->created().end());
    submit_attempts.insert(client->submit_attempts().begin(), client->submit_attempts().end());
    approve_attempts.insert(client->approve_attempts().begin(), client->approve_attempts().end());
    approved.insert(client->approved().begin(), client->approved().end());
  }
  std::cout << "before the cut:    " << before_cut.Describe() << "\n"
            << "at the cut:        " << at_cut.Describe() << "\n"
            << "outage:            " << outage.Describe() << "\n"
            << "at the restore:    " << at_restore.Describe() << "\n"
            << "after the restore: " << after_restore.Describe() << "\n"
            << "/readyz: " << readyz_checks << " checks during the outage, 200 again "
            << ready_after.count() << " ms after the restore; " << conflicts
            << " transitions repeated after committing unseen at the cut (409)\n";
  EXPECT_TRUE(failures.empty()) << failures.size() << " bad responses, first: "
                                << (failures.empty() ? "" : failures.front());
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
  EXPECT_GT(before_cut.Successes(), 0);
  EXPECT_EQ(before_cut.Successes(), before_cut.total);
  EXPECT_GT(outage.Count(503), 0);
  EXPECT_EQ(outage.Count(503), outage.total) << "every request inside the outage gets 503";
  EXPECT_GT(after_restore.Successes(), 0);
  for (const PhaseCounts* phase : {&before_cut, &at_cut, &outage, &at_restore, &after_restore}) {
    for (const auto& [status, count] : phase->by_status) {
      EXPECT_FALSE(status == 0 || (status >= 500 && status != 503)) << count << " x " << status;
    }
  }

  // (d) The database holds whole transitions only.
  EXPECT_EQ(db.Count(kPendingDocumentWithoutItsOnePendingReview), 0);
  EXPECT_EQ(db.Count(kPendingReviewOfDocumentNotPending), 0);
  EXPECT_EQ(db.Count(kCurrentReviewOutsidePendingReview), 0);
  EXPECT_EQ(db.Count(kApprovedReviewNotAppliedToItsDocument), 0);
  EXPECT_EQ(db.Count(kApprovedDocumentWithoutApprovedReview), 0);
  EXPECT_EQ(db.Count(kReviewWithWrongEvents), 0);
  EXPECT_EQ(db.Count(kEventWithoutReview), 0);
  const auto events = CountsByKey(db, kEventsByType);
  const auto reviews = CountsByKey(db, kReviewsByStatus);
  std::int64_t all_reviews = 0;
  for (const auto& [status, count] : reviews) all_reviews += count;
  EXPECT_EQ(CountOf(events, "document.submitted"), all_reviews);
  EXPECT_EQ(CountOf(events, "document.approved"), CountOf(reviews, "approved"));
  EXPECT_EQ(CountOf(events, "document.rejected"), CountOf(reviews, "rejected"));
  EXPECT_EQ(CountOf(events, "document.withdrawn"), CountOf(reviews, "withdrawn"));
  EXPECT_EQ(CountOf(reviews, "rejected") + CountOf(reviews, "withdrawn"), 0);
  std::cout << "database: " << all_reviews << " reviews (" << CountOf(reviews, "approved")
            << " approved, " << CountOf(reviews, "pending") << " pending), "
            << CountOf(events, "document.submitted") << " submitted and "
            << CountOf(events, "document.approved") << " approved events; clients saw "
            << created.size() << " documents created, " << approved.size() << " approvals\n";

  // What the clients were told happened did happen, and nothing happened that no client asked.
  std::set<std::int64_t> documents;
  for (const auto& row : db.Execute(kDocumentIds)) documents.insert(row[0].as<std::int64_t>());
  for (const std::int64_t id : created) EXPECT_TRUE(documents.count(id)) << "document " << id;
  std::map<std::int64_t, std::string> review_status;
  for (const auto& row : db.Execute(kReviews)) {
    const auto id = row[0].as<std::int64_t>();
    review_status[id] = row[2].as<std::string>();
    EXPECT_TRUE(submit_attempts.count(row[1].as<std::int64_t>()))
        << "review " << id << " of a document no client submitted";
    if (review_status[id] == "approved") {
      EXPECT_TRUE(approve_attempts.count(id)) << "review " << id << " approved unasked";
    }
  }
  for (const std::int64_t id : approved) {
    EXPECT_EQ(review_status[id], "approved") << "review " << id << " was answered 200 approved";
  }

  // The event relay recovered too: every outbox row is delivered in the end.
  EXPECT_TRUE(PollUntil(
      [&] {
        app.internals().relay.Wake();
        return db.Count(kUndeliveredEvents) == 0;
      },
      kPhaseDeadline))
      << db.Count(kUndeliveredEvents) << " outbox rows still undelivered";
  std::set<std::string> delivered;
  for (const OutboxEvent& event : consumer.events()) delivered.insert(event.event_id);
  for (const auto& row : db.Execute(kEventIds)) {
    EXPECT_TRUE(delivered.count(row[0].as<std::string>())) << row[0].as<std::string>();
  }
}

}  // namespace
}  // namespace docgate::pg_outage_e2e
