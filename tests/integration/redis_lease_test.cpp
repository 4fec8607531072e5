// Lease renewal by the Redis lock gate, against the real redis-server (DOCGATE_TEST_REDIS_URL;
// scripts/services.sh starts it). Redis holds the clock here, so the tests wait for real TTLs,
// always by polling with a deadline. Missing variables fail the tests: nothing is skipped.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/redis/redis_connection.h"
#include "adapters/redis/redis_lock_gate.h"
#include "fakes/fake_random.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

class RedisLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* url = std::getenv("DOCGATE_TEST_REDIS_URL");
    if (url == nullptr || *url == '\0') {
      FAIL() << "DOCGATE_TEST_REDIS_URL is not set; run the tests through scripts/test.sh "
                "(make test)";
    }
    url_ = url;
    prefix_ = "test:" + std::to_string(::getpid()) + ":" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ":";
  }

  std::unique_ptr<RedisLockGate> MakeGate(std::chrono::milliseconds max_hold = 60s,
                                          const std::string& url = {}) {
    RedisConfig config;
    config.url = url.empty() ? url_ : url;
    config.connect_timeout = 2s;
    config.command_timeout = 1s;
    config.breaker_initial = 20ms;
    config.breaker_max = 100ms;
    config.lease_max_hold = max_hold;
    return std::make_unique<RedisLockGate>(std::move(config), random_, prefix_);
  }

  RedisReply Raw(const std::vector<std::string_view>& args) {
    if (!raw_) raw_ = std::make_unique<RedisConnection>(ParseRedisUrl(url_), nullptr, 2s, 2s);
    return raw_->Command(args);
  }
  std::string Key(const std::string& key) { return prefix_ + key; }

  std::string url_;
  std::string prefix_;
  FakeRandom random_;
  std::unique_ptr<RedisConnection> raw_;
};

