// End-to-end with the Redis gate between docgate and a redis-server that goes away: requests keep
// succeeding under the database locks (no 5xx), /readyz says degraded, and the gate is back when
// Redis is, without restarting docgate.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_server.h"
#include "support/redis_sentinel_group.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace http = boost::beast::http;

class RedisGateTest : public e2e::ServerTest {
 protected:
  static std::string RedisUrl() {
    const char* url = std::getenv("DOCGATE_TEST_REDIS_URL");
    return url == nullptr ? std::string() : url;
  }
  // Restarts docgate with its Redis gate behind `proxy`, with a quick breaker so that the tests
  // see it close again within a few hundred milliseconds.
  void StartBehind(const TcpProxy& proxy) {
    Config config = MakeConfig();
    config.redis.url = "redis://127.0.0.1:" + std::to_string(proxy.port());
    config.redis.breaker_initial = 50ms;
    config.redis.breaker_max = 200ms;
    StartApp(config);
  }

  // One round of races: 8 clients submit one new document at once, then 8 reviewers approve or
  // reject its review at once. Exactly one of each race wins (200), the others get 409, and
  // nothing is a 5xx.
  void RaceRound(const std::string& phase) {
    constexpr int kClients = 8;
    SCOPED_TRACE(phase);
    const e2e::Headers alice = Alice();
    const std::string id = Create(alice);
    const auto submits = e2e::Race(port_, kClients, [&](e2e::HttpClient& client, int) {
      return client.Request(http::verb::post, "/api/v1/documents/" + id + "/submit", "", alice);
    });
    auto submit_counts = e2e::CountByStatus(submits);
    EXPECT_EQ(submit_counts[200], 1);
    EXPECT_EQ(submit_counts[409], kClients - 1);
    const std::string review = Get("/api/v1/documents/" + id, alice).json()["current_review_id"];
    std::vector<e2e::Headers> reviewers;
    for (int i = 0; i < kClients; ++i)
      reviewers.push_back(As("r" + std::to_string(i), {"reviewer"}));
    const auto decisions = e2e::Race(port_, kClients, [&](e2e::HttpClient& client, int i) {
      const bool approve = i % 2 == 0;
      return client.Request(
          http::verb::post, "/api/v1/reviews/" + review + (approve ? "/approve" : "/reject"),
          approve ? std::string("{}") : json{{"reason", "no"}}.dump(), reviewers[i]);
    });
    auto decision_counts = e2e::CountByStatus(decisions);
    EXPECT_EQ(decision_counts[200], 1);
    EXPECT_EQ(decision_counts[409], kClients - 1);
  }
};

