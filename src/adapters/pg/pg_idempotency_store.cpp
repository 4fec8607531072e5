#include "adapters/pg/pg_idempotency_store.h"

#include <array>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

// Idempotency keys bind $1 caller, $2 key, $3 owner. A reservation inserts the
// in-flight row, or takes over an expired one; concurrent reservations of one
// key serialise on the primary key, and the losers' ON CONFLICT finds the
// winner's row live and returns nothing.
constexpr Statement kReserveIdempotencyKey{
    "reserve_idempotency_key",
    "INSERT INTO kh_idempotency"
    " (caller, idem_key, owner, fingerprint, response, created_at, expires_at)"
    " VALUES ($1, $2, $3, $4, NULL, $5, $6)"
    " ON CONFLICT (caller, idem_key) DO UPDATE SET owner = EXCLUDED.owner,"
    "   fingerprint = EXCLUDED.fingerprint, response = NULL, created_at = "
    "EXCLUDED.created_at,"
    "   expires_at = EXCLUDED.expires_at"
    " WHERE kh_idempotency.expires_at <= $5"
    " RETURNING owner"};
constexpr Statement kSelectIdempotencyKey{"select_idempotency_key", sql::kSelectIdempotencyKey};
constexpr Statement kCompleteIdempotencyKey{"complete_idempotency_key",
                                            sql::kCompleteIdempotencyKey};
constexpr Statement kReleaseIdempotencyKey{"release_idempotency_key", sql::kReleaseIdempotencyKey};
// Rows another instance is pruning right now are skipped, not waited for.
constexpr Statement kPruneIdempotencyKeys{
    "prune_idempotency_keys",
    "DELETE FROM kh_idempotency WHERE (caller, idem_key) IN (SELECT caller, "
    "idem_key"
    " FROM kh_idempotency WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2"
    " FOR UPDATE SKIP LOCKED)"};

constexpr std::array kIdempotencyStatements{kReserveIdempotencyKey, kSelectIdempotencyKey,
                                            kCompleteIdempotencyKey, kReleaseIdempotencyKey,
                                            kPruneIdempotencyKeys};

}  // namespace

PgIdempotencyStore::PgIdempotencyStore(std::shared_ptr<PgSession> session)
    : session_(std::move(session)) {}

std::span<const Statement> PgIdempotencyStore::Statements() { return kIdempotencyStatements; }

void PgIdempotencyStore::Complete(PgWork& work, const std::string& caller, const std::string& key,
                                  const std::string& owner, const std::string& response,
                                  TimePoint expires_at) {
  const auto result = work.Run("complete idempotency key", 0, [&](pqxx::work& w) {
    return w.exec_prepared(kCompleteIdempotencyKey.name, Checked(caller), Checked(key),
                           Checked(owner), Checked(response), Millis(expires_at));
  });
  if (result.affected_rows() != 1) {
    throw StorageError("postgres: idempotency key '" + key + "' of " + caller +
                       " is no longer reserved by this request");
  }
}

std::optional<IdempotencyRecord> PgIdempotencyStore::ReserveIdempotencyKey(
    const std::string& caller, const std::string& key, const std::string& fingerprint,
    const std::string& owner, TimePoint now, TimePoint lease_until) {
  // The live row may vanish between the two statements (released after a
  // failure, or pruned): then the key is free and the reservation is tried
  // again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const bool reserved =
        session_->Autocommit("reserve idempotency key", [&](pqxx::transaction_base& tx) {
          return !tx.exec_prepared(kReserveIdempotencyKey.name, Checked(caller), Checked(key),
                                   Checked(owner), Checked(fingerprint), Millis(now),
                                   Millis(lease_until))
                      .empty();
        });
    if (reserved) return std::nullopt;
    const auto row = session_->Autocommit("read idempotency key", [&](pqxx::transaction_base& tx) {
      return First<std::pair<IdempotencyRecord, std::string>>(
          tx.exec_prepared(kSelectIdempotencyKey.name, Checked(caller), Checked(key)),
          [](const pqxx::row& r) {
            return std::pair{IdempotencyRecord{r[0].as<std::string>(), Nullable<std::string>(r[1]),
                                               FromMillis(r[2].as<std::int64_t>())},
                             r[3].as<std::string>()};
          });
    });
    if (!row) continue;
    // Our own row: the insert committed, but its answer was lost with the
    // connection and the retried statement found the row live.
    if (row->second == owner) return std::nullopt;
    return row->first;
  }
  throw StorageUnavailable("postgres: idempotency key '" + key + "' of " + caller +
                           " kept changing under concurrent requests");
}

bool PgIdempotencyStore::CompleteIdempotentRequest(const std::string& caller,
                                                   const std::string& key, const std::string& owner,
                                                   const std::string& response,
                                                   TimePoint expires_at) {
  return session_->Autocommit("complete idempotency key", [&](pqxx::transaction_base& tx) {
    return tx.exec_prepared(kCompleteIdempotencyKey.name, Checked(caller), Checked(key),
                            Checked(owner), Checked(response), Millis(expires_at))
               .affected_rows() == 1;
  });
}

void PgIdempotencyStore::ReleaseIdempotencyKey(const std::string& caller, const std::string& key,
                                               const std::string& owner) {
  session_->Autocommit("release idempotency key", [&](pqxx::transaction_base& tx) {
    tx.exec_prepared(kReleaseIdempotencyKey.name, Checked(caller), Checked(key), Checked(owner));
  });
}

int PgIdempotencyStore::PruneIdempotencyKeys(TimePoint now, int limit) {
  if (limit <= 0) return 0;
  return session_->Autocommit("prune idempotency keys", [&](pqxx::transaction_base& tx) {
    return static_cast<int>(
        tx.exec_prepared(kPruneIdempotencyKeys.name, Millis(now), limit).affected_rows());
  });
}

}  // namespace docgate
