-- Console sessions (app/ports/session_store.h, ADR 0013): one row per session opened by signing in
-- through the OpenID provider, shared by every instance, so that a logout on one ends the session
-- on all. id_hash is the lowercase hex SHA-256 of the cookie's random id, never the id itself, so
-- a copy of the table signs no one in. user_name is NULL when the ID token named no one; roles are
-- the docgate roles, space-separated in their order ('' for none); id_token is the provider's ID
-- token for its end-session id_token_hint ('' when there is none). created_at and expires_at are
-- epoch millis (the application's clock); a session is gone once expires_at <= now. The twin of
-- migrations/sqlite/0014_sessions.sql.
CREATE TABLE kh_session (
  id_hash    TEXT   PRIMARY KEY,
  user_id    TEXT   NOT NULL,
  user_name  TEXT   NULL,
  roles      TEXT   NOT NULL,
  csrf_token TEXT   NOT NULL,
  id_token   TEXT   NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

-- Expired sessions are deleted by their expiry time.
CREATE INDEX kh_session_expires ON kh_session (expires_at);
