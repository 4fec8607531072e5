#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "adapters/pg/pg_statements.h"
#include "app/ports/session_store.h"

namespace docgate {

class PgSession;

// The SessionStore on PostgreSQL (kh_session), over a PgSession shared with the database's other
// stores; its SQL is in pg_session_store.cpp. Create is one INSERT in a transaction of its own;
// Find, Delete and DeleteExpired are one statement each in autocommit. A Delete or DeleteExpired
// run again on a fresh connection after its first answer was lost answers for the second run
// (nothing more to remove: false, 0). Roles are stored space-separated, so a role that is empty or
// holds a space is refused (StorageError) rather than coming back as other roles; a text with a
// NUL character is a StorageError, as everywhere on PostgreSQL. Thread-safe.
class PgSessionStore final : public SessionStore {
 public:
  explicit PgSessionStore(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();

  void Create(const SessionRecord& session) override;
  std::optional<SessionRecord> Find(const std::string& id_hash, TimePoint now) override;
  bool Delete(const std::string& id_hash) override;
  std::size_t DeleteExpired(TimePoint now) override;

 private:
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
