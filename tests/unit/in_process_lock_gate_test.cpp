#include "adapters/in_process/in_process_lock_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "fakes/fake_clock.h"
#include "fakes/fake_random.h"

namespace docgate {
namespace {

using std::chrono::milliseconds;

class InProcessLockGateTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  FakeRandom random_;
  InProcessLockGate gate_{clock_, random_};
};

TEST_F(InProcessLockGateTest, SecondAcquireIsBusyWithTheRemainingTtl) {
  auto first = gate_.Acquire("doc:submit:1", milliseconds{8000});
  ASSERT_EQ(first.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(first.token.size(), 32u);
  clock_.Advance(milliseconds{2500});
  auto second = gate_.Acquire("doc:submit:1", milliseconds{8000});
  EXPECT_EQ(second.outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(second.remaining_ttl, milliseconds{5500});
  EXPECT_TRUE(second.token.empty());
}

TEST_F(InProcessLockGateTest, KeysAreIndependent) {
  EXPECT_EQ(gate_.Acquire("doc:submit:1", milliseconds{8000}).outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate_.Acquire("doc:submit:2", milliseconds{8000}).outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate_.Acquire("doc:review:1", milliseconds{8000}).outcome, AcquireOutcome::kAcquired);
}

TEST_F(InProcessLockGateTest, ReleaseByOwnerFreesTheKey) {
  auto a = gate_.Acquire("k", milliseconds{1000});
  EXPECT_EQ(gate_.Release("k", a.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(gate_.Acquire("k", milliseconds{1000}).outcome, AcquireOutcome::kAcquired);
}

TEST_F(InProcessLockGateTest, AForeignTokenNeverDeletesTheKey) {
  auto a = gate_.Acquire("k", milliseconds{1000});
  EXPECT_EQ(gate_.Release("k", "not-the-token"), ReleaseOutcome::kNotOwner);
  EXPECT_EQ(gate_.Acquire("k", milliseconds{1000}).outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(gate_.Release("k", a.token), ReleaseOutcome::kReleased);
}

TEST_F(InProcessLockGateTest, ExpiryFreesTheKeyWithoutSleeping) {
  auto a = gate_.Acquire("k", milliseconds{10000});
  clock_.Advance(milliseconds{9999});
  EXPECT_EQ(gate_.Acquire("k", milliseconds{10000}).outcome, AcquireOutcome::kBusy);
  clock_.Advance(milliseconds{1});
  EXPECT_FALSE(gate_.RemainingTtl("k").has_value());
  auto b = gate_.Acquire("k", milliseconds{10000});
  ASSERT_EQ(b.outcome, AcquireOutcome::kAcquired);
  EXPECT_NE(a.token, b.token);
  // The first owner's late release must not delete the new owner's key.
  EXPECT_EQ(gate_.Release("k", a.token), ReleaseOutcome::kNotOwner);
  EXPECT_EQ(gate_.RemainingTtl("k"), milliseconds{10000});
}

TEST_F(InProcessLockGateTest, ReleaseAfterExpiryReportsTheLostLease) {
  auto a = gate_.Acquire("k", milliseconds{100});
  clock_.Advance(milliseconds{150});
  EXPECT_EQ(gate_.Release("k", a.token), ReleaseOutcome::kNotOwner);
}

TEST_F(InProcessLockGateTest, PrefixIsPartOfTheKeySpaceOnly) {
  InProcessLockGate other(clock_, random_, "other:");
  EXPECT_EQ(other.Acquire("k", milliseconds{100}).outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate_.Acquire("k", milliseconds{100}).outcome, AcquireOutcome::kAcquired);
}

TEST_F(InProcessLockGateTest, ExpiredKeysAreSwept) {
  for (int i = 0; i < 1000; ++i) gate_.Acquire("k" + std::to_string(i), milliseconds{10});
  clock_.Advance(milliseconds{11});
  EXPECT_EQ(gate_.LiveKeys(), 0u);
}

TEST_F(InProcessLockGateTest, ConcurrentAcquiresHaveExactlyOneWinner) {
  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      if (gate_.Acquire("race", milliseconds{1000}).outcome == AcquireOutcome::kAcquired) {
        ++winners;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(winners.load(), 1);
}

}  // namespace
}  // namespace docgate
