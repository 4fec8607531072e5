#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "app/ports/session_store.h"
#include "fakes/fake_database.h"

namespace docgate {

// SessionStore in memory, on a FakeDatabase shared with the database's other fakes. Create, Delete
// and DeleteExpired are each a write of its own like one statement in autocommit
// (FakeDatabase::Write: it waits for the writer slot, and the injected Begin and Commit failures,
// which are for transactions, are left to them); Find reads. As the databases do, a second Create
// of one id_hash and a role that is empty or holds a space (which their space-separated column
// cannot keep apart) are StorageError. SetUnavailable makes every call throw StorageUnavailable.
// Thread-safe.
class FakeSessionStore final : public SessionStore {
 public:
  explicit FakeSessionStore(std::shared_ptr<FakeDatabase> database);

  void Create(const SessionRecord& session) override;
  std::optional<SessionRecord> Find(const std::string& id_hash, TimePoint now) override;
  bool Delete(const std::string& id_hash) override;
  std::size_t DeleteExpired(TimePoint now) override;

 private:
  std::shared_ptr<FakeDatabase> database_;
  // Taken inside the database's Read and Write, never the other way round.
  std::mutex mutex_;
  std::map<std::string, SessionRecord> sessions_;  // by id_hash; guarded by mutex_
};

}  // namespace docgate
