#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "app/ports/session_store.h"

namespace docgate {

class SqliteSession;

// The SessionStore on SQLite (kh_session), over a SqliteSession shared with the file's other
// stores; its SQL is in sqlite_session_store.cpp. Create, Delete and DeleteExpired are one
// statement each under BEGIN IMMEDIATE with the writer slot; Find reads in autocommit, one row by
// its key. Roles are stored space-separated, so a role that is empty or holds a space is refused
// (StorageError) rather than coming back as other roles. Thread-safe.
class SqliteSessionStore final : public SessionStore {
 public:
  explicit SqliteSessionStore(std::shared_ptr<SqliteSession> session);

  void Create(const SessionRecord& session) override;
  std::optional<SessionRecord> Find(const std::string& id_hash, TimePoint now) override;
  bool Delete(const std::string& id_hash) override;
  std::size_t DeleteExpired(TimePoint now) override;

 private:
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
