-- Who the callers are (app/ports/user_directory.h): the display name each caller's token carried
-- when last seen, so that the ids stored with documents and reviews can be shown as people. name
-- is NULL when the token named no one. seen_at is epoch millis (the application's clock); a
-- sighting replaces the row unless the row was seen later, so the latest sighting wins whatever
-- order concurrent writes arrive in. The twin of migrations/postgres/0013_users.sql.
CREATE TABLE kh_user (
  id      TEXT    PRIMARY KEY,
  name    TEXT    NULL,
  seen_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
