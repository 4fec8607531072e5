#include "adapters/sqlite/sqlite_session_store.h"

#include <string_view>
#include <utility>
#include <vector>

#include "adapters/sql/shared_statements.h"
#include "adapters/sql/word_list.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "core/error.h"

namespace docgate {
namespace {

using sqlite_rows::Nullable;

constexpr std::string_view kInsertSession = sql::kSqlite<sql::kInsertSession>;
constexpr std::string_view kSelectSession = sql::kSqlite<sql::kSelectSession>;
constexpr std::string_view kDeleteSession = sql::kSqlite<sql::kDeleteSession>;
constexpr std::string_view kDeleteExpiredSessions = sql::kSqlite<sql::kDeleteExpiredSessions>;

SessionRecord SessionFromRow(const SqliteStatement& row) {
  return SessionRecord{row.Text(0),
                       row.Text(1),
                       Nullable(row, 2, &SqliteStatement::Text),
                       sql::SplitWords(row.Text(3)),
                       row.Text(4),
                       row.Text(5),
                       row.Time(6),
                       row.Time(7)};
}

}  // namespace

SqliteSessionStore::SqliteSessionStore(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

void SqliteSessionStore::Create(const SessionRecord& session) {
  const std::optional<std::string> roles = sql::JoinWords(session.roles);
  if (!roles) throw StorageError("sqlite: a session role must be a non-empty word without spaces");
  session_->Atomically([&](SqliteConnection& connection) {
    connection.Prepare(kInsertSession)
        .Bind(1, session.id_hash)
        .Bind(2, session.user_id)
        .Bind(3, session.user_name)
        .Bind(4, *roles)
        .Bind(5, session.csrf_token)
        .Bind(6, session.id_token)
        .Bind(7, session.created_at)
        .Bind(8, session.expires_at)
        .Run();
  });
}

std::optional<SessionRecord> SqliteSessionStore::Find(const std::string& id_hash, TimePoint now) {
  std::vector<SessionRecord> rows =
      session_->ReadAll(kSelectSession, &SessionFromRow, id_hash, now);
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

bool SqliteSessionStore::Delete(const std::string& id_hash) {
  return session_->Atomically([&](SqliteConnection& connection) {
    connection.Prepare(kDeleteSession).Bind(1, id_hash).Run();
    return connection.Changes() == 1;
  });
}

std::size_t SqliteSessionStore::DeleteExpired(TimePoint now) {
  return session_->Atomically([&](SqliteConnection& connection) {
    connection.Prepare(kDeleteExpiredSessions).Bind(1, now).Run();
    return static_cast<std::size_t>(connection.Changes());
  });
}

}  // namespace docgate
