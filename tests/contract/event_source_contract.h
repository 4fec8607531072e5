#pragma once

// The contract of EventSource (app/ports/event_source.h) as one typed suite, run against the fake and
// RabbitMQ's source so that they cannot drift apart.
//
// Instantiate it with a factory type F:
//   struct F {
//     F();  // an isolated, empty queue (with its retry and parking queues) of its own
//     std::unique_ptr<EventSource> Make(int prefetch);  // a source on it (at most one per test)
//     void Publish(const OutboxEvent& event);            // as the event sink publishes it
//     void PublishBody(const std::string& body, const std::string& message_id);  // any body
//     void Drop();  // breaks the source's connection; later connections work
//   };
//   INSTANTIATE_TYPED_TEST_SUITE_P(Fake, EventSourceContract, ::testing::Types<F>);
// One F lives for one test; the source it made is destroyed before it. Publishing is finished when
// Publish returns, but a real source may need a moment to receive: the suite waits up to
// kArrival for what must come, and kQuiet for what must not (a fake answers at once).

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/ports/event_sink.h"
#include "app/ports/event_source.h"
#include "core/model.h"

namespace docgate {

inline OutboxEvent SourceContractEvent(int n) {
  OutboxEvent event;
  event.event_id = "00000000-0000-4000-8000-" + std::to_string(200000000000 + n);
  event.type = n % 2 == 0 ? EventType::kApproved : EventType::kSubmitted;
  event.document_id = 100 + n;
  event.review_id = 200 + n;
  event.version = n % 5 + 1;
  event.actor_id = "actor-" + std::to_string(n);
  event.occurred_at = TimePoint{std::chrono::milliseconds{1'798'000'000'123 + 1000 * n}};
  return event;
}

// The event ids of `messages` ("?" for a body that is not an event).
inline std::vector<std::string> EventIdsOf(const std::vector<ReceivedEvent>& messages) {
  std::vector<std::string> ids;
  for (const auto& message : messages) ids.push_back(message.event ? message.event->event_id : "?");
  return ids;
}

template <typename Factory>
class EventSourceContract : public ::testing::Test {
 protected:
  static constexpr std::chrono::milliseconds kArrival{5000};
  static constexpr std::chrono::milliseconds kQuiet{300};

  EventSource& Source(int prefetch = 16) {
    if (!source_) source_ = factory_.Make(prefetch);
    return *source_;
  }
  void Publish(int n) { factory_.Publish(SourceContractEvent(n)); }

  // The next message, which must come.
  ReceivedEvent Next() {
    auto received = Source().Receive(kArrival);
    if (!received) {
      ADD_FAILURE() << "nothing received within " << kArrival.count() << " ms";
      return {};
    }
    return *received;
  }
  // The event ids of the messages received until none comes for kQuiet, each acked.
  std::vector<std::string> DrainAcking() {
    std::vector<std::string> ids;
    while (auto received = Source().Receive(kQuiet)) {
      ids.push_back(received->event ? received->event->event_id : "?");
      Source().Ack(*received);
    }
    return ids;
  }
  static std::string Id(int n) { return SourceContractEvent(n).event_id; }
  static std::vector<std::string> Ids(std::initializer_list<int> ns) {
    std::vector<std::string> ids;
    for (const int n : ns) ids.push_back(Id(n));
    return ids;
  }

