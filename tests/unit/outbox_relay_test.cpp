#include "worker/outbox_relay.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <set>
#include <thread>

#include "core/error.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_event_sink.h"
#include "fakes/fake_outbox_store.h"
#include "fakes/fake_stores.h"
#include "fakes/recording_consumer.h"
#include "worker/in_process_event_sink.h"

namespace docgate {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

class OutboxRelayTest : public ::testing::Test {
 protected:
  // Commits one event for document `doc` per transaction; returns its event_id.
  std::string Append(DocumentId doc, EventType type = EventType::kSubmitted) {
    auto tx = fakes_.stores.documents->Begin();
    OutboxEvent event;
    event.event_id = "e-" + std::to_string(next_++);
    event.type = type;
    event.document_id = doc;
    event.review_id = next_;
    event.version = 1;
    event.actor_id = "alice";
    event.occurred_at = clock_.Now();
    tx->AppendEvent(event);
    tx->Commit();
    return event.event_id;
  }

  static std::vector<std::string> Ids(const std::vector<OutboxEvent>& events) {
    std::vector<std::string> ids;
    for (const auto& event : events) ids.push_back(event.event_id);
    return ids;
  }

  static constexpr milliseconds kClaimTtl{3000};  // the store's, on clock_

  FakeClock clock_;
  FakeStores fakes_ = OpenFakeStores(clock_, kClaimTtl);
  OutboxStore& outbox_ = *fakes_.stores.outbox;
  FakeEventSink sink_;
  // A retry delay of an hour: a deferred event stays deferred for the whole test.
  RelayConfig config_{.batch_size = 3, .retry_delay = hours(1), .max_retry_delay = hours(2)};
  OutboxRelay relay_{outbox_, sink_, clock_, config_};
  int next_ = 0;
};

TEST_F(OutboxRelayTest, DeliversEveryEventOnceInCommitOrderAcrossBatches) {
  std::vector<std::string> expected;
  for (DocumentId doc = 1; doc <= 10; ++doc) expected.push_back(Append(doc));
  EXPECT_EQ(relay_.RunOnce(), 10);
  EXPECT_EQ(relay_.RunOnce(), 0);
  EXPECT_EQ(Ids(sink_.delivered()), expected);
  for (const auto& batch : sink_.batches()) EXPECT_LE(batch.size(), 3u);
  EXPECT_EQ(relay_.counters().delivered.load(), 10u);
  EXPECT_EQ(outbox_.Backlog().pending, 0);
}

TEST_F(OutboxRelayTest, ABatchHoldsAtMostOneEventPerDocumentAndKeepsItsOrder) {
  const auto first = Append(7);
  const auto second = Append(7, EventType::kApproved);
  const auto other = Append(8);
  EXPECT_EQ(relay_.RunOnce(), 3);
  const auto batches = sink_.batches();
  for (const auto& batch : batches) {
    std::set<DocumentId> documents;
    for (const auto& event : batch) EXPECT_TRUE(documents.insert(event.document_id).second);
  }
  EXPECT_EQ(Ids(batches.at(0)), (std::vector<std::string>{first, other}));
  EXPECT_EQ(Ids(batches.at(1)), (std::vector<std::string>{second}));
}

TEST_F(OutboxRelayTest, AReturnedEventIsDeferredAndCountedAndItsDocumentWaitsBehindIt) {
  const auto returned = Append(1);
  const auto behind = Append(1, EventType::kApproved);
  const auto elsewhere = Append(2);
  sink_.SetOutcome(returned, DeliveryOutcome::kReturned, 1);
  EXPECT_EQ(relay_.RunOnce(), 1);
  EXPECT_EQ(Ids(sink_.delivered()), (std::vector<std::string>{elsewhere}));
  EXPECT_EQ(relay_.counters().returned.load(), 1u);
  // Deferred for an hour: neither it nor the event behind it is claimable now, nothing is lost.
  EXPECT_TRUE(outbox_.ClaimPending(10).empty());
  EXPECT_EQ(outbox_.Backlog().pending, 2);
  (void)behind;
}

TEST_F(OutboxRelayTest, NackedAndFailedEventsAreCountedApartAndRetriedWhenDue) {
  const auto nacked = Append(1);
  const auto failed = Append(2);
  sink_.SetOutcome(nacked, DeliveryOutcome::kNacked, 1);
  sink_.SetOutcome(failed, DeliveryOutcome::kFailed, 1);
  OutboxRelay eager(outbox_, sink_, clock_, RelayConfig{.retry_delay = milliseconds(1)});
  EXPECT_EQ(eager.RunOnce(), 0);
  EXPECT_EQ(eager.counters().nacked.load(), 1u);
  EXPECT_EQ(eager.counters().failed.load(), 1u);
  std::this_thread::sleep_for(milliseconds(5));  // the store's clock is the system's
  EXPECT_EQ(eager.RunOnce(), 2);
  EXPECT_EQ(Ids(sink_.delivered()), (std::vector<std::string>{nacked, failed}));
}

TEST_F(OutboxRelayTest, ASinkThatThrowsLeavesTheBatchPendingForTheNextRound) {
  Append(1);
  Append(2);
  sink_.FailNextBatches(1);
  EXPECT_THROW(relay_.RunOnce(), EventSinkUnavailable);
  EXPECT_EQ(outbox_.Backlog().pending, 2);
  EXPECT_EQ(relay_.RunOnce(), 2);
  EXPECT_EQ(sink_.delivered().size(), 2u);
}

TEST_F(OutboxRelayTest, PendingRowsFromBeforeAStartAreDeliveredByTheFirstRound) {
  for (DocumentId doc = 1; doc <= 4; ++doc) Append(doc);  // committed while no relay ran
  OutboxRelay fresh(outbox_, sink_, clock_);
  EXPECT_EQ(fresh.RunOnce(), 4);
}

TEST_F(OutboxRelayTest, PruneDeletesOnlyDeliveredEventsOlderThanTheRetentionInBatches) {
  for (DocumentId doc = 1; doc <= 5; ++doc) Append(doc);
  relay_.RunOnce();  // delivered "now"
  const auto pending = Append(6);
  sink_.SetOutcome(pending, DeliveryOutcome::kReturned, 1);
  OutboxRelay pruner(outbox_, sink_, clock_,
                     RelayConfig{.retention = hours(24), .prune_batch = 2});
  EXPECT_EQ(pruner.Prune(), 0);  // not old enough yet
  clock_.Advance(hours(25));
  EXPECT_EQ(pruner.Prune(), 5);  // three statements: 2 + 2 + 1
  EXPECT_EQ(pruner.counters().pruned.load(), 5u);
  EXPECT_EQ(outbox_.Backlog().pending, 1);  // the undelivered one stays
}

TEST_F(OutboxRelayTest, RunDeliversAfterWakeMaintainsTheSinkAndStopsOnRequest) {
  std::jthread loop([this](std::stop_token stop) { relay_.Run(stop); });
  for (DocumentId doc = 1; doc <= 3; ++doc) Append(doc);
  relay_.Wake();
  for (int i = 0; i < 500 && sink_.delivered().size() < 3; ++i) {
    std::this_thread::sleep_for(milliseconds(2));
  }
  loop.request_stop();
  loop.join();
  EXPECT_EQ(sink_.delivered().size(), 3u);
  EXPECT_GE(sink_.maintained(), 1);
}

TEST_F(OutboxRelayTest, RunBacksOffAfterTheSinkThrowsAndDeliversOnceItRecovers) {
  Append(1);
  sink_.FailNextBatches(2);
  std::jthread loop([this](std::stop_token stop) { relay_.Run(stop); });
  for (int i = 0; i < 1000 && sink_.delivered().empty(); ++i) {
    std::this_thread::sleep_for(milliseconds(2));
  }
  loop.request_stop();
  loop.join();
  EXPECT_EQ(sink_.delivered().size(), 1u);
  EXPECT_EQ(relay_.counters().errors.load(), 2u);
}

// Relays of two instances on one database: the holder's sink keeps the batch it was handed (a
// broker slow to confirm) while the other instance claims. Claims end on clock_, which only the
// test moves; the holder renews every 10 ms of real time (a relay claim TTL of 30 ms), so the
// tests wait for renewals to happen, never for a claim to run out.
class OutboxRelayClaimTest : public OutboxRelayTest {
 protected:
  void TearDown() override { holder_sink_.ReleaseHeldBatches(); }

