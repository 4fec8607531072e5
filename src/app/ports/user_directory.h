#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"

namespace docgate {

// A caller as docgate last saw it in a token.
struct UserRecord {
  UserId id;
  std::optional<std::string> name;  // nullopt: the token named no one
  TimePoint seen_at{};

  bool operator==(const UserRecord&) const = default;
};

// Who the callers are: the display name each one's token carried when last seen, so that ids
// stored with documents and reviews can be shown as people. Thread-safe. Throws
// StorageUnavailable when its backend cannot be reached and StorageError on anything else.
class UserDirectory {
 public:
  virtual ~UserDirectory() = default;
  // Records that `id` was seen with `name` at `seen_at`, in its own unit of work: a new user is
  // added, a known one takes this name unless it was seen later than `seen_at` already (two
  // instances writing at once: the latest sighting wins, in any order of arrival).
  virtual void Remember(const UserRecord& user) = 0;
  virtual std::optional<UserRecord> Find(const UserId& id) = 0;
  // The names of those of `ids` that have one (an id never seen, or seen without a name, is not
  // in the map). `ids` may repeat and may be empty (then no query is made).
  virtual std::map<UserId, std::string> NamesOf(const std::vector<UserId>& ids) = 0;
};

}  // namespace docgate
