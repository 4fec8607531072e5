// The Redis lock gate behind Sentinels (redis+sentinel://), against a real master, replica and
// three Sentinels started by the test (support/redis_sentinel_group.h): the gate finds the master
// (skipping a Sentinel that is down), follows a switch of the master before anything fails, and
// follows a killed master to the promoted replica while clients race.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/redis/redis_lock_gate.h"
#include "fakes/fake_random.h"
#include "support/redis_sentinel_group.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

class RedisSentinelTest : public ::testing::Test {
 protected:
  std::unique_ptr<RedisLockGate> MakeGate(const std::string& url) {
    RedisConfig config;
    config.url = url;
    config.connect_timeout = 1s;
    config.command_timeout = 500ms;
    config.breaker_initial = 20ms;
    config.breaker_max = 200ms;
    config.probe_interval = 100ms;
    return std::make_unique<RedisLockGate>(std::move(config), random_, "sentinel-test:");
  }

  // The value of the gate's key `key` on the server on `port` ("" when absent).
  static std::string ValueOn(int port, const std::string& key) {
    return AskRedis(port, {"GET", "sentinel-test:" + key}).text;
  }

  static bool NamesMaster(const RedisLockGate& gate, int port) {
    const auto master = gate.master();
    return master && master->port == std::to_string(port);
  }

  RedisSentinelGroup group_;
  FakeRandom random_;
};

TEST_F(RedisSentinelTest, LocksLiveOnTheMasterTheSentinelsName) {
  // The first Sentinel listed is down: the gate asks the next ones.
  const auto gate = MakeGate(group_.Url({"127.0.0.1:" + std::to_string(ClosedPort())}));
  const Acquisition held = gate->Acquire("doc:1", 10s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  EXPECT_TRUE(NamesMaster(*gate, group_.OriginalMasterPort()));
  EXPECT_EQ(ValueOn(group_.OriginalMasterPort(), "doc:1"), held.token);
  EXPECT_EQ(gate->Acquire("doc:1", 10s).outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(gate->Release("doc:1", held.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(gate->State(), "ok");
  EXPECT_EQ(gate->failures(), 0u);
}

TEST_F(RedisSentinelTest, AMasterSwitchIsFollowedBeforeAnythingFails) {
  const auto gate = MakeGate(group_.Url());
  ASSERT_EQ(gate->Acquire("doc:before", 10s).outcome, AcquireOutcome::kAcquired);
  const int old_master = group_.OriginalMasterPort();

  group_.ManualFailover();
  ASSERT_TRUE(WithinRedis(30s, [&] { return group_.MasterPort() != old_master; }));
  const int new_master = group_.MasterPort();
  // The old master is alive and now a replica: it refuses writes.
  ASSERT_TRUE(WithinRedis(30s, [&] {
    return AskRedis(old_master, {"SET", "probe", "1"}).text.starts_with("READONLY");
  }));

  // With no traffic at all, the gate asks the Sentinels every probe_interval and moves to the
  // new master, so the next acquisition goes there without a single failure.
  EXPECT_TRUE(WithinRedis(10s, [&] { return NamesMaster(*gate, new_master); }));
  const Acquisition after = gate->Acquire("doc:after", 10s);
  ASSERT_EQ(after.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(ValueOn(new_master, "doc:after"), after.token);
  EXPECT_EQ(gate->failures(), 0u);
  EXPECT_EQ(gate->State(), "ok");
}

// 4 clients acquire and release in a loop while the master is SIGKILLed: the gate answers every
// call (kBackendFailed while there is no master), then follows the promoted replica by itself.
TEST_F(RedisSentinelTest, AKilledMasterIsFollowedToThePromotedReplicaWhileClientsRace) {
  const auto gate = MakeGate(group_.Url());
  std::atomic<bool> stop{false};
  std::atomic<int> acquired{0}, busy{0}, failed{0};
  std::vector<std::jthread> clients;
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back([&, i] {
      const std::string key = "race:" + std::to_string(i % 2);
      while (!stop) {
        const Acquisition result = gate->Acquire(key, 5s);
        switch (result.outcome) {
          case AcquireOutcome::kAcquired:
            ++acquired;
            gate->Release(key, result.token);
            break;
          case AcquireOutcome::kBusy:
            ++busy;
            break;
          case AcquireOutcome::kBackendFailed:
            ++failed;
            std::this_thread::sleep_for(5ms);  // what a caller does: go on without the gate
            break;
        }
      }
    });
  }
  const int old_master = group_.OriginalMasterPort();
  ASSERT_TRUE(WithinRedis(10s, [&] { return acquired > 20; }));

  group_.Kill(old_master);
  ASSERT_TRUE(WithinRedis(30s, [&] { return group_.MasterPort() != old_master; }))
      << "Sentinel did not fail over";
  const int new_master = group_.MasterPort();
  EXPECT_TRUE(WithinRedis(20s, [&] { return NamesMaster(*gate, new_master); }));
  const int acquired_after_failover = acquired.load();
  EXPECT_TRUE(WithinRedis(20s, [&] { return acquired > acquired_after_failover + 20; }))
      << "the gate did not acquire on the new master";
  stop = true;
  clients.clear();

  const Acquisition probe = gate->Acquire("doc:probe", 10s);
  ASSERT_EQ(probe.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(ValueOn(new_master, "doc:probe"), probe.token);
  EXPECT_EQ(gate->State(), "ok");
  EXPECT_GT(failed.load(), 0) << "the outage was not seen at all";
}

}  // namespace
}  // namespace docgate
