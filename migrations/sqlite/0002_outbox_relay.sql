-- The outbox relay (RabbitMQ): claims, retries with backoff, per-document order, retention.
--
-- A relay claims rows by setting claimed_by (its instance token) and claimed_until (epoch millis);
-- an expired claim may be taken over. A delivery that did not succeed puts the row back with
-- attempts + 1 and next_attempt_at (epoch millis) in the future.
ALTER TABLE kh_outbox ADD COLUMN claimed_by TEXT;
ALTER TABLE kh_outbox ADD COLUMN claimed_until INTEGER;
ALTER TABLE kh_outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE kh_outbox ADD COLUMN next_attempt_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE kh_outbox ADD COLUMN last_error TEXT;

-- A document's oldest undelivered event is the only one of that document a relay may claim.
CREATE INDEX kh_outbox_pending_by_document ON kh_outbox (document_id, id)
  WHERE delivered_at IS NULL;

-- Retention deletes delivered rows oldest first.
CREATE INDEX kh_outbox_delivered ON kh_outbox (delivered_at) WHERE delivered_at IS NOT NULL;
