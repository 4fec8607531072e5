#pragma once

#include <atomic>

#include "app/ports/outbox_wakeup.h"

namespace docgate {

class CountingWakeup final : public OutboxWakeup {
 public:
  void Wake() override { ++count_; }
  int count() const { return count_.load(); }

 private:
  std::atomic<int> count_{0};
};

}  // namespace docgate