TEST_F(RedisLeaseTest, ASlowHolderKeepsItsKeyPastTheTtl) {
  auto gate = MakeGate();
  const auto held = gate->Acquire("doc:submit:1", 300ms);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  std::this_thread::sleep_for(900ms);  // three TTLs: without renewal the key would be long gone
  EXPECT_EQ(Raw({"GET", Key("doc:submit:1")}).text, held.token);
  const long long pttl = Raw({"PTTL", Key("doc:submit:1")}).integer;
  EXPECT_GT(pttl, 0);
  EXPECT_LE(pttl, 300);
  EXPECT_EQ(gate->Acquire("doc:submit:1", 300ms).outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(gate->Release("doc:submit:1", held.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(Raw({"EXISTS", Key("doc:submit:1")}).integer, 0);
  EXPECT_EQ(gate->lost_leases(), 0u);
  EXPECT_EQ(gate->failures(), 0u);
}

TEST_F(RedisLeaseTest, TheRenewerNeverExtendsOrDeletesAForeignKey) {
  auto gate = MakeGate();
  const auto held = gate->Acquire("doc:submit:2", 300ms);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  // Another owner takes the key, without any expiry: a renewal reaching it would give it one.
  ASSERT_EQ(Raw({"SET", Key("doc:submit:2"), "other"}).text, "OK");
  const auto deadline = SteadyClock::now() + 5s;
  while (gate->lost_leases() == 0 && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(gate->lost_leases(), 1u);  // the renewer noticed at its first tick
  std::this_thread::sleep_for(400ms);  // a few more ticks: the lost lease is not tried again
  EXPECT_EQ(Raw({"GET", Key("doc:submit:2")}).text, "other");
  EXPECT_EQ(Raw({"PTTL", Key("doc:submit:2")}).integer, -1);
  EXPECT_EQ(gate->Release("doc:submit:2", held.token), ReleaseOutcome::kNotOwner);
  EXPECT_EQ(gate->lost_leases(), 1u);  // counted once, not again at release
  EXPECT_EQ(Raw({"GET", Key("doc:submit:2")}).text, "other");
  EXPECT_EQ(gate->failures(), 0u);
  Raw({"DEL", Key("doc:submit:2")});
}

TEST_F(RedisLeaseTest, TheKeyExpiresAtTheMaximumHold) {
  // A TTL of 1 s renewed every third of it, capped at 2.5 s: the renewer would have to stall for
  // most of a second to miss a renewal, so a loaded machine does not decide the outcome.
  constexpr auto kTtl = 1000ms;
  constexpr auto kMaxHold = 2500ms;
  auto gate = MakeGate(kMaxHold);
  const auto held = gate->Acquire("doc:submit:3", kTtl);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  const auto acquired = SteadyClock::now();
  // Watch the key until it is gone. A PTTL larger than the one read before is a renewal; no
  // reading may put the expiry past the maximum hold (plus the renewer's own delay in reaching
  // Redis, which the cap is computed before).
  long long previous_ttl = kTtl.count();
  int renewals = 0;
  const auto deadline = acquired + 20s;
  while (SteadyClock::now() < deadline) {
    const auto read_at = SteadyClock::now();
    const long long ttl = Raw({"PTTL", Key("doc:submit:3")}).integer;
    if (ttl < 0) break;  // -2: expired
    EXPECT_LE(read_at + std::chrono::milliseconds(ttl), acquired + kMaxHold + 500ms);
    if (ttl > previous_ttl) ++renewals;
    previous_ttl = ttl;
    std::this_thread::sleep_for(5ms);  // polling interval
  }
  EXPECT_EQ(Raw({"EXISTS", Key("doc:submit:3")}).integer, 0);
  EXPECT_GE(renewals, 1) << "the key expired at its TTL, never renewed";
  EXPECT_EQ(gate->Release("doc:submit:3", held.token), ReleaseOutcome::kNotOwner);
  EXPECT_EQ(gate->lost_leases(), 1u);
  EXPECT_EQ(gate->Acquire("doc:submit:3", 200ms).outcome, AcquireOutcome::kAcquired);
}

TEST_F(RedisLeaseTest, ReleaseStopsTheRenewalAndTheGateStopsWithLeasesOutstanding) {
  auto gate = MakeGate();
  const auto released = gate->Acquire("doc:submit:4", 300ms);
  ASSERT_EQ(released.outcome, AcquireOutcome::kAcquired);
  ASSERT_EQ(gate->Release("doc:submit:4", released.token), ReleaseOutcome::kReleased);
  // A foreign key on the released name afterwards is none of the renewer's business.
  ASSERT_EQ(Raw({"SET", Key("doc:submit:4"), "other"}).text, "OK");
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(gate->Acquire("doc:many:" + std::to_string(i), 30s).outcome,
              AcquireOutcome::kAcquired);
  }
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(Raw({"PTTL", Key("doc:submit:4")}).integer, -1);
  EXPECT_EQ(gate->lost_leases(), 0u);
  const auto before = SteadyClock::now();
  gate.reset();  // the renewer stops, with 20 leases still registered
  EXPECT_LT(SteadyClock::now() - before, 1s);
  Raw({"DEL", Key("doc:submit:4")});
}

TEST_F(RedisLeaseTest, AFailedRenewalIsRetriedAtTheNextTick) {
  TcpProxy proxy(PortOfUrl(url_));
  auto gate = MakeGate(60s, "redis://127.0.0.1:" + std::to_string(proxy.port()));
  const auto held = gate->Acquire("doc:submit:5", 900ms);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  proxy.Stop();  // the renewal at 300 ms fails (logged, never thrown)
  const auto deadline = SteadyClock::now() + 5s;
  while (gate->failures() == 0 && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_GE(gate->failures(), 1u);
  proxy.Start();
  std::this_thread::sleep_for(1500ms);  // well past the TTL: later renewals got through
  EXPECT_EQ(Raw({"GET", Key("doc:submit:5")}).text, held.token);
  EXPECT_EQ(gate->lost_leases(), 0u);
  EXPECT_EQ(gate->Release("doc:submit:5", held.token), ReleaseOutcome::kReleased);
}

}  // namespace
}  // namespace docgate
