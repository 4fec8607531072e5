#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

#include "app/idempotency.h"
#include "app/ports/clock.h"
#include "app/ports/inbox_store.h"

namespace docgate {

struct JanitorConfig {
  std::chrono::milliseconds interval{60000};  // between rounds
  // `done` inbox rows are deleted once older than this (DOCGATE_INBOX_RETENTION_HOURS, by default
  // and at least DOCGATE_OUTBOX_RETENTION_HOURS: see InboxStore::PruneInbox),
  // inbox_prune_batch rows per statement.
  std::chrono::hours inbox_retention{24 * 7};
  int inbox_prune_batch = 1000;
};

// Why `config` cannot be used, in one line (naming DOCGATE_INBOX_RETENTION_HOURS for the
// retention), or nullopt when it can: a positive interval, inbox_retention of 1 hour..10 years,
// inbox_prune_batch 1..100000. (That the inbox outlives the outbox's retention is the runtime's
// rule: it spans two components.)
std::optional<std::string> ValidateJanitorConfig(const JanitorConfig& config);

// What the janitor deleted, read from any thread.
struct JanitorCounters {
  std::atomic<std::uint64_t> inbox_pruned{0};  // `done` inbox rows past the retention
};

// Housekeeping on its own thread: deletes expired Idempotency-Key records (IdempotencyService::
// PruneExpired) and `done` consumer inbox rows past the inbox retention
// (InboxStore::PruneInbox), in bounded batches. Every instance on a database may run one; they
// do not get in each other's way.
class Janitor {
 public:
  Janitor(IdempotencyService& idempotency, InboxStore& inbox, Clock& clock,
          JanitorConfig config = {});

  // Expired idempotency records deleted; throws what the store throws.
  int PruneIdempotencyKeys();
  // Deletes `done` inbox rows older than the retention, in batches of inbox_prune_batch, until
  // none is left; returns how many. Throws what the store throws (the rows deleted by then are
  // counted).
  int PruneInbox();

  // One round of both; returns the records deleted. Throws what the store throws.
  int RunOnce();

  // A round at once, then one every interval, until `stop` is requested. Failures are logged and
  // the next round tries again; nothing propagates.
  void Run(std::stop_token stop);

  const JanitorCounters& counters() const { return counters_; }

 private:
  IdempotencyService& idempotency_;
  InboxStore& inbox_;
  Clock& clock_;
  const JanitorConfig config_;
  JanitorCounters counters_;
};

}  // namespace docgate
