// The Redis lock gate behind Sentinels (redis+sentinel://), against a real master, replica and
// three Sentinels started by the test (support/redis_sentinel_group.h): the gate finds the master
// (skipping a Sentinel that is down), follows a switch of the master before anything fails, and
// follows a killed master to the promoted replica while clients race. With Sentinels that require
// AUTH: the gate AUTHs with the URL's sentinel_password (or ACL user) and the master's own
// credentials apart; a wrong or missing one is refused, named in the log without the password, and
// the gate stays degraded; a Sentinel that refuses AUTH is skipped like one that is down.

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/redis/redis_lock_gate.h"
#include "adapters/redis/redis_sentinel.h"
#include "fakes/fake_random.h"
#include "support/redis_sentinel_group.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<RedisLockGate> MakeSentinelGate(const std::string& url, RandomSource& random) {
  RedisConfig config;
  config.url = url;
  config.connect_timeout = 1s;
  config.command_timeout = 500ms;
  config.breaker_initial = 20ms;
  config.breaker_max = 200ms;
  config.probe_interval = 100ms;
  return std::make_unique<RedisLockGate>(std::move(config), random, "sentinel-test:");
}

class RedisSentinelTest : public ::testing::Test {
 protected:
  std::unique_ptr<RedisLockGate> MakeGate(const std::string& url) {
    return MakeSentinelGate(url, random_);
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

// Sentinels that require AUTH (requirepass, and an ACL user besides), in front of a master and
// replica with a password of their own. One group serves the whole suite: these tests change
// nothing in it but lock keys.
class RedisSentinelAuthTest : public ::testing::Test {
 protected:
  static constexpr const char* kMasterPassword = "master-pw-5e1f0c";
  static constexpr const char* kSentinelPassword = "sentinel-pw-90ab7d";
  static constexpr const char* kAclUser = "docgate-watcher";
  static constexpr const char* kAclPassword = "acl-pw-77c3e2";
  static constexpr const char* kWrongPassword = "wrong-pw-31415926";

  static void SetUpTestSuite() {
    RedisSentinelGroup::Options options;
    options.master_password = kMasterPassword;
    options.sentinel_password = kSentinelPassword;
    options.sentinel_acl_user = kAclUser;
    options.sentinel_acl_password = kAclPassword;
    options.ready_for_failover = false;  // no failover here
    group_ = std::make_unique<RedisSentinelGroup>(std::move(options));
  }
  static void TearDownTestSuite() { group_.reset(); }
  void SetUp() override { ASSERT_NE(group_, nullptr) << "the Sentinel group did not start"; }

  // A gate with the master's password in the userinfo and `query` for the Sentinels, after
  // `extra` Sentinels.
  std::unique_ptr<RedisLockGate> MakeGate(const std::string& query,
                                          const std::vector<std::string>& extra = {}) {
    return MakeSentinelGate(Url(query, extra), random_);
  }
  static std::string Url(const std::string& query, const std::vector<std::string>& extra = {}) {
    return group_->UrlWith(std::string(":") + kMasterPassword + "@", query, extra);
  }

  // Acquires, finds the token on the master, sees the key busy, releases: the gate works.
  void ExpectLocksOnTheMaster(RedisLockGate& gate, const std::string& key) {
    const Acquisition held = gate.Acquire(key, 10s);
    ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
    const int master = group_->OriginalMasterPort();
    EXPECT_TRUE(gate.master() && gate.master()->port == std::to_string(master));
    EXPECT_EQ(group_->Ask(master, {"GET", "sentinel-test:" + key}).text, held.token);
    EXPECT_EQ(gate.Acquire(key, 10s).outcome, AcquireOutcome::kBusy);
    EXPECT_EQ(gate.Release(key, held.token), ReleaseOutcome::kReleased);
    EXPECT_EQ(gate.State(), "ok");
    EXPECT_EQ(gate.failures(), 0u);
  }

  static inline std::unique_ptr<RedisSentinelGroup> group_;
  FakeRandom random_;
};

TEST_F(RedisSentinelAuthTest, TheSentinelsPasswordFindsTheMasterAndTheMastersOwnLocksOnIt) {
  const auto gate = MakeGate(std::string("?sentinel_password=") + kSentinelPassword);
  ExpectLocksOnTheMaster(*gate, "doc:auth");
}

TEST_F(RedisSentinelAuthTest, AnAclUserAndItsPasswordWorkToo) {
  const auto gate = MakeGate(std::string("?sentinel_username=") + kAclUser +
                             "&sentinel_password=" + kAclPassword);
  ExpectLocksOnTheMaster(*gate, "doc:acl");
}

// Refused: a wrong password, none at all, the ACL user with the default user's password, and the
// master's password (the two are separate). Each time the gate logs which Sentinels refused,
// never a password, and stays out of the path like an unreachable Redis: every call answers
// kBackendFailed (the service goes on under the database's locks), however often it retries.
TEST_F(RedisSentinelAuthTest, AWrongOrMissingSentinelPasswordIsRefusedAndTheGateStaysDegraded) {
  const std::vector<std::string> queries = {
      std::string("?sentinel_password=") + kWrongPassword,
      "",
      std::string("?sentinel_username=") + kAclUser + "&sentinel_password=" + kSentinelPassword,
      std::string("?sentinel_password=") + kMasterPassword,
  };
  for (const std::string& query : queries) {
    SCOPED_TRACE(query);
    const auto log = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
    const auto previous = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("sentinel-auth", log));
    {
      const auto gate = MakeGate(query);
      EXPECT_EQ(gate->State(), "degraded");
      // Once the breaker lets a call through, it asks the Sentinels again and is refused again.
      EXPECT_TRUE(WithinRedis(10s, [&] {
        EXPECT_EQ(gate->Acquire("doc:refused", 10s).outcome, AcquireOutcome::kBackendFailed);
        return gate->failures() >= 2;
      }));
      EXPECT_EQ(gate->State(), "degraded");
      EXPECT_FALSE(gate->master());
    }
    spdlog::set_default_logger(previous);
    std::string text;
    for (const std::string& line : log->last_formatted()) text += line;
    EXPECT_NE(text.find("authentication failed at every Sentinel"), std::string::npos) << text;
    for (const int sentinel : group_->SentinelPorts()) {
      const std::string at = "127.0.0.1:" + std::to_string(sentinel);
      EXPECT_TRUE(text.find(at + ": AUTH failed: WRONGPASS") != std::string::npos ||
                  text.find(at + " requires AUTH") != std::string::npos)
          << at << " is not named as refusing: " << text;
    }
    for (const char* password :
         {kWrongPassword, kSentinelPassword, kMasterPassword, kAclPassword}) {
      EXPECT_EQ(text.find(password), std::string::npos) << text;
    }
  }
}

// A Sentinel that refuses the password (here a server with another one) is skipped like one that
// is down; when every Sentinel refuses, the error says so and names each.
TEST_F(RedisSentinelAuthTest, ASentinelRefusingAuthIsSkippedLikeADownOne) {
  TempDir dir;
  ScratchRedis stranger(dir.path(), {"--requirepass", "another-pw-2718"});
  const std::string refusing = "127.0.0.1:" + std::to_string(stranger.port());
  const std::string query = std::string("?sentinel_password=") + kSentinelPassword;

  const auto gate = MakeGate(query, {refusing});
  ExpectLocksOnTheMaster(*gate, "doc:skipped");

  SentinelResolver alone(ParseRedisUrl("redis+sentinel://" + refusing + "/docgate-test" + query),
                         nullptr, 1s, 500ms);
  try {
    alone.Master();
    ADD_FAILURE() << "a refusing Sentinel named a master";
  } catch (const RedisError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with("authentication failed at every Sentinel")) << what;
    EXPECT_NE(what.find(refusing + ": AUTH failed: WRONGPASS"), std::string::npos) << what;
    EXPECT_EQ(what.find(kSentinelPassword), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace docgate
