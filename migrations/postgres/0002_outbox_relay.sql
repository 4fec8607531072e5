-- The outbox relay (RabbitMQ): retries with backoff, per-document order, retention, wake-ups.
--
-- A delivery that did not succeed (unroutable, refused by the broker, a consumer failed) puts the
-- row back with attempts + 1 and next_attempt_at (database clock, epoch millis) in the future.
ALTER TABLE kh_outbox
  ADD COLUMN attempts        INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN next_attempt_at BIGINT  NOT NULL DEFAULT 0,
  ADD COLUMN last_error      TEXT;

-- A document's oldest undelivered event is the only one of that document a relay may claim; this
-- index answers "is there an earlier undelivered event of the same document?".
CREATE INDEX kh_outbox_pending_by_document ON kh_outbox (document_id, id)
  WHERE delivered_at IS NULL;

-- Retention deletes delivered rows oldest first.
CREATE INDEX kh_outbox_delivered ON kh_outbox (delivered_at) WHERE delivered_at IS NOT NULL;

-- Every committed transaction that appended events wakes the relays that LISTEN on
-- docgate_outbox; PostgreSQL folds the notifications of one transaction into one.
CREATE FUNCTION kh_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('docgate_outbox', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER kh_outbox_notify AFTER INSERT ON kh_outbox
  FOR EACH STATEMENT EXECUTE FUNCTION kh_outbox_notify();
