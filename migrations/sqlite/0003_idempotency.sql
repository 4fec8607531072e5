-- Idempotency-Key (API.md "Idempotency"): one row per (caller, key). While the first request runs
-- the row is in flight (response NULL, expires_at = the end of its lease, so that the key frees
-- itself when the process dies mid-request); once it has answered, response holds the stored
-- response and expires_at = created_at + the TTL. owner is the random token of the reservation, so
-- a request whose lease ran out cannot complete or release a row another request took over. Times
-- are epoch millis (the application's clock). Completion runs in the effect's own transaction.
CREATE TABLE kh_idempotency (
  caller      TEXT    NOT NULL,
  idem_key    TEXT    NOT NULL,
  fingerprint TEXT    NOT NULL,
  owner       TEXT    NOT NULL,
  response    TEXT,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  PRIMARY KEY (caller, idem_key)
) STRICT;

-- Pruning deletes expired rows in bounded batches.
CREATE INDEX kh_idempotency_expires ON kh_idempotency (expires_at);
