#include "worker/outbox_dispatcher.h"

#include <gtest/gtest.h>

#include <thread>

#include "fakes/fake_clock.h"
#include "fakes/fake_document_store.h"
#include "fakes/recording_consumer.h"
#include "worker/in_process_event_sink.h"

namespace docgate {
namespace {

class OutboxDispatcherTest : public ::testing::Test {
 protected:
  OutboxDispatcherTest() { sink_.Register(consumer_); }

  // Commits `n` events for document `doc` in one transaction each.
  void Append(int n, DocumentId doc = 1) {
    for (int i = 0; i < n; ++i) {
      auto tx = store_.Begin();
      OutboxEvent event;
      event.event_id = "e-" + std::to_string(next_++);
      event.type = EventType::kSubmitted;
      event.document_id = doc;
      event.review_id = next_;
      event.version = 1;
      event.actor_id = "alice";
      event.occurred_at = clock_.Now();
      tx->AppendEvent(event);
      tx->Commit();
    }
  }

  FakeClock clock_;
  FakeDocumentStore store_;
  RecordingConsumer consumer_;
  InProcessEventSink sink_;
  OutboxDispatcher dispatcher_{store_, sink_, clock_, DispatcherConfig{.batch_size = 3}};
  int next_ = 0;
};

TEST_F(OutboxDispatcherTest, DeliversEveryEventOnceInCommitOrder) {
  Append(10);
  EXPECT_EQ(dispatcher_.RunOnce(), 10);
  EXPECT_EQ(dispatcher_.RunOnce(), 0);
  const auto events = consumer_.events();
  ASSERT_EQ(events.size(), 10u);
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].event_id, "e-" + std::to_string(i));
  }
  EXPECT_TRUE(store_.ClaimPending(100).empty());
}

TEST_F(OutboxDispatcherTest, AFailureKeepsTheEventAndEverythingBehindItPending) {
  Append(5);
  consumer_.FailNext(1);
  EXPECT_THROW(dispatcher_.RunOnce(), std::runtime_error);
  EXPECT_EQ(store_.ClaimPending(100).size(), 5u);
  EXPECT_EQ(dispatcher_.RunOnce(), 5);
  EXPECT_EQ(consumer_.events().size(), 5u);
  EXPECT_EQ(consumer_.events().front().event_id, "e-0");
}

TEST_F(OutboxDispatcherTest, AFailureMidBatchKeepsWhatWasDelivered) {
  Append(2);
  dispatcher_.RunOnce();
  Append(3);
  EXPECT_EQ(store_.ClaimPending(100).size(), 3u);
  EXPECT_EQ(dispatcher_.RunOnce(), 3);
  EXPECT_EQ(consumer_.events().size(), 5u);
}

TEST_F(OutboxDispatcherTest, PendingRowsFromBeforeAStartAreDeliveredByTheFirstRound) {
  Append(4);  // committed while no dispatcher ran, as after a crash
  OutboxDispatcher fresh(store_, sink_, clock_);
  EXPECT_EQ(fresh.RunOnce(), 4);
}

TEST_F(OutboxDispatcherTest, RunDeliversAfterWakeAndStopsOnRequest) {
  std::jthread loop([this](std::stop_token stop) { dispatcher_.Run(stop); });
  Append(3);
  dispatcher_.Wake();
  for (int i = 0; i < 500 && consumer_.events().size() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(consumer_.events().size(), 3u);
  loop.request_stop();
  loop.join();
}

TEST_F(OutboxDispatcherTest, RunRetriesAfterAFailure) {
  Append(1);
  consumer_.FailNext(2);
  std::jthread loop([this](std::stop_token stop) { dispatcher_.Run(stop); });
  for (int i = 0; i < 1000 && consumer_.events().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  loop.request_stop();
  loop.join();
  EXPECT_EQ(consumer_.events().size(), 1u);
  EXPECT_EQ(dispatcher_.failures(), 2u);
}

}  // namespace
}  // namespace docgate
