#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"

namespace docgate {

// A console session opened by signing in through the OpenID provider (ADR 0013). The cookie holds
// a random id; the store knows it only by its SHA-256, so a copy of the table signs no one in.
struct SessionRecord {
  std::string id_hash;  // lowercase hex SHA-256 of the cookie's id; the key
  UserId user_id;
  std::optional<std::string> user_name;  // nullopt: the ID token named no one
  // docgate roles (author, reviewer, admin), in that order; each a non-empty word (no space)
  std::vector<std::string> roles;
  std::string csrf_token;  // what X-Docgate-CSRF must carry (ASCII)
  std::string id_token;  // the provider's ID token, for its end-session `id_token_hint`; may be ""
  TimePoint created_at{};
  TimePoint expires_at{};

  bool operator==(const SessionRecord&) const = default;
};

// Where console sessions live, shared by every instance (a logout on one ends the session on all).
// Thread-safe. Throws StorageUnavailable when its backend cannot be reached and StorageError on
// anything else, a second Create of one id_hash included.
class SessionStore {
 public:
  virtual ~SessionStore() = default;
  // Adds the session, in its own unit of work.
  virtual void Create(const SessionRecord& session) = 0;
  // The session of `id_hash` unless it has expired (expires_at <= now) or was deleted.
  virtual std::optional<SessionRecord> Find(const std::string& id_hash, TimePoint now) = 0;
  // Ends the session; false when there was none.
  virtual bool Delete(const std::string& id_hash) = 0;
  // Removes the sessions expired at `now` (expires_at <= now); how many.
  virtual std::size_t DeleteExpired(TimePoint now) = 0;
};

}  // namespace docgate
