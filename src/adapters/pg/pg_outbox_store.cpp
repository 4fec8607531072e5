#include "adapters/pg/pg_outbox_store.h"

#include <algorithm>
#include <array>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

constexpr Statement kInsertEvent{"insert_event",
                                 "INSERT INTO kh_outbox (event_id, event_type, document_id, "
                                 "review_id, version, actor_id, occurred_at, reviewer_id,"
                                 " comment_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"};
// The event again as new: undelivered, unclaimed, no attempts, due now. The
// statement-level AFTER INSERT trigger fires for an INSERT ... ON CONFLICT DO
// UPDATE too, so the relays are woken whichever way it went.
constexpr Statement kRequeueEvent{"requeue_event",
                                  "INSERT INTO kh_outbox (event_id, event_type, "
                                  "document_id, review_id, version, actor_id, occurred_at,"
                                  " reviewer_id, comment_id)"
                                  " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                                  " ON CONFLICT (event_id) DO UPDATE SET delivered_at = "
                                  "NULL, claimed_by = NULL,"
                                  "   claimed_until = NULL, attempts = 0, next_attempt_at = "
                                  "0, last_error = NULL"};
// Claims and retry times are on the database's clock (now_ms, epoch millis):
// one clock for every instance, whatever their hosts' clocks say.
//
// Claims up to $1 head events (each document's oldest undelivered event) whose
// retry time has come, for instance $2, for $3 ms. Rows another instance is
// claiming right now are skipped, not waited for, and so, being heads, are
// their documents' later events; rows of an expired claim, or already this
// instance's, are taken.
constexpr Statement kClaimEvents{
    "claim_events",
    "WITH now_ms AS (SELECT (extract(epoch FROM clock_timestamp()) * "
    "1000)::bigint AS ms)"
    " UPDATE kh_outbox SET claimed_by = $2, claimed_until = (SELECT ms FROM "
    "now_ms) + $3"
    " WHERE id IN (SELECT o.id FROM kh_outbox o WHERE o.delivered_at IS NULL"
    "   AND o.next_attempt_at <= (SELECT ms FROM now_ms)"
    "   AND (o.claimed_until IS NULL OR o.claimed_until < (SELECT ms FROM "
    "now_ms)"
    "        OR o.claimed_by = $2)"
    "   AND NOT EXISTS (SELECT 1 FROM kh_outbox p WHERE p.document_id = "
    "o.document_id"
    "                   AND p.delivered_at IS NULL AND p.id < o.id)"
    "   ORDER BY o.id LIMIT $1 FOR UPDATE SKIP LOCKED)"
    " RETURNING id, event_id, event_type, document_id, review_id, version, "
    "actor_id, occurred_at, reviewer_id, comment_id"};
constexpr Statement kMarkDelivered{
    "mark_delivered",
    "UPDATE kh_outbox SET delivered_at = $2, claimed_by = NULL, claimed_until "
    "= NULL"
    " WHERE id = ANY ($1::bigint[]) AND delivered_at IS NULL"};
// Defers this instance ($5) claimed rows $1: the next attempt after $2 *
// 2^attempts ms (attempts before this one), at most $3 ms.
constexpr Statement kDeferEvents{"defer_events",
                                 "WITH now_ms AS (SELECT (extract(epoch FROM "
                                 "clock_timestamp()) * 1000)::bigint AS ms)"
                                 " UPDATE kh_outbox SET claimed_by = NULL, claimed_until = "
                                 "NULL, attempts = attempts + 1,"
                                 "   next_attempt_at = (SELECT ms FROM now_ms) + "
                                 "LEAST($3::bigint, $2::bigint << LEAST(attempts, 30)),"
                                 "   last_error = $4"
                                 " WHERE id = ANY ($1::bigint[]) AND delivered_at IS NULL "
                                 "AND claimed_by = $5"};
constexpr Statement kReleaseClaims{"release_claims", sql::kReleaseClaims};
// Extends instance $1's claims on undelivered rows to $2 ms from now.
constexpr Statement kRenewClaims{"renew_claims",
                                 "UPDATE kh_outbox"
                                 " SET claimed_until = (extract(epoch FROM "
                                 "clock_timestamp()) * 1000)::bigint + $2"
                                 " WHERE claimed_by = $1 AND delivered_at IS NULL"};
// Keeps the approval event of every approved version whose ingestion is not
// done: the reconciler replays it (FindStuckIngestions).
constexpr Statement kPruneDelivered{"prune_delivered", sql::kPruneDelivered};
constexpr Statement kBacklog{"outbox_backlog", sql::kBacklog};
// The newest approval event of each approved version not ingested, if delivered
// before $1.
constexpr Statement kFindStuckIngestions{"find_stuck_ingestions", sql::kFindStuckIngestions};

