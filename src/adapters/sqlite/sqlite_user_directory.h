#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/ports/user_directory.h"

namespace docgate {

class SqliteSession;

// The UserDirectory on SQLite (kh_user), over a SqliteSession shared with the file's other stores;
// its SQL is in sqlite_user_directory.cpp. Remember is one guarded upsert under BEGIN IMMEDIATE
// with the writer slot; Find and NamesOf read in autocommit, NamesOf in one statement over the ids
// as a JSON array. Thread-safe.
class SqliteUserDirectory final : public UserDirectory {
 public:
  explicit SqliteUserDirectory(std::shared_ptr<SqliteSession> session);

  void Remember(const UserRecord& user) override;
  std::optional<UserRecord> Find(const UserId& id) override;
  std::map<UserId, std::string> NamesOf(const std::vector<UserId>& ids) override;

 private:
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
