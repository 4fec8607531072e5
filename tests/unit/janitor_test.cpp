#include "worker/janitor.h"

#include <gtest/gtest.h>

#include <thread>

#include "fakes/fake_clock.h"
#include "fakes/fake_random.h"
#include "fakes/fake_stores.h"

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
  FakeStores fakes_ = OpenFakeStores();
  IdempotencyService idempotency_{*fakes_.stores.idempotency, clock_, random_,
                                  IdempotencyConfig{24h, 30s, 2}};
  Janitor janitor_{idempotency_, *fakes_.stores.inbox, clock_, JanitorConfig{10ms, 24h, 2}};
};

TEST_F(JanitorTest, ARoundPrunesExpiredKeysOnly) {
  for (int i = 0; i < 3; ++i) Reserve("k-" + std::to_string(i));
  EXPECT_EQ(janitor_.PruneIdempotencyKeys(), 0);
  clock_.Advance(30s);
  Reserve("fresh");
  EXPECT_EQ(janitor_.PruneIdempotencyKeys(), 3);
  EXPECT_EQ(fakes_.database->IdempotencyKeyCount(), 1u);
  EXPECT_EQ(idempotency_.Begin({"alice", "fresh", "fp"}).verdict, IdempotencyVerdict::kInFlight);
}

TEST_F(JanitorTest, ARoundPrunesDoneInboxRowsPastTheRetentionInBatches) {
  const auto claim = [this](const std::string& event_id) {
    auto tx = fakes_.stores.inbox->BeginConsumer();
    ASSERT_EQ(tx->Claim("preview", event_id, clock_.Now()), InboxState::kNew);
    tx->Commit();
  };
  for (int i = 0; i < 5; ++i) claim("old-" + std::to_string(i));
  OutboxEvent parked;
  parked.event_id = "parked";
  ASSERT_TRUE(
      fakes_.stores.inbox->RecordFailure("preview", parked, "boom", 1, clock_.Now()).parked);
  clock_.Advance(24h);
  claim("young");
  EXPECT_EQ(janitor_.PruneInbox(), 0);  // the old rows are exactly the retention old
  clock_.Advance(1ms);
  EXPECT_EQ(janitor_.RunOnce(), 5);  // three statements of at most 2
  EXPECT_EQ(janitor_.counters().inbox_pruned.load(), 5u);
  EXPECT_EQ(fakes_.database->InboxRowCount(), 2u);  // young and parked
  EXPECT_EQ(janitor_.RunOnce(), 0);
}

TEST_F(JanitorTest, RunKeepsPruningThroughFailuresUntilStopped) {
  fakes_.database->SetUnavailable(true);
  std::jthread thread([this](std::stop_token stop) { janitor_.Run(stop); });
  std::this_thread::sleep_for(30ms);  // rounds fail meanwhile and are only logged
  fakes_.database->SetUnavailable(false);
  Reserve("k-1");
  clock_.Advance(30s);
  // A later round prunes it (bounded wait: the rounds are 10 ms apart).
  for (int i = 0; i < 1000 && fakes_.database->IdempotencyKeyCount() > 0; ++i) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(fakes_.database->IdempotencyKeyCount(), 0u);
  thread.request_stop();
}

}  // namespace
}  // namespace docgate
