#include "adapters/pg/pg_user_directory.h"

#include <array>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

constexpr Statement kUpsertUser{"upsert_user", sql::kUpsertUser};
constexpr Statement kSelectUser{"select_user", sql::kSelectUser};
// $1 the ids, a text array: one statement, whatever their number.
constexpr Statement kSelectNames{
    "select_user_names",
    "SELECT id, name FROM kh_user WHERE id = ANY($1::text[]) AND name IS NOT NULL"};

constexpr std::array kUserStatements{kUpsertUser, kSelectUser, kSelectNames};

UserRecord ToUser(const pqxx::row& row) {
  return UserRecord{row[0].as<std::string>(), Nullable<std::string>(row[1]),
                    FromMillis(row[2].as<std::int64_t>())};
}

}  // namespace

PgUserDirectory::PgUserDirectory(std::shared_ptr<PgSession> session)
    : session_(std::move(session)) {}

std::span<const Statement> PgUserDirectory::Statements() { return kUserStatements; }

// One statement in autocommit, without BEGIN and COMMIT round trips. It may run twice
// (PgSession::Autocommit): the same sighting again changes nothing.
void PgUserDirectory::Remember(const UserRecord& user) {
  session_->Autocommit("remember user " + user.id, [&](pqxx::transaction_base& tx) {
    tx.exec_prepared(kUpsertUser.name, Checked(user.id), Checked(user.name), Millis(user.seen_at));
  });
}

std::optional<UserRecord> PgUserDirectory::Find(const UserId& id) {
  return session_->Autocommit("find user " + id, [&](pqxx::transaction_base& tx) {
    return First<UserRecord>(tx.exec_prepared(kSelectUser.name, Checked(id)), ToUser);
  });
}

std::map<UserId, std::string> PgUserDirectory::NamesOf(const std::vector<UserId>& ids) {
  if (ids.empty()) return {};
  return session_->Autocommit("find names of users", [&](pqxx::transaction_base& tx) {
    std::map<UserId, std::string> names;
    for (const auto& row : tx.exec_prepared(kSelectNames.name, TextArray(ids))) {
      names.emplace(row[0].as<std::string>(), row[1].as<std::string>());
    }
    return names;
  });
}

}  // namespace docgate
