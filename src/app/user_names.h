#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/ports/clock.h"
#include "app/ports/user_directory.h"
#include "core/model.h"

namespace docgate {

// The names of the people docgate's resources name (authors, submitters, reviewers), as each
// one's token said when last seen. Thread-safe; `directory` and `clock` must outlive it.
class UserNames {
 public:
  // At most this many callers are remembered as written by this instance; past it the memory
  // starts over (a caller is then written once more).
  static constexpr std::size_t kRememberedCallers = 10'000;

  UserNames(UserDirectory& directory, Clock& clock) : directory_(directory), clock_(clock) {}

  // Records `actor` (its name, or none when its token had none) as seen now. Writes only when
  // this instance has not yet written this caller with this name, so an authenticated request
  // costs a write once per caller and name, not every time. Throws what the directory throws.
  void Saw(const Actor& actor);

  std::optional<UserRecord> Find(const UserId& id) const { return directory_.Find(id); }
  std::map<UserId, std::string> NamesOf(const std::vector<UserId>& ids) const {
    return directory_.NamesOf(ids);
  }

 private:
  UserDirectory& directory_;
  Clock& clock_;
  std::mutex mutex_;
  std::unordered_map<UserId, std::string> written_;  // id -> the name this instance wrote
};

}  // namespace docgate
