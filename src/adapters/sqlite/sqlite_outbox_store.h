#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "app/ports/outbox_store.h"

namespace docgate {

class SqliteSession;
class SqliteWork;

// OutboxStore on SQLite, over a SqliteSession shared with the file's other stores; its SQL is in
// sqlite_outbox_store.cpp.
//
// Claims, renewals, deferrals and releases take the writer slot and BEGIN IMMEDIATE, which
// serialises them with every other writer, other processes on the same file included; their times
// are on SQLite's clock. ClaimPending claims the head rows it returns for outbox_claim_ttl on
// behalf of this session's instance; rows claimed by another instance are skipped until their
// claim runs out, and this instance gets its own claimed rows again on its next call. An idle
// relay's poll takes no write lock. Unknown sequences are ignored by MarkDelivered, and an event
// already delivered keeps its first delivery time; Defer defers only rows this instance still
// claims. Requeue wakes no relay by itself: SQLite has no notifications, so the caller wakes the
// in-process relay as it does after its own commits. Nothing is ever run twice: the file has no
// connection to lose, and a busy database is waited for (busy_timeout) before a statement runs,
// not after. Thread-safe.
class SqliteOutboxStore final : public OutboxStore {
 public:
  explicit SqliteOutboxStore(std::shared_ptr<SqliteSession> session);

  // The outbox's part of a transition (StoreTransaction::AppendEvent), in the transition's
  // transaction.
  static void Append(SqliteWork& work, const OutboxEvent& event);

  std::vector<OutboxEvent> ClaimPending(int limit) override;
  void MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) override;
  void Defer(const std::vector<std::int64_t>& sequences, std::chrono::milliseconds delay,
             std::chrono::milliseconds max_delay, std::string_view reason) override;
  void ReleaseClaims() override;
  int RenewClaims() override;
  int PruneDelivered(TimePoint cutoff, int limit) override;
  OutboxBacklog Backlog() override;
  void Requeue(const OutboxEvent& event) override;
  std::vector<OutboxEvent> FindStuckIngestions(TimePoint delivered_before, int limit) override;

 private:
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
