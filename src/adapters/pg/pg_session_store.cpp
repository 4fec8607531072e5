#include "adapters/pg/pg_session_store.h"

#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"
#include "adapters/sql/word_list.h"
#include "core/error.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

constexpr Statement kInsertSession{"insert_session", sql::kInsertSession};
constexpr Statement kSelectSession{"select_session", sql::kSelectSession};
constexpr Statement kDeleteSession{"delete_session", sql::kDeleteSession};
constexpr Statement kDeleteExpiredSessions{"delete_expired_sessions", sql::kDeleteExpiredSessions};

constexpr std::array kSessionStatements{kInsertSession, kSelectSession, kDeleteSession,
                                        kDeleteExpiredSessions};

SessionRecord ToSession(const pqxx::row& row) {
  return SessionRecord{row[0].as<std::string>(),
                       row[1].as<std::string>(),
                       Nullable<std::string>(row[2]),
                       sql::SplitWords(row[3].as<std::string>()),
                       row[4].as<std::string>(),
                       row[5].as<std::string>(),
                       FromMillis(row[6].as<std::int64_t>()),
                       FromMillis(row[7].as<std::int64_t>())};
}

}  // namespace

PgSessionStore::PgSessionStore(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgSessionStore::Statements() { return kSessionStatements; }

// Not in autocommit: an INSERT that ran again after its answer was lost would find its own row and
// report a duplicate. A transaction of its own is run again only when it cannot have committed.
void PgSessionStore::Create(const SessionRecord& session) {
  const std::optional<std::string> roles = sql::JoinWords(session.roles);
  if (!roles)
    throw StorageError("postgres: a session role must be a non-empty word without spaces");
  session_->Atomically("create session", [&](pqxx::transaction_base& tx) {
    tx.exec_prepared(kInsertSession.name, Checked(session.id_hash), Checked(session.user_id),
                     Checked(session.user_name), Checked(*roles), Checked(session.csrf_token),
                     Checked(session.id_token), Millis(session.created_at),
                     Millis(session.expires_at));
    return 0;
  });
}

std::optional<SessionRecord> PgSessionStore::Find(const std::string& id_hash, TimePoint now) {
  return session_->Autocommit("find session", [&](pqxx::transaction_base& tx) {
    return First<SessionRecord>(
        tx.exec_prepared(kSelectSession.name, Checked(id_hash), Millis(now)), ToSession);
  });
}

// One statement in autocommit: run twice, it removes nothing more (and answers for the second run).
bool PgSessionStore::Delete(const std::string& id_hash) {
  return session_->Autocommit("delete session", [&](pqxx::transaction_base& tx) {
    return tx.exec_prepared(kDeleteSession.name, Checked(id_hash)).affected_rows() == 1;
  });
}

std::size_t PgSessionStore::DeleteExpired(TimePoint now) {
  return session_->Autocommit("delete expired sessions", [&](pqxx::transaction_base& tx) {
    return static_cast<std::size_t>(
        tx.exec_prepared(kDeleteExpiredSessions.name, Millis(now)).affected_rows());
  });
}

}  // namespace docgate
