#include "worker/outbox_dispatcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <vector>

namespace docgate {

OutboxDispatcher::OutboxDispatcher(OutboxStore& outbox, EventSink& sink, Clock& clock,
                                   DispatcherConfig config)
    : outbox_(outbox), sink_(sink), clock_(clock), config_(config) {}

void OutboxDispatcher::Wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_.notify_one();
}

int OutboxDispatcher::RunOnce() {
  int delivered = 0;
  for (;;) {
    const auto batch = outbox_.ClaimPending(config_.batch_size);
    if (batch.empty()) return delivered;
    std::vector<std::int64_t> done;
    done.reserve(batch.size());
    try {
      for (const auto& event : batch) {
        sink_.Deliver(event);
        done.push_back(event.sequence);
      }
    } catch (...) {
      // Keep what was delivered before the failure, then let the caller see the failure.
      if (!done.empty()) outbox_.MarkDelivered(done, clock_.Now());
      throw;
    }
    outbox_.MarkDelivered(done, clock_.Now());
    delivered += static_cast<int>(done.size());
    if (static_cast<int>(batch.size()) < config_.batch_size) return delivered;
  }
}

void OutboxDispatcher::Run(std::stop_token stop) {
  auto backoff = config_.initial_backoff;
  while (!stop.stop_requested()) {
    try {
      RunOnce();
      backoff = config_.initial_backoff;
      WaitForWake(stop, config_.idle_poll);
    } catch (const std::exception& e) {
      {
        std::lock_guard lock(mutex_);
        ++failures_;
      }
      spdlog::warn("outbox dispatcher: delivery failed, retrying in {} ms: {}", backoff.count(),
                   e.what());
      WaitForWake(stop, backoff);
      backoff = std::min(backoff * 2, config_.max_backoff);
    }
  }
  try {
    outbox_.ReleaseClaims();
  } catch (const std::exception& e) {
    spdlog::warn("outbox dispatcher: could not release claims, they expire by themselves: {}",
                 e.what());
  }
}

std::uint64_t OutboxDispatcher::failures() const {
  std::lock_guard lock(mutex_);
  return failures_;
}

void OutboxDispatcher::WaitForWake(std::stop_token& stop, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, stop, timeout, [this] { return woken_; });
  woken_ = false;
}

}  // namespace docgate
