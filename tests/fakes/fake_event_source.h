#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/amqp/event_message.h"
#include "app/ports/clock.h"
#include "app/ports/event_sink.h"
#include "app/ports/event_source.h"

namespace docgate {

// An in-memory EventSource, RabbitMQ's stand-in for the worker's unit tests. It keeps the
// contract as AmqpEventSource does: bodies decoded with DecodeEventBody (a body that is not an
// event comes with event = nullopt and `error`); at most `prefetch` messages unsettled (Receive
// then returns nullopt); handles (delivery_tag) unique and never 0; settling a handle of a dropped
// connection throws EventSinkUnavailable and does nothing else, settling one twice throws
// std::logic_error; Retry counts `retries` (the x-docgate-retries header) and Park keeps `reason`;
// ReplayParked moves matching parked messages (by event_id, or the message_id of a body that is
// not an event) back to the queue's tail, resets retries and reason, returns them in parking order
// with delivery_tag 0, and leaves the others parked in their order.
//
// Time: Receive never waits (its timeout is not slept). A retried message waits out its delay on
// the injected clock, the retry queue expiring only at its head as RabbitMQ's does; without a clock
// it is back at the queue's tail at once.
//
// Faults: DropConnection() is a broken connection: every unsettled message goes back to its place
// in the queue, marked redelivered, their handles go stale, and the next call throws
// EventSinkUnavailable (the drop noticed); calls after it work. FailNextCalls(n): the broker is
// unreachable for the next n calls, each throwing EventSinkUnavailable after dropping the
// connection as above.
//
// Thread-safe (the tests inspect it while a worker thread uses it).
class FakeEventSource final : public EventSource {
 public:
  // A message as the broker holds it.
  struct Message {
    std::string body;
    std::string message_id;
    int retries = 0;          // x-docgate-retries
    std::string park_reason;  // x-docgate-park-reason (parked ones)
  };

  explicit FakeEventSource(Clock* clock = nullptr, int prefetch = 16)
      : clock_(clock), prefetch_(prefetch) {}

  // The producers' side: an event as the sink publishes it, or any body.
  void Publish(const OutboxEvent& event) { PublishBody(EncodeEventBody(event), event.event_id); }
  void PublishBody(std::string body, std::string message_id = {}) {
    std::lock_guard lock(mutex_);
    Enqueue(Message{std::move(body), std::move(message_id), 0, {}});
  }

  void DropConnection() {
    std::lock_guard lock(mutex_);
    Drop();
    drop_noticed_ = false;
  }
  void FailNextCalls(int n) {
    std::lock_guard lock(mutex_);
    failing_calls_ = n;
  }

  // Messages ready in the queue, in order.
  std::vector<Message> ready() {
    std::lock_guard lock(mutex_);
    PromoteDueRetries();
    std::vector<Message> messages;
    for (const auto& [position, entry] : ready_) messages.push_back(entry.message);
    return messages;
  }
  std::size_t unsettled() {
    std::lock_guard lock(mutex_);
    return unsettled_.size();
  }
  // Messages waiting out a retry delay, in order.
  std::size_t waiting_retry() {
    std::lock_guard lock(mutex_);
    PromoteDueRetries();
    return retrying_.size();
  }
  // The parking queue, in order.
  std::vector<Message> parked() {
    std::lock_guard lock(mutex_);
    return parked_;
  }
  // Calls that settled a message (Ack, Retry, Park), in order: "ack", "retry", "park".
  std::vector<std::string> settlements() {
    std::lock_guard lock(mutex_);
    return settlements_;
  }

  std::optional<ReceivedEvent> Receive(std::chrono::milliseconds /*timeout*/) override {
    std::lock_guard lock(mutex_);
    Call();
    PromoteDueRetries();
    if (ready_.empty() || std::cmp_greater_equal(unsettled_.size(), prefetch_)) {
      return std::nullopt;
    }
    auto head = ready_.begin();
    Entry entry = std::move(head->second);
    const std::uint64_t position = head->first;
    ready_.erase(head);
    ReceivedEvent received = Describe(entry.message);
    received.redelivered = entry.redelivered;
    received.delivery_tag = next_handle_++;
    unsettled_.emplace(received.delivery_tag, Unsettled{position, std::move(entry.message)});
    return received;
  }

  void Ack(const ReceivedEvent& message) override {
    std::lock_guard lock(mutex_);
    Call();
    Take(message);
    settlements_.push_back("ack");
  }

