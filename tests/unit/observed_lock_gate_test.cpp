#include "adapters/prometheus/observed_lock_gate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "fakes/fake_clock.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

bool Has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

class ObservedLockGateTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  FakeRandom random_;
  FakeLockGate inner_{clock_, random_};
  MetricsRegistry registry_;
};

TEST_F(ObservedLockGateTest, CountsEachOutcomeAndForwardsWhatTheInnerGateAnswered) {
  ObservedLockGate gate(inner_, registry_);
  const Acquisition first = gate.Acquire("doc:submit:1", 8s);
  ASSERT_EQ(first.outcome, AcquireOutcome::kAcquired);
  const Acquisition second = gate.Acquire("doc:submit:1", 8s);
  EXPECT_EQ(second.outcome, AcquireOutcome::kBusy);
  EXPECT_EQ(second.remaining_ttl, 8s);
  inner_.SetBackendDown(true);
  EXPECT_EQ(gate.Acquire("doc:submit:2", 8s).outcome, AcquireOutcome::kBackendFailed);
  EXPECT_EQ(gate.Acquire("doc:submit:3", 8s).outcome, AcquireOutcome::kBackendFailed);
  EXPECT_EQ(gate.Release("doc:submit:1", first.token), ReleaseOutcome::kBackendFailed);
  inner_.SetBackendDown(false);
  EXPECT_EQ(gate.Release("doc:submit:1", first.token), ReleaseOutcome::kReleased);
  EXPECT_EQ(inner_.acquired_keys().size(), 4u);

  const std::string text = registry_.Expose();
  EXPECT_TRUE(Has(text, R"(docgate_gate_acquire_total{outcome="acquired"} 1)")) << text;
  EXPECT_TRUE(Has(text, R"(docgate_gate_acquire_total{outcome="busy"} 1)")) << text;
  EXPECT_TRUE(Has(text, R"(docgate_gate_acquire_total{outcome="backend_error"} 2)")) << text;
  EXPECT_TRUE(Has(text, "docgate_gate_degraded_passthrough_total 2")) << text;
  EXPECT_TRUE(Has(text, "docgate_gate_acquire_duration_seconds_count 4")) << text;
  EXPECT_TRUE(Has(text, R"(docgate_gate_release_total{outcome="released"} 1)")) << text;
  EXPECT_TRUE(Has(text, R"(docgate_gate_release_total{outcome="backend_error"} 1)")) << text;
  EXPECT_TRUE(Has(text, R"(docgate_gate_release_total{outcome="not_owner"} 0)")) << text;
  EXPECT_TRUE(Has(text, "docgate_gate_lost_leases_total 0")) << text;
}

TEST_F(ObservedLockGateTest, WithoutABackendCounterALeaseLostIsAReleaseAfterItsTtl) {
  ObservedLockGate gate(inner_, registry_);
  const Acquisition held = gate.Acquire("doc:review:7", 10s);
  clock_.Advance(11s);
  const Acquisition taken_over = gate.Acquire("doc:review:7", 10s);
  ASSERT_EQ(taken_over.outcome, AcquireOutcome::kAcquired);
  EXPECT_EQ(gate.Release("doc:review:7", held.token), ReleaseOutcome::kNotOwner);
  EXPECT_EQ(gate.Release("doc:review:7", taken_over.token), ReleaseOutcome::kReleased);
  const std::string text = registry_.Expose();
  EXPECT_TRUE(Has(text, "docgate_gate_lost_leases_total 1")) << text;
  EXPECT_TRUE(Has(text, R"(docgate_gate_release_total{outcome="not_owner"} 1)")) << text;
}

TEST_F(ObservedLockGateTest, LostLeasesComeFromTheBackendsCounterWhenGiven) {
  std::uint64_t lost = 3;
  ObservedLockGate gate(inner_, registry_, [&lost] { return lost; });
  EXPECT_TRUE(Has(registry_.Expose(), "docgate_gate_lost_leases_total 3"));
  lost = 4;
  EXPECT_TRUE(Has(registry_.Expose(), "docgate_gate_lost_leases_total 4"));
}

}  // namespace
}  // namespace docgate
