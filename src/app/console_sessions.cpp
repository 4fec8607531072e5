#include "app/console_sessions.h"

#include <utility>

namespace docgate {

ConsoleSessions::ConsoleSessions(SessionStore& store, const Digest& digest, RandomSource& random,
                                 Clock& clock, std::chrono::hours ttl)
    : store_(store), digest_(digest), random_(random), clock_(clock), ttl_(ttl) {}

OpenedSession ConsoleSessions::Open(const Actor& actor, std::string id_token) {
  const TimePoint now = clock_.Now();
  store_.DeleteExpired(now);
  OpenedSession opened;
  opened.cookie_id = random_.Token128() + random_.Token128();
  SessionRecord& record = opened.record;
  record.id_hash = digest_.Sha256Hex(opened.cookie_id);
  record.user_id = actor.id;
  if (!actor.name.empty()) record.user_name = actor.name;
  if (actor.is_author) record.roles.emplace_back("author");
  if (actor.is_reviewer) record.roles.emplace_back("reviewer");
  if (actor.is_admin) record.roles.emplace_back("admin");
  record.csrf_token = random_.Token128();
  record.id_token = std::move(id_token);
  record.created_at = now;
  record.expires_at = now + ttl_;
  store_.Create(record);
  return opened;
}

std::optional<SessionRecord> ConsoleSessions::Find(std::string_view cookie_id) {
  if (!LooksLikeId(cookie_id)) return std::nullopt;
  return store_.Find(digest_.Sha256Hex(cookie_id), clock_.Now());
}

bool ConsoleSessions::End(std::string_view cookie_id) {
  if (!LooksLikeId(cookie_id)) return false;
  return store_.Delete(digest_.Sha256Hex(cookie_id));
}

bool ConsoleSessions::CarriesCsrf(const SessionRecord& session, std::string_view presented) const {
  return !session.csrf_token.empty() && digest_.SameSecret(presented, session.csrf_token);
}

bool ConsoleSessions::LooksLikeId(std::string_view cookie_id) {
  if (cookie_id.size() != 64) return false;
  for (const char c : cookie_id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Actor ConsoleSessions::ActorOf(const SessionRecord& session) {
  Actor actor;
  actor.id = session.user_id;
  actor.name = session.user_name.value_or("");
  for (const std::string& role : session.roles) {
    if (role == "author") actor.is_author = true;
    if (role == "reviewer") actor.is_reviewer = true;
    if (role == "admin") actor.is_admin = true;
  }
  return actor;
}

}  // namespace docgate
