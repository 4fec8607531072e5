#include "app/user_names.h"

namespace docgate {

void UserNames::Saw(const Actor& actor) {
  {
    std::lock_guard lock(mutex_);
    const auto it = written_.find(actor.id);
    if (it != written_.end() && it->second == actor.name) return;
  }
  std::optional<std::string> name;
  if (!actor.name.empty()) name = actor.name;
  directory_.Remember(UserRecord{actor.id, name, clock_.Now()});
  std::lock_guard lock(mutex_);
  if (written_.size() >= kRememberedCallers) written_.clear();
  written_[actor.id] = actor.name;
}

}  // namespace docgate
