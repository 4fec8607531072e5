#pragma once

#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/event_consumer.h"

namespace docgate {

// An EventConsumer that records what it was handed, and can be told to fail the next N calls.
// Thread-safe.
class RecordingConsumer final : public EventConsumer {
 public:
  std::string_view Name() const override { return "recording"; }
  void Handle(const OutboxEvent& event) override {
    std::lock_guard lock(mutex_);
    if (failures_left_ > 0) {
      --failures_left_;
      throw std::runtime_error("recording consumer: injected failure");
    }
    events_.push_back(event);
  }
  void FailNext(int n) {
    std::lock_guard lock(mutex_);
    failures_left_ = n;
  }
  std::vector<OutboxEvent> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  int failures_left_ = 0;
  std::vector<OutboxEvent> events_;
};

}  // namespace docgate
