-- Webhooks (API.md v1.2 "Webhooks", ADR 0017): the subscriptions admins register, and one delivery
-- per (event, webhook). The twin of migrations/postgres/0018_webhooks.sql.

-- events: the routing keys the webhook takes, space-separated, or "*" for all. sealed_secret: the
-- signing secret as SecretSealer::Seal wrote it (AES-256-GCM), NULL for none. A deleted webhook
-- keeps its row (deleted_at) so that its delivery log stays readable.
CREATE TABLE kh_webhook (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  url           TEXT    NOT NULL,
  events        TEXT    NOT NULL,
  format        TEXT    NOT NULL CHECK (format IN ('generic', 'wecom', 'dingtalk', 'feishu')),
  sealed_secret TEXT,
  description   TEXT,
  created_by    TEXT    NOT NULL,
  created_at    INTEGER NOT NULL,
  deleted_at    INTEGER
) STRICT;

-- payload: the event's JSON as the outbox wrote it, kept with the delivery so that retries for 24 h
-- do not depend on the outbox's retention. Times are epoch millis. claimed_by / claimed_until: the
-- instance sending it now and until when (ADR 0005's short renewed claims). One delivery per
-- (webhook, event): the UNIQUE makes enqueueing an event again add nothing.
CREATE TABLE kh_webhook_delivery (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id      INTEGER NOT NULL REFERENCES kh_webhook (id),
  event_id        TEXT    NOT NULL,
  event_type      TEXT    NOT NULL,
  payload         TEXT    NOT NULL,
  status          TEXT    NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_status     INTEGER,
  last_error      TEXT,
  next_attempt_at INTEGER NOT NULL,
  delivered_at    INTEGER,
  claimed_by      TEXT,
  claimed_until   INTEGER,
  created_at      INTEGER NOT NULL,
  UNIQUE (webhook_id, event_id)
) STRICT;

CREATE INDEX kh_webhook_delivery_due ON kh_webhook_delivery (next_attempt_at)
  WHERE status = 'pending';
CREATE INDEX kh_webhook_delivery_log ON kh_webhook_delivery (webhook_id, id);