  // Polls until `done`; false after a generous bound (a guard against hanging, not a measurement).
  template <typename Done>
  static bool Eventually(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(milliseconds(1));
    }
    return true;
  }
  // Two more renewals: at least one of them started after the clock last moved.
  bool RenewedSinceTheClockMoved() {
    const auto before = holder_relay_.counters().renewals.load();
    return Eventually([&] { return holder_relay_.counters().renewals.load() >= before + 2; });
  }
  // Starts the holder's round in a thread of its own and returns once the sink holds its batch.
  void StartHolding(std::function<void()> round) {
    holder_sink_.HoldBatches();
    delivering_ = std::jthread(std::move(round));
    ASSERT_TRUE(holder_sink_.WaitForHeldBatch(std::chrono::seconds(30)));
  }
  void FinishHolding() {
    holder_sink_.ReleaseHeldBatches();
    delivering_.join();
  }

  // Two more relay instances on the same database, with claims of their own.
  std::unique_ptr<FakeOutboxStore> holder_ = std::make_unique<FakeOutboxStore>(fakes_.database);
  std::unique_ptr<FakeOutboxStore> other_ = std::make_unique<FakeOutboxStore>(fakes_.database);
  FakeEventSink holder_sink_;
  OutboxRelay holder_relay_{*holder_, holder_sink_, clock_,
                            RelayConfig{.retry_delay = hours(1), .claim_ttl = milliseconds(30)}};
  std::jthread delivering_;
};

