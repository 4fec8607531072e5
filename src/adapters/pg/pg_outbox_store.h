#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/ports/outbox_store.h"

namespace docgate {

class PgSession;
class PgWork;

// OutboxStore on PostgreSQL, over a PgSession shared with the database's other stores; its SQL is
// in pg_outbox_store.cpp.
//
// Outbox: ClaimPending claims the head rows it returns (FOR UPDATE SKIP LOCKED) for
// outbox_claim_ttl (database clock) on behalf of this store instance; rows claimed by another
// instance are skipped until their claim runs out, so several docgate processes on one database
// never hand out the same row at the same time, and a crashed process's rows are taken over once
// the TTL has passed since the claim or its last renewal (RenewClaims). This instance gets its own
// claimed rows again on its next call (a delivery that threw is retried at once, not after the
// TTL). Retry times (Defer) are on the database clock too. Every
// transaction that appends events sends NOTIFY docgate_outbox at commit (a trigger), which
// PgOutboxListener turns into relay wake-ups.
//
// Unknown sequences are ignored by MarkDelivered, and an event already delivered keeps its first
// delivery time; Defer defers only rows this instance still claims. Every method is one
// autocommit statement that changes nothing more when run twice (PgSession::Autocommit).
// Thread-safe.
class PgOutboxStore final : public OutboxStore {
 public:
  explicit PgOutboxStore(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();
  // The outbox's part of a transition (StoreTransaction::AppendEvent), in the transition's
  // transaction.
  static void Append(PgWork& work, const OutboxEvent& event);

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
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
