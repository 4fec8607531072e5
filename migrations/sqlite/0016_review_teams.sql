-- Reviews as teams run them (API.md v1.2 "Review policy", "Comments", "Events"): assigned reviewers,
-- comments on a review, and the events review.assigned, review.voted and review.commented. The twin
-- of migrations/postgres/0016_review_teams.sql.

-- One row per reviewer assigned to a review (StoreTransaction::AddAssignee): who assigned them and
-- when (epoch millis), which orders a review's assignees. The second index finds a reviewer's
-- queue (`assignee=me`).
CREATE TABLE kh_review_assignee (
  review_id   INTEGER NOT NULL REFERENCES kh_document_review (id),
  reviewer_id TEXT    NOT NULL,
  assigned_by TEXT    NOT NULL,
  assigned_at INTEGER NOT NULL,
  PRIMARY KEY (review_id, reviewer_id)
) STRICT;

CREATE INDEX kh_review_assignee_by_reviewer ON kh_review_assignee (reviewer_id, review_id);

-- A comment on a review: on the reviewed version's `line` (1-based) or on the whole (NULL), and a
-- reply to `parent_id` (a comment of the same review; the store checks it) or not. id orders them.
CREATE TABLE kh_review_comment (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  review_id        INTEGER NOT NULL REFERENCES kh_document_review (id),
  document_version INTEGER NOT NULL,
  author_id        TEXT    NOT NULL,
  body             TEXT    NOT NULL,
  line             INTEGER CHECK (line >= 1),
  parent_id        INTEGER REFERENCES kh_review_comment (id),
  created_at       INTEGER NOT NULL
) STRICT;

CREATE INDEX kh_review_comment_by_review ON kh_review_comment (review_id, id);

-- The outbox and the inbox take the new event types and their extra fields: reviewer_id (the
-- assignee of review.assigned, the voter of review.voted) and comment_id (review.commented).
-- SQLite cannot change a CHECK, so each table is built anew with its rows, indexes and (for the
-- outbox) its AUTOINCREMENT counter: an event pruned by retention leaves its sequence number used.
CREATE TABLE kh_outbox_next (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id        TEXT    NOT NULL UNIQUE,
  event_type      TEXT    NOT NULL
                  CHECK (event_type IN ('document.submitted', 'document.approved',
                                        'document.rejected', 'document.withdrawn',
                                        'review.assigned', 'review.voted', 'review.commented')),
  document_id     INTEGER NOT NULL,
  review_id       INTEGER NOT NULL,
  version         INTEGER NOT NULL,
  actor_id        TEXT    NOT NULL,
  occurred_at     INTEGER NOT NULL,
  delivered_at    INTEGER,
  claimed_by      TEXT,
  claimed_until   INTEGER,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  reviewer_id     TEXT,
  comment_id      INTEGER
) STRICT;

INSERT INTO kh_outbox_next (id, event_id, event_type, document_id, review_id, version, actor_id,
                            occurred_at, delivered_at, claimed_by, claimed_until, attempts,
                            next_attempt_at, last_error)
SELECT id, event_id, event_type, document_id, review_id, version, actor_id, occurred_at,
       delivered_at, claimed_by, claimed_until, attempts, next_attempt_at, last_error
  FROM kh_outbox ORDER BY id;

-- The insert above gave kh_outbox_next a counter of its highest id; the old counter may be higher.
INSERT INTO sqlite_sequence (name, seq)
SELECT 'kh_outbox_next', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'kh_outbox_next');
UPDATE sqlite_sequence
   SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'kh_outbox'), 0))
 WHERE name = 'kh_outbox_next';

DROP TABLE kh_outbox;
ALTER TABLE kh_outbox_next RENAME TO kh_outbox;

CREATE INDEX kh_outbox_pending ON kh_outbox (id) WHERE delivered_at IS NULL;
CREATE INDEX kh_outbox_pending_by_document ON kh_outbox (document_id, id)
  WHERE delivered_at IS NULL;
CREATE INDEX kh_outbox_delivered ON kh_outbox (delivered_at) WHERE delivered_at IS NOT NULL;
CREATE INDEX kh_outbox_approvals ON kh_outbox (document_id, version, id)
  WHERE event_type = 'document.approved';

CREATE TABLE kh_consumer_inbox_next (
  consumer    TEXT    NOT NULL,
  event_id    TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('failing', 'done', 'parked')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT,
  updated_at  INTEGER NOT NULL,
  event_type  TEXT
              CHECK (event_type IN ('document.submitted', 'document.approved',
                                    'document.rejected', 'document.withdrawn',
                                    'review.assigned', 'review.voted', 'review.commented')),
  document_id INTEGER,
  review_id   INTEGER,
  version     INTEGER,
  actor_id    TEXT,
  occurred_at INTEGER,
  reviewer_id TEXT,
  comment_id  INTEGER,
  PRIMARY KEY (consumer, event_id),
  CHECK (state = 'done' OR (event_type IS NOT NULL AND document_id IS NOT NULL
                            AND review_id IS NOT NULL AND version IS NOT NULL
                            AND actor_id IS NOT NULL AND occurred_at IS NOT NULL))
) STRICT;

INSERT INTO kh_consumer_inbox_next (consumer, event_id, state, attempts, last_error, updated_at,
                                    event_type, document_id, review_id, version, actor_id,
                                    occurred_at)
SELECT consumer, event_id, state, attempts, last_error, updated_at, event_type, document_id,
       review_id, version, actor_id, occurred_at
  FROM kh_consumer_inbox;

DROP TABLE kh_consumer_inbox;
ALTER TABLE kh_consumer_inbox_next RENAME TO kh_consumer_inbox;

CREATE INDEX kh_consumer_inbox_parked ON kh_consumer_inbox (updated_at) WHERE state = 'parked';
CREATE INDEX kh_consumer_inbox_by_event ON kh_consumer_inbox (event_id);
CREATE INDEX kh_consumer_inbox_done ON kh_consumer_inbox (updated_at) WHERE state = 'done';
