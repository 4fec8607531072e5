// The Redis lock gate against real redis-server processes (DOCGATE_TEST_REDIS_URL plain,
// DOCGATE_TEST_REDISS_URL + DOCGATE_TEST_REDIS_CA_FILE TLS; scripts/services.sh starts both).
// Missing variables fail the tests: nothing is skipped.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "adapters/redis/redis_connection.h"
#include "adapters/redis/redis_lock_gate.h"
#include "fakes/fake_random.h"
#include "support/scratch_redis.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

std::string RequiredEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    ADD_FAILURE() << name << " is not set; run the tests through scripts/test.sh (make test)";
    return {};
  }
  return value;
}

class RedisLockGateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = RequiredEnv("DOCGATE_TEST_REDIS_URL");
    ASSERT_FALSE(url_.empty());
    prefix_ = "test:" + std::to_string(::getpid()) + ":" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ":";
  }

  RedisConfig ConfigFor(const std::string& url) {
    RedisConfig config;
    config.url = url;
    config.connect_timeout = 2s;
    config.command_timeout = 1s;
    config.breaker_initial = 20ms;
    config.breaker_max = 100ms;
    return config;
  }
  std::unique_ptr<RedisLockGate> MakeGate(RedisConfig config) {
    return std::make_unique<RedisLockGate>(std::move(config), random_, prefix_);
  }
  std::unique_ptr<RedisLockGate> MakeGate() { return MakeGate(ConfigFor(url_)); }

  // A plain connection to the server for setting up and inspecting keys behind the gate's back.
  RedisReply Raw(const std::vector<std::string_view>& args) {
    if (!raw_) raw_ = std::make_unique<RedisConnection>(ParseRedisUrl(url_), nullptr, 2s, 2s);
    return raw_->Command(args);
  }
  std::string Key(const std::string& key) { return prefix_ + key; }

  // Calls Acquire until it stops failing (the breaker re-probes by itself), for at most 10 s.
  Acquisition AcquireWhenHealed(RedisLockGate& gate, const std::string& key) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    Acquisition result = gate.Acquire(key, 5s);
    while (result.outcome == AcquireOutcome::kBackendFailed &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
      result = gate.Acquire(key, 5s);
    }
    return result;
  }

  std::string url_;
  std::string prefix_;
  FakeRandom random_;
  std::unique_ptr<RedisConnection> raw_;
};

