#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "app/ports/clock.h"
#include "app/ports/digest.h"
#include "app/ports/random_source.h"
#include "app/ports/session_store.h"
#include "core/model.h"

namespace docgate {

// A session just opened: the id for the browser's cookie (never stored) and its record.
struct OpenedSession {
  std::string cookie_id;
  SessionRecord record;
};

// The console's sessions (ADR 0013): opened at a sign-in, found by the id in the browser's cookie,
// ended at logout, on every instance at once because the store is the database. An id is 256
// random bits as 64 lowercase hex characters, kept by the store only as its SHA-256. Thread-safe;
// the referenced objects must outlive it.
class ConsoleSessions {
 public:
  ConsoleSessions(SessionStore& store, const Digest& digest, RandomSource& random, Clock& clock,
                  std::chrono::hours ttl);

  // A new session of `actor` for `ttl`, with a CSRF token of its own. Sessions expired by now are
  // removed first (the table does not grow with sessions nobody ends).
  OpenedSession Open(const Actor& actor, std::string id_token);
  // The live session of a cookie's id; nullopt for an id of another shape (without asking the
  // store), an unknown one, an ended or an expired one.
  std::optional<SessionRecord> Find(std::string_view cookie_id);
  // Ends the session of a cookie's id; false when there was none.
  bool End(std::string_view cookie_id);

  // Whether `presented` (a request's X-Docgate-CSRF) is the session's CSRF token, compared in
  // constant time.
  bool CarriesCsrf(const SessionRecord& session, std::string_view presented) const;
  const Digest& digest() const { return digest_; }

  // Whether `cookie_id` has the shape of an id (64 lowercase hex characters): what a request may
  // be let through on before its body is read, the store being asked only then.
  static bool LooksLikeId(std::string_view cookie_id);
  // The caller a session authenticates.
  static Actor ActorOf(const SessionRecord& session);

 private:
  SessionStore& store_;
  const Digest& digest_;
  RandomSource& random_;
  Clock& clock_;
  const std::chrono::hours ttl_;
};

}  // namespace docgate
