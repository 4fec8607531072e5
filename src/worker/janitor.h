#pragma once

#include <chrono>
#include <stop_token>

#include "app/idempotency.h"

namespace docgate {

struct JanitorConfig {
  std::chrono::milliseconds interval{60000};  // between rounds
};

// Housekeeping on its own thread: deletes expired Idempotency-Key records (IdempotencyService::
// PruneExpired, in bounded batches). Every instance on a database may run one; they do not get in
// each other's way.
class Janitor {
 public:
  explicit Janitor(IdempotencyService& idempotency, JanitorConfig config = {});

  // One round; returns the records deleted. Throws what the store throws.
  int RunOnce();

  // A round at once, then one every interval, until `stop` is requested. Failures are logged and
  // the next round tries again; nothing propagates.
  void Run(std::stop_token stop);

 private:
  IdempotencyService& idempotency_;
  const JanitorConfig config_;
};

}  // namespace docgate