TEST_F(RedisLockGateTest, AcquireIsExclusiveUntilReleased) {
  auto gate = MakeGate();
  EXPECT_EQ(gate->State(), "ok");
  const auto first = gate->Acquire("doc:submit:1", 8s);
  ASSERT_EQ(first.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(first.token.size(), 32u);
  EXPECT_EQ(Raw({"GET", Key("doc:submit:1")}).text, first.token);
  EXPECT_EQ(gate->Acquire("doc:submit:1", 8s).outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(gate->Acquire("doc:submit:2", 8s).outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate->Release("doc:submit:1", first.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(Raw({"EXISTS", Key("doc:submit:1")}).integer, 0);
  EXPECT_EQ(gate->Acquire("doc:submit:1", 8s).outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate->failures(), 0u);
}

TEST_F(RedisLockGateTest, BusyReportsTheKeysRemainingTtl) {
  auto gate = MakeGate();
  ASSERT_EQ(gate->Acquire("doc:review:7", 10s).outcome, AcquireOutcome::kAcquired);
  ASSERT_EQ(Raw({"PEXPIRE", Key("doc:review:7"), "7500"}).integer, 1);
  const auto busy = gate->Acquire("doc:review:7", 10s);
  ASSERT_EQ(busy.outcome, AcquireOutcome::kBusy);
  EXPECT_LE(busy.remaining_ttl, 7500ms);
  EXPECT_GT(busy.remaining_ttl, 6500ms);
  EXPECT_TRUE(busy.token.empty());
}

TEST_F(RedisLockGateTest, AKeyHeldWithAForeignTokenIsNeverDeleted) {
  auto gate = MakeGate();
  ASSERT_EQ(Raw({"SET", Key("doc:submit:3"), "someone-else", "PX", "60000"}).text, "OK");
  EXPECT_EQ(gate->Acquire("doc:submit:3", 8s).outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(gate->Release("doc:submit:3", "someone-else-guessing-wrong"),
            ReleaseOutcome::kNotOwner);
  const auto ours = gate->Acquire("doc:submit:4", 8s);
  ASSERT_EQ(ours.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate->Release("doc:submit:3", ours.token), ReleaseOutcome::kNotOwner);
  EXPECT_EQ(Raw({"GET", Key("doc:submit:3")}).text, "someone-else");
  EXPECT_GT(Raw({"PTTL", Key("doc:submit:3")}).integer, 59000);
  EXPECT_EQ(gate->lost_leases(), 2u);
}

TEST_F(RedisLockGateTest, ReleaseAfterExpiryIsNotOwnerAndLeavesTheNextHolderAlone) {
  auto gate = MakeGate();
  const auto first = gate->Acquire("doc:submit:5", 8s);
  ASSERT_EQ(first.outcome, AcquireOutcome::kAcquired);
  // The lease runs out (the server drops the key), and another instance takes the key.
  ASSERT_EQ(Raw({"DEL", Key("doc:submit:5")}).integer, 1);
  EXPECT_EQ(gate->Release("doc:submit:5", first.token), ReleaseOutcome::kNotOwner);
  auto other = MakeGate();
  const auto second = other->Acquire("doc:submit:5", 8s);
  ASSERT_EQ(second.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate->Release("doc:submit:5", first.token), ReleaseOutcome::kNotOwner);
  EXPECT_EQ(Raw({"GET", Key("doc:submit:5")}).text, second.token);
  EXPECT_EQ(other->Release("doc:submit:5", second.token), ReleaseOutcome::kReleased);
}

// On a server of its own: the shared one's script cache is refilled by the tests running beside
// this one between a flush and the gate's next call, which would then find its script cached.
TEST_F(RedisLockGateTest, EvalshaFallsBackToEvalAfterScriptFlush) {
  const PrivateRedis server;
  url_ = server.Url();
  auto gate = MakeGate();
  ASSERT_EQ(Raw({"SCRIPT", "FLUSH"}).text, "OK");
  const auto held = gate->Acquire("doc:submit:6", 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  EXPECT_GE(gate->script_reloads(), 1u);
  ASSERT_EQ(Raw({"SCRIPT", "FLUSH"}).text, "OK");
  const auto reloads = gate->script_reloads();
  EXPECT_EQ(gate->Release("doc:submit:6", held.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(gate->script_reloads(), reloads + 1);
  // The second flush also dropped the acquire script: it is re-sent once, and after that both
  // scripts are cached again and go by EVALSHA.
  const auto again = gate->Acquire("doc:submit:6", 8s);
  EXPECT_EQ(again.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate->script_reloads(), reloads + 2);
  EXPECT_EQ(gate->Release("doc:submit:6", again.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(gate->Acquire("doc:submit:6", 8s).outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate->script_reloads(), reloads + 2);
  EXPECT_EQ(gate->failures(), 0u);
}

TEST_F(RedisLockGateTest, ConcurrentAcquirersHaveExactlyOneWinner) {
  auto gate = MakeGate();
  std::atomic<int> acquired{0}, busy{0}, failed{0};
  std::vector<std::jthread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      switch (gate->Acquire("doc:submit:8", 8s).outcome) {
        case AcquireOutcome::kAcquired: ++acquired; break;
        case AcquireOutcome::kBusy: ++busy; break;
        case AcquireOutcome::kBackendFailed: ++failed; break;
      }
    });
  }
  threads.clear();
  EXPECT_EQ(acquired.load(), 1);
  EXPECT_EQ(busy.load(), 7);
  EXPECT_EQ(failed.load(), 0);
}

TEST_F(RedisLockGateTest, UnreachableRedisStartsDegradedAndTheBreakerAnswersWithoutTrying) {
  RedisConfig config = ConfigFor("redis://127.0.0.1:" + std::to_string(ClosedPort()));
  config.breaker_initial = 10s;
  config.breaker_max = 10s;
  auto gate = MakeGate(config);  // the PING fails; the constructor does not throw
  EXPECT_EQ(gate->State(), "degraded");
  EXPECT_EQ(gate->failures(), 1u);
  EXPECT_EQ(gate->Acquire("doc:submit:9", 8s).outcome, AcquireOutcome::kBackendFailed);
  EXPECT_EQ(gate->Release("doc:submit:9", "token"), ReleaseOutcome::kBackendFailed);
  EXPECT_EQ(gate->failures(), 1u);  // the open breaker answered: Redis was not tried again
}

TEST_F(RedisLockGateTest, AnOutageIsDegradedAndTheGateHealsWhenRedisIsBack) {
  TcpProxy proxy(PortOfUrl(url_));
  auto gate = MakeGate(ConfigFor("redis://127.0.0.1:" + std::to_string(proxy.port())));
  const auto before = gate->Acquire("doc:submit:10", 8s);
  ASSERT_EQ(before.outcome, AcquireOutcome::kAcquired);

  proxy.Stop();  // every pooled connection breaks, new ones are refused
  EXPECT_EQ(gate->Acquire("doc:submit:11", 8s).outcome, AcquireOutcome::kBackendFailed);
  EXPECT_EQ(gate->State(), "degraded");
  EXPECT_EQ(gate->Release("doc:submit:10", before.token), ReleaseOutcome::kBackendFailed);
  const auto failures = gate->failures();
  EXPECT_GE(failures, 1u);

  proxy.Start();
  const auto after = AcquireWhenHealed(*gate, "doc:submit:11");
  ASSERT_EQ(after.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate->State(), "ok");
  // The key from before the outage is still held (its release never reached Redis).
  EXPECT_EQ(gate->Acquire("doc:submit:10", 8s).outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(gate->Release("doc:submit:10", before.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(gate->Release("doc:submit:11", after.token), ReleaseOutcome::kReleased);
}

TEST_F(RedisLockGateTest, DatabaseNumberAndPasswordlessUserFromTheUrl) {
  const RedisEndpoint endpoint = ParseRedisUrl(url_);
  auto gate = MakeGate(ConfigFor("redis://" + endpoint.host + ":" + endpoint.port + "/3"));
  const auto held = gate->Acquire("doc:submit:12", 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(Raw({"EXISTS", Key("doc:submit:12")}).integer, 0);  // not in database 0
  ASSERT_EQ(Raw({"SELECT", "3"}).text, "OK");
  EXPECT_EQ(Raw({"GET", Key("doc:submit:12")}).text, held.token);
  EXPECT_EQ(gate->Release("doc:submit:12", held.token), ReleaseOutcome::kReleased);
}

TEST_F(RedisLockGateTest, WorksOverTlsWithTheServersCertificate) {
  RedisConfig config = ConfigFor(RequiredEnv("DOCGATE_TEST_REDISS_URL"));
  config.ca_file = RequiredEnv("DOCGATE_TEST_REDIS_CA_FILE");
  ASSERT_FALSE(config.url.empty());
  auto gate = MakeGate(config);
  EXPECT_EQ(gate->State(), "ok");
  const auto held = gate->Acquire("doc:submit:13", 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate->Acquire("doc:submit:13", 8s).outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(gate->Release("doc:submit:13", held.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(gate->failures(), 0u);
}

TEST_F(RedisLockGateTest, TlsRefusesAServerItCannotVerify) {
  RedisConfig config = ConfigFor(RequiredEnv("DOCGATE_TEST_REDISS_URL"));
  ASSERT_FALSE(config.url.empty());
  config.ca_file.clear();  // the system trust store does not know the throwaway certificate
  auto gate = MakeGate(config);
  EXPECT_EQ(gate->State(), "degraded");
  EXPECT_EQ(gate->failures(), 1u);
}

}  // namespace
}  // namespace docgate
