#include "fakes/fake_event_source.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "contract/event_source_contract.h"
#include "fakes/fake_clock.h"

namespace docgate {
namespace {

// Messages published before the source is made wait for it.
struct FakeSourceFactory {
  std::unique_ptr<EventSource> Make(int prefetch) {
    auto source = std::make_unique<FakeEventSource>(nullptr, prefetch);
    source_ = source.get();
    for (const auto& [body, message_id] : early_) source_->PublishBody(body, message_id);
    early_.clear();
    return source;
  }
  void Publish(const OutboxEvent& event) { PublishBody(EncodeEventBody(event), event.event_id); }
  void PublishBody(const std::string& body, const std::string& message_id) {
    if (source_ == nullptr) {
      early_.emplace_back(body, message_id);
    } else {
      source_->PublishBody(body, message_id);
    }
  }
  void Drop() { source_->DropConnection(); }

  FakeEventSource* source_ = nullptr;
  std::vector<std::pair<std::string, std::string>> early_;
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Fake, EventSourceContract, ::testing::Types<FakeSourceFactory>);

namespace {

using std::chrono::milliseconds;

TEST(FakeEventSourceTest, ARetryWaitsOutItsDelayOnTheClockAndIsCounted) {
  FakeClock clock;
  FakeEventSource source(&clock);
  source.Publish(SourceContractEvent(1));
  auto first = source.Receive(milliseconds{0});
  ASSERT_TRUE(first);
  source.Retry(*first, milliseconds{300});
  EXPECT_EQ(source.waiting_retry(), 1u);
  clock.Advance(milliseconds{299});
  EXPECT_EQ(source.Receive(milliseconds{0}), std::nullopt);
  clock.Advance(milliseconds{1});
  auto again = source.Receive(milliseconds{0});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->event, first->event);
  EXPECT_FALSE(again->redelivered);
  source.Retry(*again, milliseconds{0});
  ASSERT_EQ(source.ready().size(), 1u);
  EXPECT_EQ(source.ready()[0].retries, 2);
  EXPECT_EQ(source.settlements(), (std::vector<std::string>{"retry", "retry"}));
}

TEST(FakeEventSourceTest, TheRetryQueueExpiresOnlyAtItsHeadAsRabbitMqDoes) {
  FakeClock clock;
  FakeEventSource source(&clock);
  source.Publish(SourceContractEvent(1));
  source.Publish(SourceContractEvent(2));
  auto first = source.Receive(milliseconds{0});
  auto second = source.Receive(milliseconds{0});
  source.Retry(*first, milliseconds{1000});
  source.Retry(*second, milliseconds{10});
  clock.Advance(milliseconds{10});
  EXPECT_EQ(source.Receive(milliseconds{0}), std::nullopt);  // behind the longer delay
  clock.Advance(milliseconds{990});
  EXPECT_EQ(source.Receive(milliseconds{0})->event, SourceContractEvent(1));
  EXPECT_EQ(source.Receive(milliseconds{0})->event, SourceContractEvent(2));
}

TEST(FakeEventSourceTest, ParkKeepsTheReasonAndReplayResetsRetriesAndReason) {
  FakeEventSource source;
  source.Publish(SourceContractEvent(1));
  auto received = source.Receive(milliseconds{0});
  source.Retry(*received, milliseconds{0});
  received = source.Receive(milliseconds{0});
  source.Park(*received, "preview: boom");
  ASSERT_EQ(source.parked().size(), 1u);
  EXPECT_EQ(source.parked()[0].park_reason, "preview: boom");
  EXPECT_EQ(source.parked()[0].retries, 1);
  EXPECT_EQ(source.parked()[0].message_id, SourceContractEvent(1).event_id);
  source.ReplayParked(std::nullopt, 10);
  ASSERT_EQ(source.ready().size(), 1u);
  EXPECT_EQ(source.ready()[0].retries, 0);
  EXPECT_EQ(source.ready()[0].park_reason, "");
}

TEST(FakeEventSourceTest, AnOutageFailsTheNextCallsAndReturnsUnsettledMessages) {
  FakeEventSource source;
  source.Publish(SourceContractEvent(1));
  auto received = source.Receive(milliseconds{0});
  ASSERT_TRUE(received);
  source.FailNextCalls(2);
  EXPECT_THROW(source.Receive(milliseconds{0}), EventSinkUnavailable);
  EXPECT_THROW(source.ParkedCount(), EventSinkUnavailable);
  EXPECT_EQ(source.unsettled(), 0u);
  EXPECT_THROW(source.Ack(*received), EventSinkUnavailable);  // its connection is gone
  auto again = source.Receive(milliseconds{0});
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->redelivered);
  source.Ack(*again);
  EXPECT_EQ(source.settlements(), std::vector<std::string>{"ack"});
}

}  // namespace
}  // namespace docgate
