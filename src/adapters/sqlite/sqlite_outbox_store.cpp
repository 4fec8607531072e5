#include "adapters/sqlite/sqlite_outbox_store.h"

#include <algorithm>
#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "adapters/sqlite/sqlite_sql_text.h"

namespace docgate {
namespace {

using namespace sqlite_rows;  // shared rows and binders (sqlite_rows.h)
using sqlite_sql::Sql;

constexpr char kInsertEventText[] =
    "INSERT INTO kh_outbox (event_id, event_type, document_id, review_id, "
    "version, actor_id,"
    " occurred_at, reviewer_id, comment_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
constexpr std::string_view kInsertEvent = kInsertEventText;
// The event again as new: undelivered, unclaimed, no attempts, due now.
constexpr auto kRequeueEvent = Sql(kInsertEventText,
                                   " ON CONFLICT (event_id) DO UPDATE SET delivered_at "
                                   "= NULL, claimed_by = NULL,"
                                   " claimed_until = NULL, attempts = 0, "
                                   "next_attempt_at = 0, last_error = NULL");
// Claims and retry times are on SQLite's clock in epoch millis
// (julianday('now') is fixed for the duration of one statement). The claim
// statements run under BEGIN IMMEDIATE, which serialises claimers as FOR UPDATE
// does on PostgreSQL.
//
// Claims up to ?1 head events (each document's oldest undelivered event) whose
// retry time has come for instance ?2 for ?3 ms: unclaimed rows, rows of an
// expired claim and this instance's own.
constexpr std::string_view kClaimEvents =
    "WITH now_ms AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 "
    "AS INTEGER) AS ms)"
    " UPDATE kh_outbox SET claimed_by = ?2, claimed_until = (SELECT ms FROM "
    "now_ms) + ?3"
    " WHERE id IN (SELECT o.id FROM kh_outbox o WHERE o.delivered_at IS NULL"
    "   AND o.next_attempt_at <= (SELECT ms FROM now_ms)"
    "   AND (o.claimed_until IS NULL OR o.claimed_until < (SELECT ms FROM "
    "now_ms)"
    "        OR o.claimed_by = ?2)"
    "   AND NOT EXISTS (SELECT 1 FROM kh_outbox p WHERE p.document_id = "
    "o.document_id"
    "                   AND p.delivered_at IS NULL AND p.id < o.id)"
    "   ORDER BY o.id LIMIT ?1)"
    " RETURNING id, event_id, event_type, document_id, review_id, version, "
    "actor_id, occurred_at, reviewer_id, comment_id";
// Lets an idle relay poll without taking the write lock.
constexpr std::string_view kAnyPending =
    "SELECT 1 FROM kh_outbox WHERE delivered_at IS NULL LIMIT 1";
constexpr std::string_view kMarkDelivered =
    "UPDATE kh_outbox SET delivered_at = ?2, claimed_by = NULL, claimed_until "
    "= NULL"
    " WHERE id = ?1 AND delivered_at IS NULL";
// Defers row ?1 if instance ?5 claims it: the next attempt after ?2 *
// 2^attempts ms (attempts before this one), at most ?3 ms.
constexpr std::string_view kDeferEvent =
    "WITH now_ms AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 "
    "AS INTEGER) AS ms)"
    " UPDATE kh_outbox SET claimed_by = NULL, claimed_until = NULL, attempts = "
    "attempts + 1,"
    "   next_attempt_at = (SELECT ms FROM now_ms) + min(?3, ?2 << "
    "min(attempts, 30)),"
    "   last_error = ?4"
    " WHERE id = ?1 AND delivered_at IS NULL AND claimed_by = ?5";
constexpr std::string_view kReleaseClaims = sql::kSqlite<sql::kReleaseClaims>;
// Extends instance ?1's claims on undelivered rows to ?2 ms from now.
constexpr std::string_view kRenewClaims =
    "WITH now_ms AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 "
    "AS INTEGER) AS ms)"
    " UPDATE kh_outbox SET claimed_until = (SELECT ms FROM now_ms) + ?2"
    " WHERE claimed_by = ?1 AND delivered_at IS NULL";
// Keeps the approval event of every approved version whose ingestion is not
// done: the reconciler replays it (FindStuckIngestions).
constexpr std::string_view kPruneDelivered = sql::kSqlite<sql::kPruneDelivered>;
constexpr std::string_view kBacklog = sql::kSqlite<sql::kBacklog>;
// The newest approval event of each approved version not ingested, if delivered
// before ?1.
constexpr std::string_view kFindStuckIngestions = sql::kSqlite<sql::kFindStuckIngestions>;

std::int64_t Millis(std::chrono::milliseconds duration) {
  return static_cast<std::int64_t>(duration.count());
}

}  // namespace

SqliteOutboxStore::SqliteOutboxStore(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

void SqliteOutboxStore::Append(SqliteWork& work, const OutboxEvent& event) {
  auto stmt = work.Open().Prepare(kInsertEvent);
  BindEvent(stmt, event, 1).Run();
}

std::vector<OutboxEvent> SqliteOutboxStore::ClaimPending(int limit) {
  if (limit <= 0) return {};
  if (!session_->Read()->Prepare(kAnyPending).Step()) return {};
  auto events = session_->Atomically([&](SqliteConnection& connection) {
    auto stmt = connection.Prepare(kClaimEvents);
    stmt.Bind(1, NonNegative(limit))
        .Bind(2, session_->instance_token())
        .Bind(3, Millis(session_->config().outbox_claim_ttl));
    return AllRows(stmt, &EventFromRow);
  });
  std::sort(events.begin(), events.end(),
            [](const OutboxEvent& a, const OutboxEvent& b) { return a.sequence < b.sequence; });
  return events;
}

void SqliteOutboxStore::MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) {
  if (sequences.empty()) return;
  session_->Atomically([&](SqliteConnection& connection) {
    for (const std::int64_t sequence : sequences) {
      connection.Prepare(kMarkDelivered).Bind(1, sequence).Bind(2, at).Run();
    }
  });
}

void SqliteOutboxStore::Defer(const std::vector<std::int64_t>& sequences,
                              std::chrono::milliseconds delay, std::chrono::milliseconds max_delay,
                              std::string_view reason) {
  if (sequences.empty()) return;
  session_->Atomically([&](SqliteConnection& connection) {
    for (const std::int64_t sequence : sequences) {
      connection.Prepare(kDeferEvent)
          .Bind(1, sequence)
          .Bind(2, Millis(delay))
          .Bind(3, Millis(max_delay))
          .Bind(4, reason)
          .Bind(5, session_->instance_token())
          .Run();
    }
  });
}

void SqliteOutboxStore::ReleaseClaims() {
  session_->Write()->Prepare(kReleaseClaims).Bind(1, session_->instance_token()).Run();
}

int SqliteOutboxStore::RenewClaims() {
  auto lease = session_->Write();
  lease->Prepare(kRenewClaims)
      .Bind(1, session_->instance_token())
      .Bind(2, Millis(session_->config().outbox_claim_ttl))
      .Run();
  return static_cast<int>(lease->Changes());
}

int SqliteOutboxStore::PruneDelivered(TimePoint cutoff, int limit) {
  if (limit <= 0) return 0;
  auto lease = session_->Write();
  lease->Prepare(kPruneDelivered).Bind(1, cutoff).Bind(2, NonNegative(limit)).Run();
  return static_cast<int>(lease->Changes());
}

OutboxBacklog SqliteOutboxStore::Backlog() {
  auto lease = session_->Read();
  auto stmt = lease->Prepare(kBacklog);
  OutboxBacklog backlog;
  if (stmt.Step()) {
    backlog.pending = stmt.Int64(0);
    backlog.oldest_occurred_at = Nullable(stmt, 1, &SqliteStatement::Time);
  }
  return backlog;
}

void SqliteOutboxStore::Requeue(const OutboxEvent& event) {
  auto lease = session_->Write();
  auto stmt = lease->Prepare(kRequeueEvent);
  BindEvent(stmt, event, 1).Run();
}

std::vector<OutboxEvent> SqliteOutboxStore::FindStuckIngestions(TimePoint delivered_before,
                                                                int limit) {
  return session_->ReadAll(kFindStuckIngestions, &EventFromRow, delivered_before,
                           NonNegative(limit));
}

}  // namespace docgate
