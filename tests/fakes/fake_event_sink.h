#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "app/ports/event_sink.h"

namespace docgate {

// A scripted EventSink, the broker's stand-in: records every batch it is handed, answers
// kDelivered unless told otherwise for an event_id (SetOutcome, for the next `times` deliveries of
// it), and can be told to throw EventSinkUnavailable for the next N batches (the broker down) or
// to hold each batch it was handed until released (a broker slow to confirm). Counts Maintain
// calls. Thread-safe.
class FakeEventSink final : public EventSink {
 public:
  std::vector<DeliveryOutcome> Deliver(std::span<const OutboxEvent> events) override {
    std::unique_lock lock(mutex_);
    if (unavailable_batches_ > 0) {
      --unavailable_batches_;
      throw EventSinkUnavailable("fake sink: injected outage");
    }
    batches_.emplace_back(events.begin(), events.end());
    if (holding_) {
      ++held_;
      changed_.notify_all();
      changed_.wait(lock, [this] { return !holding_; });
      --held_;
    }
    std::vector<DeliveryOutcome> outcomes;
    for (const OutboxEvent& event : events) {
      auto scripted = scripted_.find(event.event_id);
      if (scripted == scripted_.end()) {
        outcomes.push_back(DeliveryOutcome::kDelivered);
        delivered_.push_back(event);
        continue;
      }
      outcomes.push_back(scripted->second.outcome);
      if (--scripted->second.times == 0) scripted_.erase(scripted);
    }
    return outcomes;
  }
  void Maintain() override {
    std::lock_guard lock(mutex_);
    ++maintained_;
  }

  void SetOutcome(const std::string& event_id, DeliveryOutcome outcome, int times) {
    std::lock_guard lock(mutex_);
    scripted_[event_id] = Scripted{outcome, times};
  }
  // From now on each Deliver records its batch, then waits for ReleaseHeldBatches().
  void HoldBatches() {
    std::lock_guard lock(mutex_);
    holding_ = true;
  }
  void ReleaseHeldBatches() {
    {
      std::lock_guard lock(mutex_);
      holding_ = false;
    }
    changed_.notify_all();
  }
  // Waits until a Deliver call is being held; false when none was within `limit`.
  bool WaitForHeldBatch(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [this] { return held_ > 0; });
  }
  void FailNextBatches(int n) {
    std::lock_guard lock(mutex_);
    unavailable_batches_ = n;
  }
  // Events answered kDelivered, in order.
  std::vector<OutboxEvent> delivered() {
    std::lock_guard lock(mutex_);
    return delivered_;
  }
  std::vector<std::vector<OutboxEvent>> batches() {
    std::lock_guard lock(mutex_);
    return batches_;
  }
  int maintained() {
    std::lock_guard lock(mutex_);
    return maintained_;
  }

 private:
  struct Scripted {
    DeliveryOutcome outcome;
    int times;
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  bool holding_ = false;
  int held_ = 0;  // Deliver calls waiting for ReleaseHeldBatches
  std::map<std::string, Scripted> scripted_;
  int unavailable_batches_ = 0;
  int maintained_ = 0;
  std::vector<std::vector<OutboxEvent>> batches_;
  std::vector<OutboxEvent> delivered_;
};

}  // namespace docgate
