#include "worker/janitor.h"

#include <gtest/gtest.h>

#include <thread>

#include "fakes/fake_clock.h"
#include "fakes/fake_document_store.h"
#include "fakes/fake_random.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

class JanitorTest : public ::testing::Test {
 protected:
  void Reserve(const std::string& key) {
    ASSERT_EQ(idempotency_.Begin({"alice", key, "fp"}).verdict, IdempotencyVerdict::kProceed);
  }

  FakeClock clock_;
  FakeRandom random_;
  FakeDocumentStore store_;
  IdempotencyService idempotency_{store_, clock_, random_, IdempotencyConfig{24h, 30s, 2}};
  Janitor janitor_{idempotency_, JanitorConfig{10ms}};
};

TEST_F(JanitorTest, ARoundPrunesExpiredKeysOnly) {
  for (int i = 0; i < 3; ++i) Reserve("k-" + std::to_string(i));
  EXPECT_EQ(janitor_.RunOnce(), 0);
  clock_.Advance(30s);
  Reserve("fresh");
  EXPECT_EQ(janitor_.RunOnce(), 3);
  EXPECT_EQ(store_.IdempotencyKeyCount(), 1u);
  EXPECT_EQ(idempotency_.Begin({"alice", "fresh", "fp"}).verdict, IdempotencyVerdict::kInFlight);
}

TEST_F(JanitorTest, RunKeepsPruningThroughFailuresUntilStopped) {
  store_.SetUnavailable(true);
  std::jthread thread([this](std::stop_token stop) { janitor_.Run(stop); });
  std::this_thread::sleep_for(30ms);  // rounds fail meanwhile and are only logged
  store_.SetUnavailable(false);
  Reserve("k-1");
  clock_.Advance(30s);
  // A later round prunes it (bounded wait: the rounds are 10 ms apart).
  for (int i = 0; i < 1000 && store_.IdempotencyKeyCount() > 0; ++i) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(store_.IdempotencyKeyCount(), 0u);
  thread.request_stop();
}

}  // namespace
}  // namespace docgate
