#include "worker/outbox_relay.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "fakes/fake_clock.h"
#include "fakes/fake_document_store.h"
#include "fakes/fake_event_sink.h"
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
    auto tx = store_.Begin();
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

  FakeClock clock_;
  FakeDocumentStore store_;
  FakeEventSink sink_;
  // A retry delay of an hour: a deferred event stays deferred for the whole test.
  RelayConfig config_{.batch_size = 3, .retry_delay = hours(1), .max_retry_delay = hours(2)};
  OutboxRelay relay_{store_, sink_, clock_, config_};
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
  EXPECT_EQ(store_.Backlog().pending, 0);
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
  EXPECT_TRUE(store_.ClaimPending(10).empty());
  EXPECT_EQ(store_.Backlog().pending, 2);
  (void)behind;
}

TEST_F(OutboxRelayTest, NackedAndFailedEventsAreCountedApartAndRetriedWhenDue) {
  const auto nacked = Append(1);
  const auto failed = Append(2);
  sink_.SetOutcome(nacked, DeliveryOutcome::kNacked, 1);
  sink_.SetOutcome(failed, DeliveryOutcome::kFailed, 1);
  OutboxRelay eager(store_, sink_, clock_, RelayConfig{.retry_delay = milliseconds(1)});
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
  EXPECT_EQ(store_.Backlog().pending, 2);
  EXPECT_EQ(relay_.RunOnce(), 2);
  EXPECT_EQ(sink_.delivered().size(), 2u);
}

TEST_F(OutboxRelayTest, PendingRowsFromBeforeAStartAreDeliveredByTheFirstRound) {
  for (DocumentId doc = 1; doc <= 4; ++doc) Append(doc);  // committed while no relay ran
  OutboxRelay fresh(store_, sink_, clock_);
  EXPECT_EQ(fresh.RunOnce(), 4);
}

TEST_F(OutboxRelayTest, PruneDeletesOnlyDeliveredEventsOlderThanTheRetentionInBatches) {
  for (DocumentId doc = 1; doc <= 5; ++doc) Append(doc);
  relay_.RunOnce();  // delivered "now"
  const auto pending = Append(6);
  sink_.SetOutcome(pending, DeliveryOutcome::kReturned, 1);
  OutboxRelay pruner(store_, sink_, clock_,
                     RelayConfig{.retention = hours(24), .prune_batch = 2});
  EXPECT_EQ(pruner.Prune(), 0);  // not old enough yet
  clock_.Advance(hours(25));
  EXPECT_EQ(pruner.Prune(), 5);  // three statements: 2 + 2 + 1
  EXPECT_EQ(pruner.counters().pruned.load(), 5u);
  EXPECT_EQ(store_.Backlog().pending, 1);  // the undelivered one stays
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

TEST(InProcessEventSinkTest, AConsumerFailureFailsThatEventOnlyAndTheRelayRetriesIt) {
  FakeClock clock;
  FakeDocumentStore store;
  RecordingConsumer consumer;
  InProcessEventSink sink;
  sink.Register(consumer);
  for (DocumentId doc = 1; doc <= 3; ++doc) {
    auto tx = store.Begin();
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
  OutboxRelay relay(store, sink, clock, RelayConfig{.retry_delay = milliseconds(200)});
  EXPECT_EQ(relay.RunOnce(), 2);
  EXPECT_EQ(relay.counters().failed.load(), 1u);
  std::this_thread::sleep_for(milliseconds(250));
  EXPECT_EQ(relay.RunOnce(), 1);
  EXPECT_EQ(consumer.events().size(), 3u);
  EXPECT_EQ(consumer.events().back().event_id, "e-1");
}

}  // namespace
}  // namespace docgate
