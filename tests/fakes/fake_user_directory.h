#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/ports/user_directory.h"
#include "fakes/fake_database.h"

namespace docgate {

// UserDirectory in memory, on a FakeDatabase shared with the database's other fakes. Remember is
// one guarded write as the databases' upsert (a known user takes the sighting unless seen later
// already), a write of its own like one statement in autocommit (FakeDatabase::Write: it waits
// for the writer slot, and the injected Begin and Commit failures, which are for transactions, are
// left to them); Find and NamesOf read. SetUnavailable makes every call throw StorageUnavailable.
// Thread-safe.
class FakeUserDirectory final : public UserDirectory {
 public:
  explicit FakeUserDirectory(std::shared_ptr<FakeDatabase> database);

  void Remember(const UserRecord& user) override;
  std::optional<UserRecord> Find(const UserId& id) override;
  std::map<UserId, std::string> NamesOf(const std::vector<UserId>& ids) override;

 private:
  std::shared_ptr<FakeDatabase> database_;
  // Taken inside the database's Read and Write, never the other way round.
  std::mutex mutex_;
  std::map<UserId, UserRecord> users_;  // guarded by mutex_
};

}  // namespace docgate
