-- The consumers (issue 7): the inbox that gives each consumer's effect once per event, the preview
-- projection, and the chunks of approved versions with their full-text index. The twin of
-- migrations/sqlite/0004_consumers.sql, except for the full-text machinery of each engine.

-- One row per (consumer, event_id) that a consumer has processed ('done'), failed on so far
-- ('failing') or given up on ('parked'; updated_at is then when it was parked). A claim knows only
-- the event_id and writes a 'done' row without the event; a failure writes the event whole, so a
-- parked event can be replayed after the outbox has pruned its row. Concurrent claims of one pair
-- serialise on the primary key.
CREATE TABLE kh_consumer_inbox (
  consumer    TEXT    NOT NULL,
  event_id    TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('failing', 'done', 'parked')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT,
  updated_at  BIGINT  NOT NULL,
  event_type  TEXT
              CHECK (event_type IN ('document.submitted', 'document.approved',
                                    'document.rejected', 'document.withdrawn')),
  document_id BIGINT,
  review_id   BIGINT,
  version     INTEGER,
  actor_id    TEXT,
  occurred_at BIGINT,
  PRIMARY KEY (consumer, event_id),
  CHECK (state = 'done' OR (event_type IS NOT NULL AND document_id IS NOT NULL
                            AND review_id IS NOT NULL AND version IS NOT NULL
                            AND actor_id IS NOT NULL AND occurred_at IS NOT NULL))
);

CREATE INDEX kh_consumer_inbox_parked ON kh_consumer_inbox (updated_at) WHERE state = 'parked';
CREATE INDEX kh_consumer_inbox_by_event ON kh_consumer_inbox (event_id);

-- The last approved rendition of each document; a stale event never overwrites a newer version.
CREATE TABLE kh_document_preview (
  document_id BIGINT  PRIMARY KEY REFERENCES kh_document (id),
  version     INTEGER NOT NULL,
  content     TEXT    NOT NULL,
  approved_at BIGINT  NOT NULL
);

-- The chunks of each document's ingested version, replaced as a whole on every ingestion.
--
-- search_vector is computed by PostgreSQL from title (weight A) and content (weight B), so it can
-- never disagree with them. The configuration is 'english', not 'simple': its stemming is what
-- SQLite's porter tokenizer does ("reviews" finds "review"), so both stores find alike. It also
-- drops English stop words, which SQLite keeps: a query of stop words only ("the") matches nothing
-- here.
CREATE TABLE kh_document_chunk (
  document_id   BIGINT  NOT NULL REFERENCES kh_document (id),
  ordinal       INTEGER NOT NULL,
  version       INTEGER NOT NULL,
  title         TEXT    NOT NULL,
  content       TEXT    NOT NULL,
  search_vector tsvector GENERATED ALWAYS AS (
                  setweight(to_tsvector('english', title), 'A')
                  || setweight(to_tsvector('english', content), 'B')) STORED,
  PRIMARY KEY (document_id, ordinal)
);

CREATE INDEX kh_document_chunk_search ON kh_document_chunk USING GIN (search_vector);

-- The reconciler looks for approved versions whose ingestion is not done, and for their approval
-- events; the outbox's retention looks for the same events to keep them.
CREATE INDEX kh_document_by_ingest_status ON kh_document (ingest_status)
  WHERE approved_version IS NOT NULL;
CREATE INDEX kh_outbox_approvals ON kh_outbox (document_id, version, id)
  WHERE event_type = 'document.approved';