constexpr std::array kOutboxStatements{
    kInsertEvent,   kRequeueEvent, kClaimEvents,    kMarkDelivered, kDeferEvents,
    kReleaseClaims, kRenewClaims,  kPruneDelivered, kBacklog,       kFindStuckIngestions};

}  // namespace

PgOutboxStore::PgOutboxStore(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgOutboxStore::Statements() { return kOutboxStatements; }

void PgOutboxStore::Append(PgWork& work, const OutboxEvent& event) {
  work.Run("append event of document", event.document_id, [&](pqxx::work& w) {
    w.exec_prepared(kInsertEvent.name, Checked(event.event_id), Name(ToString(event.type)),
                    event.document_id, event.review_id, event.version, Checked(event.actor_id),
                    Millis(event.occurred_at), Checked(event.reviewer_id), event.comment_id);
  });
}

std::vector<OutboxEvent> PgOutboxStore::ClaimPending(int limit) {
  if (limit <= 0) return {};
  auto events = session_->Autocommit("claim outbox events", [&](pqxx::transaction_base& tx) {
    return All<OutboxEvent>(
        tx.exec_prepared(kClaimEvents.name, limit, session_->instance_token(),
                         static_cast<std::int64_t>(session_->config().outbox_claim_ttl.count())),
        ToEvent);
  });
  std::sort(events.begin(), events.end(),
            [](const OutboxEvent& a, const OutboxEvent& b) { return a.sequence < b.sequence; });
  return events;
}

void PgOutboxStore::MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) {
  if (sequences.empty()) return;
  session_->Autocommit("mark outbox events delivered", [&](pqxx::transaction_base& tx) {
    tx.exec_prepared(kMarkDelivered.name, IdArray(sequences), Millis(at));
  });
}

void PgOutboxStore::Defer(const std::vector<std::int64_t>& sequences,
                          std::chrono::milliseconds delay, std::chrono::milliseconds max_delay,
                          std::string_view reason) {
  if (sequences.empty()) return;
  session_->Autocommit("defer outbox events", [&](pqxx::transaction_base& tx) {
    tx.exec_prepared(kDeferEvents.name, IdArray(sequences),
                     static_cast<std::int64_t>(delay.count()),
                     static_cast<std::int64_t>(max_delay.count()), Checked(std::string(reason)),
                     session_->instance_token());
  });
}

void PgOutboxStore::ReleaseClaims() {
  session_->Autocommit("release outbox claims", [&](pqxx::transaction_base& tx) {
    tx.exec_prepared(kReleaseClaims.name, session_->instance_token());
  });
}

int PgOutboxStore::RenewClaims() {
  return session_->Autocommit("renew outbox claims", [&](pqxx::transaction_base& tx) {
    return static_cast<int>(
        tx.exec_prepared(kRenewClaims.name, session_->instance_token(),
                         static_cast<std::int64_t>(session_->config().outbox_claim_ttl.count()))
            .affected_rows());
  });
}

int PgOutboxStore::PruneDelivered(TimePoint cutoff, int limit) {
  if (limit <= 0) return 0;
  return session_->Autocommit("prune delivered outbox events", [&](pqxx::transaction_base& tx) {
    return static_cast<int>(
        tx.exec_prepared(kPruneDelivered.name, Millis(cutoff), limit).affected_rows());
  });
}

OutboxBacklog PgOutboxStore::Backlog() {
  return session_->Autocommit("count pending outbox events", [&](pqxx::transaction_base& tx) {
    const pqxx::result result = tx.exec_prepared(kBacklog.name);
    OutboxBacklog backlog;
    backlog.pending = result[0][0].as<std::int64_t>();
    if (const auto oldest = Nullable<std::int64_t>(result[0][1])) {
      backlog.oldest_occurred_at = FromMillis(*oldest);
    }
    return backlog;
  });
}

void PgOutboxStore::Requeue(const OutboxEvent& event) {
  session_->Autocommit("requeue event " + event.event_id, [&](pqxx::transaction_base& tx) {
    tx.exec_prepared(kRequeueEvent.name, Checked(event.event_id), Name(ToString(event.type)),
                     event.document_id, event.review_id, event.version, Checked(event.actor_id),
                     Millis(event.occurred_at), Checked(event.reviewer_id), event.comment_id);
  });
}

std::vector<OutboxEvent> PgOutboxStore::FindStuckIngestions(TimePoint delivered_before, int limit) {
  if (limit <= 0) return {};
  return session_->Autocommit("find stuck ingestions", [&](pqxx::transaction_base& tx) {
    return All<OutboxEvent>(
        tx.exec_prepared(kFindStuckIngestions.name, Millis(delivered_before), limit), ToEvent);
  });
}

}  // namespace docgate
