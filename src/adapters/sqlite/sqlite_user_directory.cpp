#include "adapters/sqlite/sqlite_user_directory.h"

#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"

namespace docgate {
namespace {

using sqlite_rows::Nullable;

constexpr std::string_view kUpsertUser = sql::kSqlite<sql::kUpsertUser>;
constexpr std::string_view kSelectUser = sql::kSqlite<sql::kSelectUser>;
// ?1 the ids as a JSON array of strings: one statement, whatever their number.
constexpr std::string_view kSelectNames =
    "SELECT id, name FROM kh_user"
    " WHERE id IN (SELECT value FROM json_each(?1)) AND name IS NOT NULL";

UserRecord UserFromRow(const SqliteStatement& row) {
  return UserRecord{row.Text(0), Nullable(row, 1, &SqliteStatement::Text), row.Time(2)};
}

std::pair<UserId, std::string> NameFromRow(const SqliteStatement& row) {
  return {row.Text(0), row.Text(1)};
}

// Ids are whatever a token's issuer wrote (valid UTF-8: SubjectProblem); nlohmann writes them as
// JSON strings, which json_each gives back unchanged.
std::string JsonStringArray(const std::vector<UserId>& ids) {
  return nlohmann::json(ids).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

SqliteUserDirectory::SqliteUserDirectory(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

void SqliteUserDirectory::Remember(const UserRecord& user) {
  session_->Atomically([&](SqliteConnection& connection) {
    connection.Prepare(kUpsertUser).Bind(1, user.id).Bind(2, user.name).Bind(3, user.seen_at).Run();
  });
}

std::optional<UserRecord> SqliteUserDirectory::Find(const UserId& id) {
  std::vector<UserRecord> rows = session_->ReadAll(kSelectUser, &UserFromRow, id);
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

std::map<UserId, std::string> SqliteUserDirectory::NamesOf(const std::vector<UserId>& ids) {
  if (ids.empty()) return {};
  std::vector<std::pair<UserId, std::string>> rows =
      session_->ReadAll(kSelectNames, &NameFromRow, JsonStringArray(ids));
  return {std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end())};
}

}  // namespace docgate
