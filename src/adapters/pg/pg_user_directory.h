#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/ports/user_directory.h"

namespace docgate {

class PgSession;

// The UserDirectory on PostgreSQL (kh_user), over a PgSession shared with the database's other
// stores; its SQL is in pg_user_directory.cpp. Remember is one guarded upsert in autocommit (a
// statement of its own; concurrent sightings of one user serialise on its row, and the guard keeps
// the latest); Find and NamesOf read in autocommit, NamesOf in one statement over a text array.
// A text with a NUL character is a StorageError, as everywhere on PostgreSQL. Thread-safe.
class PgUserDirectory final : public UserDirectory {
 public:
  explicit PgUserDirectory(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();

  void Remember(const UserRecord& user) override;
  std::optional<UserRecord> Find(const UserId& id) override;
  std::map<UserId, std::string> NamesOf(const std::vector<UserId>& ids) override;

 private:
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
