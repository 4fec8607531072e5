#include "fakes/fake_user_directory.h"

#include <utility>

namespace docgate {

FakeUserDirectory::FakeUserDirectory(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

void FakeUserDirectory::Remember(const UserRecord& user) {
  database_->Write([&](FakeTables&) {
    std::lock_guard lock(mutex_);
    const auto [found, added] = users_.try_emplace(user.id, user);
    if (!added && user.seen_at >= found->second.seen_at) found->second = user;
  });
}

std::optional<UserRecord> FakeUserDirectory::Find(const UserId& id) {
  return database_->Read([&](const FakeTables&) -> std::optional<UserRecord> {
    std::lock_guard lock(mutex_);
    const auto found = users_.find(id);
    if (found == users_.end()) return std::nullopt;
    return found->second;
  });
}

std::map<UserId, std::string> FakeUserDirectory::NamesOf(const std::vector<UserId>& ids) {
  if (ids.empty()) return {};
  return database_->Read([&](const FakeTables&) {
    std::lock_guard lock(mutex_);
    std::map<UserId, std::string> names;
    for (const UserId& id : ids) {
      const auto found = users_.find(id);
      if (found != users_.end() && found->second.name) names.emplace(id, *found->second.name);
    }
    return names;
  });
}

}  // namespace docgate
