#include "adapters/sqlite/sqlite_idempotency_store.h"

#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "core/error.h"

namespace docgate {
namespace {

using namespace sqlite_rows;  // shared rows and binders (sqlite_rows.h)

// Idempotency keys bind ?1 caller, ?2 key, ?3 owner. Reservation reads and
// writes under BEGIN IMMEDIATE, which makes the check and the write one step
// for every process on the file.
constexpr std::string_view kSelectIdempotencyKey = sql::kSqlite<sql::kSelectIdempotencyKey>;
constexpr std::string_view kReserveIdempotencyKey =
    "INSERT OR REPLACE INTO kh_idempotency"
    " (caller, idem_key, owner, fingerprint, response, created_at, expires_at)"
    " VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6)";
constexpr std::string_view kCompleteIdempotencyKey = sql::kSqlite<sql::kCompleteIdempotencyKey>;
constexpr std::string_view kReleaseIdempotencyKey = sql::kSqlite<sql::kReleaseIdempotencyKey>;
constexpr std::string_view kPruneIdempotencyKeys =
    "DELETE FROM kh_idempotency WHERE rowid IN (SELECT rowid FROM "
    "kh_idempotency"
    " WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2)";

// Completes `owner`'s in-flight record; false when there is none.
bool CompleteOn(SqliteConnection& connection, const std::string& caller, const std::string& key,
                const std::string& owner, const std::string& response, TimePoint expires_at) {
  connection.Prepare(kCompleteIdempotencyKey)
      .Bind(1, caller)
      .Bind(2, key)
      .Bind(3, owner)
      .Bind(4, response)
      .Bind(5, expires_at)
      .Run();
  return connection.Changes() == 1;
}

}  // namespace

SqliteIdempotencyStore::SqliteIdempotencyStore(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

void SqliteIdempotencyStore::Complete(SqliteWork& work, const std::string& caller,
                                      const std::string& key, const std::string& owner,
                                      const std::string& response, TimePoint expires_at) {
  if (!CompleteOn(work.Open(), caller, key, owner, response, expires_at)) {
    throw StorageError("sqlite: idempotency key '" + key + "' of " + caller +
                       " is no longer reserved by this request");
  }
}

std::optional<IdempotencyRecord> SqliteIdempotencyStore::ReserveIdempotencyKey(
    const std::string& caller, const std::string& key, const std::string& fingerprint,
    const std::string& owner, TimePoint now, TimePoint lease_until) {
  auto lease = session_->Write();
  SqliteWriteTransaction tx(*lease);
  {
    auto stmt = lease->Prepare(kSelectIdempotencyKey);
    stmt.Bind(1, caller).Bind(2, key);
    // Held by another request: rolled back, nothing written.
    if (stmt.Step() && stmt.Time(2) > now) {
      return IdempotencyRecord{stmt.Text(0), Nullable(stmt, 1, &SqliteStatement::Text),
                               stmt.Time(2)};
    }
  }
  lease->Prepare(kReserveIdempotencyKey)
      .Bind(1, caller)
      .Bind(2, key)
      .Bind(3, owner)
      .Bind(4, fingerprint)
      .Bind(5, now)
      .Bind(6, lease_until)
      .Run();
  tx.Commit();
  return std::nullopt;
}

bool SqliteIdempotencyStore::CompleteIdempotentRequest(const std::string& caller,
                                                       const std::string& key,
                                                       const std::string& owner,
                                                       const std::string& response,
                                                       TimePoint expires_at) {
  return CompleteOn(*session_->Write(), caller, key, owner, response, expires_at);
}

void SqliteIdempotencyStore::ReleaseIdempotencyKey(const std::string& caller,
                                                   const std::string& key,
                                                   const std::string& owner) {
  session_->Write()
      ->Prepare(kReleaseIdempotencyKey)
      .Bind(1, caller)
      .Bind(2, key)
      .Bind(3, owner)
      .Run();
}

int SqliteIdempotencyStore::PruneIdempotencyKeys(TimePoint now, int limit) {
  if (limit <= 0) return 0;
  auto lease = session_->Write();
  lease->Prepare(kPruneIdempotencyKeys).Bind(1, now).Bind(2, NonNegative(limit)).Run();
  return static_cast<int>(lease->Changes());
}

}  // namespace docgate