  Factory factory_;
  std::unique_ptr<EventSource> source_;
};

TYPED_TEST_SUITE_P(EventSourceContract);

TYPED_TEST_P(EventSourceContract, AnEventIsReceivedWithItsFields) {
  this->Publish(1);
  const ReceivedEvent received = this->Next();
  OutboxEvent expected = SourceContractEvent(1);
  EXPECT_EQ(received.event, expected);
  EXPECT_EQ(received.error, "");
  EXPECT_NE(received.body.find(expected.event_id), std::string::npos) << received.body;
  EXPECT_NE(received.delivery_tag, 0u);
  EXPECT_FALSE(received.redelivered);
  this->Source().Ack(received);
  EXPECT_EQ(this->Source().Receive(this->kQuiet), std::nullopt);
}

TYPED_TEST_P(EventSourceContract, ABodyThatIsNotAnEventComesWithAnErrorAndCanBeAcked) {
  this->factory_.PublishBody("{\"hello\": 1}", "not-an-event");
  this->Publish(2);
  const ReceivedEvent bad = this->Next();
  EXPECT_EQ(bad.event, std::nullopt);
  EXPECT_NE(bad.error, "");
  EXPECT_EQ(bad.body, "{\"hello\": 1}");
  this->Source().Ack(bad);
  EXPECT_EQ(this->DrainAcking(), this->Ids({2}));
}

TYPED_TEST_P(EventSourceContract, HandlesAreDistinctAndASecondSettlementIsALogicError) {
  this->Publish(1);
  this->Publish(2);
  const ReceivedEvent first = this->Next();
  const ReceivedEvent second = this->Next();
  EXPECT_NE(first.delivery_tag, second.delivery_tag);
  this->Source().Ack(first);
  EXPECT_THROW(this->Source().Ack(first), std::logic_error);
  EXPECT_THROW(this->Source().Park(first, "twice"), std::logic_error);
  ReceivedEvent never_given = second;
  never_given.delivery_tag = 0;
  EXPECT_THROW(this->Source().Ack(never_given), std::logic_error);
  this->Source().Ack(second);  // unaffected
  EXPECT_EQ(this->Source().ParkedCount(), 0);
}

TYPED_TEST_P(EventSourceContract, AckedMessagesAreGoneAndUnackedOnesComeBackAfterADrop) {
  for (int n = 1; n <= 3; ++n) this->Publish(n);
  const ReceivedEvent first = this->Next();
  this->Source().Ack(first);
  const ReceivedEvent second = this->Next();
  const ReceivedEvent third = this->Next();
  EXPECT_EQ(EventIdsOf({second, third}), this->Ids({2, 3}));
  // basic.ack has no answer: a request/answer on the same channel after it (a queue count) makes
  // sure the broker has the ack before the connection is cut. Without it the cut may swallow the
  // ack, and RabbitMQ rightly delivers the first message again.
  EXPECT_EQ(this->Source().ParkedCount(), 0);

  this->factory_.Drop();
  EXPECT_THROW(this->Source().Receive(this->kArrival), EventSinkUnavailable);
  // The handles of the dropped connection are stale; settling one changes nothing.
  EXPECT_THROW(this->Source().Ack(second), EventSinkUnavailable);

  const ReceivedEvent again = this->Next();  // connects anew
  const ReceivedEvent again_too = this->Next();
  EXPECT_EQ(EventIdsOf({again, again_too}), this->Ids({2, 3}));
  EXPECT_TRUE(again.redelivered);
  EXPECT_TRUE(again_too.redelivered);
  EXPECT_NE(again.delivery_tag, second.delivery_tag);
  EXPECT_NE(again.delivery_tag, third.delivery_tag);
  this->Source().Ack(again);
  this->Source().Ack(again_too);
  EXPECT_EQ(this->Source().Receive(this->kQuiet), std::nullopt);  // the acked first stays gone
}

TYPED_TEST_P(EventSourceContract, AtMostPrefetchMessagesAreUnsettled) {
  EventSource& source = this->Source(/*prefetch=*/2);
  for (int n = 1; n <= 5; ++n) this->Publish(n);
  const ReceivedEvent first = this->Next();
  const ReceivedEvent second = this->Next();
  EXPECT_EQ(source.Receive(this->kQuiet), std::nullopt);
  source.Ack(first);
  const ReceivedEvent third = this->Next();
  EXPECT_EQ(source.Receive(this->kQuiet), std::nullopt);
  EXPECT_EQ(EventIdsOf({first, second, third}), this->Ids({1, 2, 3}));
  source.Ack(second);
  source.Ack(third);
  EXPECT_EQ(this->DrainAcking(), this->Ids({4, 5}));
}

TYPED_TEST_P(EventSourceContract, ARetryWithoutDelayComesBackAsANewMessage) {
  this->Publish(1);
  this->Publish(2);
  const ReceivedEvent first = this->Next();
  this->Source().Retry(first, std::chrono::milliseconds{0});
  const ReceivedEvent second = this->Next();
  const ReceivedEvent retried = this->Next();
  EXPECT_EQ(EventIdsOf({second, retried}), this->Ids({2, 1}));  // behind what was queued
  EXPECT_FALSE(retried.redelivered);
  EXPECT_EQ(retried.body, first.body);
  EXPECT_THROW(this->Source().Ack(first), std::logic_error);  // settled by the retry
  this->Source().Ack(second);
  this->Source().Ack(retried);
  EXPECT_EQ(this->Source().Receive(this->kQuiet), std::nullopt);
}

TYPED_TEST_P(EventSourceContract, AParkedMessageIsCountedAndNotDeliveredAgain) {
  this->Publish(1);
  EXPECT_EQ(this->Source().ParkedCount(), 0);
  const ReceivedEvent received = this->Next();
  this->Source().Park(received, "consumer preview failed 5 times");
  EXPECT_EQ(this->Source().ParkedCount(), 1);
  EXPECT_EQ(this->Source().Receive(this->kQuiet), std::nullopt);
  EXPECT_THROW(this->Source().Ack(received), std::logic_error);
}

TYPED_TEST_P(EventSourceContract, ReplayingEverythingReturnsThemInParkingOrder) {
  for (int n = 1; n <= 3; ++n) this->Publish(n);
  for (int i = 0; i < 3; ++i) this->Source().Park(this->Next(), "failed");
  ASSERT_EQ(this->Source().ParkedCount(), 3);

  const auto replayed = this->Source().ReplayParked(std::nullopt, 100);
  EXPECT_EQ(EventIdsOf(replayed), this->Ids({1, 2, 3}));
  for (const auto& message : replayed) EXPECT_EQ(message.delivery_tag, 0u);
  EXPECT_EQ(this->Source().ParkedCount(), 0);
  EXPECT_EQ(this->DrainAcking(), this->Ids({1, 2, 3}));
  EXPECT_TRUE(this->Source().ReplayParked(std::nullopt, 100).empty());
}

TYPED_TEST_P(EventSourceContract, ReplayingOneEventLeavesTheOthersParkedInTheirOrder) {
  for (int n = 1; n <= 3; ++n) this->Publish(n);
  for (int i = 0; i < 3; ++i) this->Source().Park(this->Next(), "failed");

  const auto replayed = this->Source().ReplayParked(this->Id(2), 100);
  EXPECT_EQ(EventIdsOf(replayed), this->Ids({2}));
  EXPECT_EQ(this->Source().ParkedCount(), 2);
  EXPECT_EQ(this->DrainAcking(), this->Ids({2}));
  EXPECT_TRUE(this->Source().ReplayParked(this->Id(2), 100).empty());  // not parked any more

  // Parked later: behind the two that stayed.
  this->Publish(4);
  this->Source().Park(this->Next(), "failed");
  EXPECT_EQ(EventIdsOf(this->Source().ReplayParked(std::nullopt, 100)), this->Ids({1, 3, 4}));
  EXPECT_EQ(this->Source().ParkedCount(), 0);
}

TYPED_TEST_P(EventSourceContract, ReplayStopsAtTheLimit) {
  for (int n = 1; n <= 3; ++n) this->Publish(n);
  for (int i = 0; i < 3; ++i) this->Source().Park(this->Next(), "failed");
  EXPECT_TRUE(this->Source().ReplayParked(std::nullopt, 0).empty());
  EXPECT_EQ(EventIdsOf(this->Source().ReplayParked(std::nullopt, 2)), this->Ids({1, 2}));
  EXPECT_EQ(this->Source().ParkedCount(), 1);
  EXPECT_EQ(EventIdsOf(this->Source().ReplayParked(std::nullopt, 2)), this->Ids({3}));
  EXPECT_EQ(this->DrainAcking(), this->Ids({1, 2, 3}));
}

TYPED_TEST_P(EventSourceContract, ABodyThatIsNotAnEventIsReplayedByItsMessageId) {
  this->factory_.PublishBody("garbage", "message-7");
  this->Publish(1);
  this->Source().Park(this->Next(), "undecodable");
  this->Source().Park(this->Next(), "failed");
  const auto replayed = this->Source().ReplayParked(std::string("message-7"), 100);
  ASSERT_EQ(replayed.size(), 1u);
  EXPECT_EQ(replayed[0].body, "garbage");
  EXPECT_EQ(replayed[0].event, std::nullopt);
  EXPECT_EQ(this->Source().ParkedCount(), 1);
  const ReceivedEvent back = this->Next();
  EXPECT_EQ(back.body, "garbage");
  this->Source().Ack(back);
}

REGISTER_TYPED_TEST_SUITE_P(EventSourceContract, AnEventIsReceivedWithItsFields,
                            ABodyThatIsNotAnEventComesWithAnErrorAndCanBeAcked,
                            HandlesAreDistinctAndASecondSettlementIsALogicError,
                            AckedMessagesAreGoneAndUnackedOnesComeBackAfterADrop,
                            AtMostPrefetchMessagesAreUnsettled,
                            ARetryWithoutDelayComesBackAsANewMessage,
                            AParkedMessageIsCountedAndNotDeliveredAgain,
                            ReplayingEverythingReturnsThemInParkingOrder,
                            ReplayingOneEventLeavesTheOthersParkedInTheirOrder,
                            ReplayStopsAtTheLimit, ABodyThatIsNotAnEventIsReplayedByItsMessageId);

}  // namespace docgate
