#include "fakes/fake_session_store.h"

#include <utility>

#include "core/error.h"

namespace docgate {

FakeSessionStore::FakeSessionStore(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

void FakeSessionStore::Create(const SessionRecord& session) {
  for (const std::string& role : session.roles) {
    if (role.empty() || role.find(' ') != std::string::npos) {
      throw StorageError("fake: a session role must be a non-empty word, not '" + role + "'");
    }
  }
  database_->Write([&](FakeTables&) {
    std::lock_guard lock(mutex_);
    if (!sessions_.try_emplace(session.id_hash, session).second) {
      throw StorageError("fake: UNIQUE constraint failed: kh_session.id_hash");
    }
  });
}

std::optional<SessionRecord> FakeSessionStore::Find(const std::string& id_hash, TimePoint now) {
  return database_->Read([&](const FakeTables&) -> std::optional<SessionRecord> {
    std::lock_guard lock(mutex_);
    const auto found = sessions_.find(id_hash);
    if (found == sessions_.end() || found->second.expires_at <= now) return std::nullopt;
    return found->second;
  });
}

bool FakeSessionStore::Delete(const std::string& id_hash) {
  return database_->Write([&](FakeTables&) {
    std::lock_guard lock(mutex_);
    return sessions_.erase(id_hash) == 1;
  });
}

std::size_t FakeSessionStore::DeleteExpired(TimePoint now) {
  return database_->Write([&](FakeTables&) {
    std::lock_guard lock(mutex_);
    return std::erase_if(sessions_,
                         [&](const auto& entry) { return entry.second.expires_at <= now; });
  });
}

}  // namespace docgate