  void Retry(const ReceivedEvent& message, std::chrono::milliseconds delay) override {
    std::lock_guard lock(mutex_);
    Call();
    Message taken = Take(message);
    ++taken.retries;
    settlements_.push_back("retry");
    if (clock_ == nullptr) {
      Enqueue(std::move(taken));
      return;
    }
    retrying_.push_back(Waiting{clock_->Now() + delay, std::move(taken)});
  }

  void Park(const ReceivedEvent& message, std::string_view reason) override {
    std::lock_guard lock(mutex_);
    Call();
    Message taken = Take(message);
    taken.park_reason = std::string(reason);
    parked_.push_back(std::move(taken));
    settlements_.push_back("park");
  }

  std::vector<ReceivedEvent> ReplayParked(const std::optional<std::string>& event_id,
                                          int limit) override {
    std::lock_guard lock(mutex_);
    Call();
    std::vector<ReceivedEvent> replayed;
    std::vector<Message> kept;
    for (Message& message : parked_) {
      const bool chosen =
          std::cmp_less(replayed.size(), limit) && (!event_id || EventIdOf(message) == *event_id);
      if (!chosen) {
        kept.push_back(std::move(message));
        continue;
      }
      replayed.push_back(Describe(message));
      message.retries = 0;
      message.park_reason.clear();
      Enqueue(std::move(message));
    }
    parked_ = std::move(kept);
    return replayed;
  }

  std::int64_t ParkedCount() override {
    std::lock_guard lock(mutex_);
    Call();
    return static_cast<std::int64_t>(parked_.size());
  }

 private:
  struct Entry {
    Message message;
    bool redelivered = false;
  };
  struct Unsettled {
    std::uint64_t position;  // in the queue, to go back to
    Message message;
  };
  struct Waiting {
    TimePoint due;
    Message message;
  };

  static std::string EventIdOf(const Message& message) {
    const auto event = DecodeEventBody(message.body);
    return event ? event->event_id : message.message_id;
  }

  static ReceivedEvent Describe(const Message& message) {
    ReceivedEvent received;
    received.event = DecodeEventBody(message.body);
    if (!received.event) received.error = "the body is not a docgate event (fake)";
    received.body = message.body;
    return received;
  }

  void Enqueue(Message message) {
    ready_.emplace(next_position_++, Entry{std::move(message), false});
  }

  // Every call first meets the connection's faults.
  void Call() {
    if (failing_calls_ > 0) {
      --failing_calls_;
      Drop();
      drop_noticed_ = true;
      throw EventSinkUnavailable("fake event source: injected outage");
    }
    if (!drop_noticed_) {
      drop_noticed_ = true;
      throw EventSinkUnavailable("fake event source: the connection broke");
    }
  }

  void Drop() {
    for (auto& [handle, unsettled] : unsettled_) {
      ready_.emplace(unsettled.position, Entry{std::move(unsettled.message), true});
    }
    unsettled_.clear();
    first_handle_ = next_handle_;
  }

  Message Take(const ReceivedEvent& message) {
    const std::uint64_t handle = message.delivery_tag;
    if (handle == 0 || handle >= next_handle_) {
      throw std::logic_error("fake event source: not a handle of a received message");
    }
    if (handle < first_handle_) {
      throw EventSinkUnavailable("fake event source: the message's connection is gone");
    }
    const auto it = unsettled_.find(handle);
    if (it == unsettled_.end()) {
      throw std::logic_error("fake event source: message settled already");
    }
    Message taken = std::move(it->second.message);
    unsettled_.erase(it);
    return taken;
  }

  void PromoteDueRetries() {
    if (clock_ == nullptr) return;
    const TimePoint now = clock_->Now();
    while (!retrying_.empty() && retrying_.front().due <= now) {
      Enqueue(std::move(retrying_.front().message));
      retrying_.pop_front();
    }
  }

  std::mutex mutex_;
  Clock* clock_;
  const int prefetch_;
  std::map<std::uint64_t, Entry> ready_;  // by position: a requeued message goes back to its place
  std::uint64_t next_position_ = 1;
  std::map<std::uint64_t, Unsettled> unsettled_;  // by handle
  std::uint64_t next_handle_ = 1;
  std::uint64_t first_handle_ = 1;
  std::deque<Waiting> retrying_;
  std::vector<Message> parked_;
  std::vector<std::string> settlements_;
  int failing_calls_ = 0;
  bool drop_noticed_ = true;
};

}  // namespace docgate
