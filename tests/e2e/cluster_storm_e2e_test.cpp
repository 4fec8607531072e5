// Two docgate instances as separate processes behind HAProxy, on one PostgreSQL database, with the
// Redis gate and the relay to RabbitMQ (the production topology, docs/runbook.md "Several
// instances"), under a storm of clients (e2e/storm.h) during which one instance is SIGKILLed and
// started again. Afterwards every invariant of e2e/storm_invariants.h holds: no review decided
// twice, no document with two pending reviews, every approval with exactly one event, every event
// delivered and each document's in order, every acknowledged effect there, no idempotent retry
// with a second effect, every approved version ingested; and no client saw a 5xx other than 503
// with Retry-After. bench/ runs the same storm longer, with every fault (issue 19).

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "adapters/amqp/event_message.h"
#include "adapters/http/jwt_auth.h"
#include "app/system_clock.h"
#include "e2e/docgate_process.h"
#include "e2e/storm.h"
#include "e2e/storm_invariants.h"
#include "support/amqp_test_queue.h"
#include "support/haproxy.h"
#include "support/pg_test_database.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using e2e::DocgateProcess;
using e2e::FreePort;
using e2e::ReadyWithin;
using e2e::RequiredEnv;

class ClusterStormTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> Env(std::uint16_t port) const {
    return {{"DOCGATE_LISTEN", "127.0.0.1:" + std::to_string(port)},
            {"DOCGATE_DATABASE_URL", db_.url()},
            {"DOCGATE_JWT_SECRET", kSecret},
            {"DOCGATE_REDIS_URL", RequiredEnv("DOCGATE_TEST_REDIS_URL")},
            {"DOCGATE_LOCK_PREFIX", prefix_ + "lock:"},
            {"DOCGATE_AMQP_URL", amqp_url_},
            {"DOCGATE_AMQP_EXCHANGE", exchange_},
            {"DOCGATE_AMQP_QUEUE", exchange_ + ".consumers"},
            {"DOCGATE_LOG_LEVEL", "error"}};
  }

  std::string Token(const std::string& subject, const std::string& role) {
    return "Bearer " + SignHs256Token(kSecret,
                                      TokenClaims{subject, {role}, std::nullopt, clock_.Now() + 1h},
                                      clock_.Now());
  }

  // Everything the broker delivered so far, decoded.
  void Receive(std::chrono::milliseconds wait) {
    for (const auto& message : queue_.ReceiveFor(wait)) {
      const auto event = DecodeEventBody(message.body);
      ASSERT_TRUE(event) << message.body;
      received_.push_back(*event);
    }
  }

  static constexpr const char* kSecret = "cluster-storm-secret";
  PgTestDatabase db_;
  SystemClock clock_;
  const std::string prefix_ = e2e::UniquePrefix();
  const std::string amqp_url_ = RequiredEnv("DOCGATE_TEST_AMQP_URL");
  const std::string exchange_ = "docgate.e2e.storm." + prefix_;
  AmqpTestQueue queue_{amqp_url_, "", exchange_, "#"};
  std::vector<OutboxEvent> received_;
};

TEST_F(ClusterStormTest, AStormThroughHaproxyWithASigkilledInstanceKeepsEveryInvariant) {
  const std::uint16_t first_port = FreePort();
  const std::uint16_t second_port = FreePort();
  auto first = std::make_unique<DocgateProcess>(Env(first_port));
  ASSERT_TRUE(ReadyWithin(first_port, 30s));  // it migrates the database; then the second
  DocgateProcess second(Env(second_port));
  ASSERT_TRUE(ReadyWithin(second_port, 30s));
  const std::uint16_t balancer_port = FreePort();
  HaproxyProcess balancer(balancer_port, {first_port, second_port});
  ASSERT_TRUE(ReadyWithin(balancer_port, 30s));

  e2e::Storm storm(
      {.port = balancer_port,
       .clients = 6,
       .duration = 12s,
       .token = [this](const std::string& s, const std::string& r) { return Token(s, r); },
       .prefix = prefix_,
       .seed = 19});
  bool killed = false;
  bool restarted = false;
  const e2e::StormTally tally = storm.Run([&] {
    // Once the storm is well under way (approvals are being made), SIGKILL one instance in the
    // middle of whatever it does, and start it again while the storm goes on.
    const bool busy = e2e::Within(20s, [&] {
      return db_.Count("SELECT count(*) FROM kh_document_review WHERE status = 'approved'") >= 5;
    });
    if (!busy) return;
    first->Kill();
    killed = true;
    first = std::make_unique<DocgateProcess>(Env(first_port));
    restarted = ReadyWithin(first_port, 30s);
  });
  ASSERT_TRUE(killed) << "the storm made no approvals to kill an instance in the middle of";
  ASSERT_TRUE(restarted);

  // Drained: the outbox delivered and every approved version ingested, by both instances.
  const bool drained = e2e::Within(90s, [&] {
    Receive(100ms);
    return e2e::StormDrained(db_.url(), prefix_);
  });
  Receive(500ms);  // anything still on its way
  const e2e::StormReport report = e2e::CheckStormInvariants(db_.url(), prefix_, tally, received_);

  std::cout << "[ storm    ] " << e2e::StormSummary(tally, report) << "\n";
  EXPECT_TRUE(drained);
  EXPECT_TRUE(report.violations.empty());
  for (std::size_t i = 0; i < std::min<std::size_t>(report.violations.size(), 20); ++i) {
    ADD_FAILURE() << report.violations[i];
  }
  EXPECT_GT(tally.requests, 200);
  EXPECT_GT(report.approvals, 5);

  // The checker sees what it exists for: an event the broker had not delivered, and an
  // acknowledged decision the database does not show.
  ASSERT_FALSE(received_.empty());
  std::vector<OutboxEvent> one_lost(received_.begin() + 1, received_.end());
  std::erase(one_lost, received_.front());
  const auto lost = e2e::CheckStormInvariants(db_.url(), prefix_, tally, one_lost);
  EXPECT_EQ(lost.events_lost, 1);
  ASSERT_FALSE(tally.decided.empty());
  e2e::StormTally wrong = tally;
  wrong.decided.begin()->second = "no such status";
  EXPECT_EQ(e2e::CheckStormInvariants(db_.url(), prefix_, wrong, received_).violations.size(),
            report.violations.size() + 1);
}

}  // namespace
}  // namespace docgate