TEST_P(RedisGateTest, ARedisOutageDegradesWithoutErrorsAndHealsByItself) {
  TcpProxy proxy(PortOfUrl(RedisUrl()));
  StartBehind(proxy);
  EXPECT_EQ(Get("/readyz", {}).json()["checks"]["lock"], "ok");

  const std::string held_id = Create(Alice());
  const auto held = app_->internals().gate.Acquire("doc:submit:" + held_id, 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  ExpectProblem(Post("/api/v1/documents/" + held_id + "/submit", Alice()), 409, "LOCK_BUSY");

  proxy.Stop();
  const std::string id = Create(Alice());
  const std::string review = Submit(id, Alice());  // 200 through the row locks alone
  const auto ready = Get("/readyz", {});
  EXPECT_EQ(ready.status(), 200u);
  EXPECT_EQ(ready.json()["status"], "degraded");
  EXPECT_EQ(ready.json()["checks"]["lock"], "degraded");

  proxy.Start();
  // Readiness probes by itself: with no other request, /readyz reports the gate back.
  const auto ready_deadline = std::chrono::steady_clock::now() + 10s;
  std::string lock_state;
  while (std::chrono::steady_clock::now() < ready_deadline && lock_state != "ok") {
    lock_state = Get("/readyz", {}).json()["checks"]["lock"];
    if (lock_state != "ok") std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(lock_state, "ok");
  // The breaker re-probes on the next calls; the held key is still in Redis, so once the gate is
  // back the held document answers LOCK_BUSY again.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  unsigned status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    status = Post("/api/v1/documents/" + held_id + "/submit", Alice()).status();
    if (status == 409u) break;
    ASSERT_EQ(status, 200u);  // degraded: the row locks let it through; never 5xx
    Post("/api/v1/documents/" + held_id + "/withdraw", Alice());
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(status, 409u);
  EXPECT_EQ(Get("/readyz", {}).json()["checks"]["lock"], "ok");
  EXPECT_EQ(Post("/api/v1/reviews/" + review + "/approve", Bob()).status(), 200u);
}

// Readiness tells the truth with no traffic at all: nobody but the probe asks anything while
// Redis goes away and comes back.
TEST_P(RedisGateTest, AnIdleInstanceReportsRedisGoneAndBackWithinSeconds) {
  TcpProxy proxy(PortOfUrl(RedisUrl()));
  StartBehind(proxy);
  const auto lock_state_becomes = [&](const std::string& wanted) {
    const auto deadline = std::chrono::steady_clock::now() + 15s;
    std::string state;
    while (std::chrono::steady_clock::now() < deadline) {
      state = Get("/readyz", {}).json()["checks"]["lock"];
      if (state == wanted) return true;
      std::this_thread::sleep_for(50ms);
    }
    ADD_FAILURE() << "lock stayed " << state << ", expected " << wanted;
    return false;
  };
  ASSERT_TRUE(lock_state_becomes("ok"));
  proxy.Stop();
  ASSERT_TRUE(lock_state_becomes("degraded"));
  const auto ready = Get("/readyz", {});
  EXPECT_EQ(ready.status(), 200u) << "a degraded gate never makes /readyz 503";
  EXPECT_EQ(ready.json()["status"], "degraded");
  proxy.Start();
  EXPECT_TRUE(lock_state_becomes("ok"));
}

// 8 clients race on one document and then on its review, round after round, before, during and
// after a Redis outage: every round has exactly one winner per race, the losers are 409s, and no
// response is a 5xx; /readyz says degraded during the outage and ok again after it.
TEST_P(RedisGateTest, RacesUnderARedisOutageKeepExactlyOneWinnerAndNo5xx) {
  TcpProxy proxy(PortOfUrl(RedisUrl()));
  StartBehind(proxy);
  for (int i = 0; i < 3; ++i) RaceRound("before the outage");
  EXPECT_EQ(Get("/readyz", {}).json()["checks"]["lock"], "ok");

  proxy.Stop();
  for (int i = 0; i < 3; ++i) RaceRound("during the outage");
  const auto degraded = Get("/readyz", {});
  EXPECT_EQ(degraded.status(), 200u);
  EXPECT_EQ(degraded.json()["checks"]["lock"], "degraded");

  proxy.Start();
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  std::string lock_state;
  while (std::chrono::steady_clock::now() < deadline) {
    RaceRound("after the outage");
    lock_state = Get("/readyz", {}).json()["checks"]["lock"];
    if (lock_state == "ok") break;
  }
  EXPECT_EQ(lock_state, "ok") << "the gate must come back without a restart";
}

// The gate behind Redis Sentinel: the master is SIGKILLed while clients race; Sentinel promotes
// the replica, the gate follows it by itself, and no round sees anything but one winner and 409s.
TEST_P(RedisGateTest, ASentinelFailoverWhileClientsRaceKeepsOneWinnerAndNo5xx) {
  RedisSentinelGroup group;
  Config config = MakeConfig();
  config.redis.url = group.Url();
  config.redis.breaker_initial = 50ms;
  config.redis.breaker_max = 200ms;
  config.redis.probe_interval = 200ms;
  StartApp(config);

  for (int i = 0; i < 2; ++i) RaceRound("before the failover");
  const int old_master = group.OriginalMasterPort();
  group.Kill(old_master);
  // Races go on while there is no master and while Sentinel fails over.
  const auto failover_deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < failover_deadline) {
    RaceRound("during the failover");
    if (WithinRedis(0ms, [&] { return group.MasterPort() != old_master; })) break;
  }
  const int new_master = group.MasterPort();
  ASSERT_NE(new_master, old_master) << "Sentinel did not fail over within 30 s";

  const auto deadline = std::chrono::steady_clock::now() + 20s;
  std::string lock_state;
  while (std::chrono::steady_clock::now() < deadline && lock_state != "ok") {
    RaceRound("after the failover");
    lock_state = Get("/readyz", {}).json()["checks"]["lock"];
  }
  EXPECT_EQ(lock_state, "ok") << "the gate must follow the new master without a restart";
  // The gate's locks are on the new master now: one held through the gate is there.
  const std::string held_id = Create(Alice());
  const auto held = app_->internals().gate.Acquire("doc:submit:" + held_id, 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  EXPECT_FALSE(AskRedis(new_master, {"KEYS", "*doc:submit:" + held_id}).elements.empty());
  ExpectProblem(Post("/api/v1/documents/" + held_id + "/submit", Alice()), 409, "LOCK_BUSY");
}

INSTANTIATE_TEST_SUITE_P(Backends, RedisGateTest, ::testing::Values(e2e::kPostgresWithRedis),
                         e2e::BackendName);

}  // namespace
}  // namespace docgate