TEST_F(OutboxRelayClaimTest, ClaimsOfABatchTheSinkHoldsAreRenewedAndNoOtherInstanceGetsThem) {
  const auto first = Append(1);
  const auto second = Append(2);
  StartHolding([this] { EXPECT_EQ(holder_relay_.RunOnce(), 2); });
  for (int i = 1; i <= 4; ++i) {  // 4 x 2/3 of the claim TTL: well past the claim's first end
    clock_.Advance(kClaimTtl * 2 / 3);
    ASSERT_TRUE(RenewedSinceTheClockMoved());
    EXPECT_TRUE(other_->ClaimPending(10).empty()) << "after " << i << " x 2/3 of the claim TTL";
  }
  FinishHolding();
  EXPECT_EQ(Ids(holder_sink_.delivered()), (std::vector<std::string>{first, second}));
  EXPECT_EQ(holder_sink_.batches().size(), 1u);
  EXPECT_EQ(outbox_.Backlog().pending, 0);
  EXPECT_EQ(holder_relay_.counters().claims_lost.load(), 0u);
  EXPECT_EQ(holder_relay_.counters().renewal_errors.load(), 0u);
}

TEST_F(OutboxRelayClaimTest, AHolderThatStopsRenewingLosesItsBatchRightAfterItsLastRenewalsTtl) {
  const auto first = Append(1);
  const auto second = Append(2);
  StartHolding([this] { EXPECT_THROW(holder_relay_.RunOnce(), StorageUnavailable); });
  clock_.Advance(kClaimTtl * 2 / 3);
  ASSERT_TRUE(RenewedSinceTheClockMoved());
  holder_->SetUnavailable(true);  // the holding process dies, or loses its database
  ASSERT_TRUE(Eventually([&] { return holder_relay_.counters().renewal_errors.load() > 0; }));
  clock_.Advance(kClaimTtl - milliseconds(1));
  EXPECT_TRUE(other_->ClaimPending(10).empty()) << "the last renewal still holds";
  clock_.Advance(milliseconds(2));
  FakeEventSink survivor_sink;
  OutboxRelay survivor(*other_, survivor_sink, clock_);
  EXPECT_EQ(survivor.RunOnce(), 2);
  EXPECT_EQ(Ids(survivor_sink.delivered()), (std::vector<std::string>{first, second}));
  FinishHolding();  // its confirms come after all: it cannot mark them, the survivor has
  EXPECT_EQ(outbox_.Backlog().pending, 0);
}

TEST_F(OutboxRelayClaimTest, ATakeOverIsCountedLostAndTheHolderDefersNothingItNoLongerClaims) {
  const auto nacked = Append(1);
  const auto acked = Append(2);
  holder_sink_.SetOutcome(nacked, DeliveryOutcome::kNacked, 1);
  StartHolding([this] { EXPECT_EQ(holder_relay_.RunOnce(), 1); });
  holder_->SetUnavailable(true);
  ASSERT_TRUE(Eventually([&] { return holder_relay_.counters().renewal_errors.load() > 0; }));
  clock_.Advance(kClaimTtl + milliseconds(1));
  ASSERT_EQ(other_->ClaimPending(10).size(), 2u);
  holder_->SetUnavailable(false);
  ASSERT_TRUE(Eventually([&] { return holder_relay_.counters().claims_lost.load() == 2; }));
  FinishHolding();
  EXPECT_EQ(outbox_.Backlog().pending, 1) << "the acked event is marked delivered";
  EXPECT_EQ(Ids(other_->ClaimPending(10)), std::vector<std::string>{nacked})
      << "the nacked one is still the other instance's, and not deferred";
  (void)acked;
}

TEST(InProcessEventSinkTest, AConsumerFailureFailsThatEventOnlyAndTheRelayRetriesIt) {
  FakeClock clock;
  FakeStores fakes = OpenFakeStores();
  RecordingConsumer consumer;
  InProcessEventSink sink;
  sink.Register(consumer);
  for (DocumentId doc = 1; doc <= 3; ++doc) {
    auto tx = fakes.stores.documents->Begin();
    OutboxEvent event;
    event.event_id = "e-" + std::to_string(doc);
    event.document_id = doc;
    event.review_id = doc;
    event.version = 1;
    event.actor_id = "alice";
    tx->AppendEvent(event);
    tx->Commit();
  }
  consumer.FailNext(1);
  // The deferred event comes due after 200 ms (the fake store's retry times are on the system
  // clock): long enough that the first RunOnce's later rounds cannot take it already.
  OutboxRelay relay(*fakes.stores.outbox, sink, clock,
                    RelayConfig{.retry_delay = milliseconds(200)});
  EXPECT_EQ(relay.RunOnce(), 2);
  EXPECT_EQ(relay.counters().failed.load(), 1u);
  std::this_thread::sleep_for(milliseconds(250));
  EXPECT_EQ(relay.RunOnce(), 1);
  EXPECT_EQ(consumer.events().size(), 3u);
  EXPECT_EQ(consumer.events().back().event_id, "e-1");
}

}  // namespace
}  // namespace docgate
