-- The consumers (issue 7): the inbox that gives each consumer's effect once per event, the preview
-- projection, and the chunks of approved versions with their full-text index. The twin of
-- migrations/postgres/0004_consumers.sql, except for the full-text machinery of each engine.

-- One row per (consumer, event_id) that a consumer has processed ('done'), failed on so far
-- ('failing') or given up on ('parked'; updated_at is then when it was parked). A claim knows only
-- the event_id and writes a 'done' row without the event; a failure writes the event whole, so a
-- parked event can be replayed after the outbox has pruned its row.
CREATE TABLE kh_consumer_inbox (
  consumer    TEXT    NOT NULL,
  event_id    TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('failing', 'done', 'parked')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT,
  updated_at  INTEGER NOT NULL,
  event_type  TEXT
              CHECK (event_type IN ('document.submitted', 'document.approved',
                                    'document.rejected', 'document.withdrawn')),
  document_id INTEGER,
  review_id   INTEGER,
  version     INTEGER,
  actor_id    TEXT,
  occurred_at INTEGER,
  PRIMARY KEY (consumer, event_id),
  CHECK (state = 'done' OR (event_type IS NOT NULL AND document_id IS NOT NULL
                            AND review_id IS NOT NULL AND version IS NOT NULL
                            AND actor_id IS NOT NULL AND occurred_at IS NOT NULL))
) STRICT;

CREATE INDEX kh_consumer_inbox_parked ON kh_consumer_inbox (updated_at) WHERE state = 'parked';
CREATE INDEX kh_consumer_inbox_by_event ON kh_consumer_inbox (event_id);

-- The last approved rendition of each document; a stale event never overwrites a newer version.
CREATE TABLE kh_document_preview (
  document_id INTEGER PRIMARY KEY REFERENCES kh_document (id),
  version     INTEGER NOT NULL,
  content     TEXT    NOT NULL,
  approved_at INTEGER NOT NULL
) STRICT;

-- The chunks of each document's ingested version, replaced as a whole on every ingestion. id is
-- the full-text index's rowid, declared so that VACUUM cannot renumber it.
CREATE TABLE kh_document_chunk (
  id          INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES kh_document (id),
  ordinal     INTEGER NOT NULL,
  version     INTEGER NOT NULL,
  title       TEXT    NOT NULL,
  content     TEXT    NOT NULL,
  UNIQUE (document_id, ordinal)
) STRICT;

-- FTS5 over the chunks' title and content, as an external-content table: the text lives once, in
-- kh_document_chunk, and the triggers below keep the index in step with every insert, update and
-- delete (a delete must hand FTS5 the old values, which the triggers do). Porter stemming on
-- unicode61 words, diacritics kept, so that it finds what PostgreSQL's 'english' configuration
-- finds ("reviews" finds "review").
CREATE VIRTUAL TABLE kh_document_chunk_fts USING fts5(
  title, content, content = 'kh_document_chunk', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 0');

CREATE TRIGGER kh_document_chunk_fts_insert AFTER INSERT ON kh_document_chunk BEGIN
  INSERT INTO kh_document_chunk_fts (rowid, title, content)
    VALUES (new.id, new.title, new.content);
END;

CREATE TRIGGER kh_document_chunk_fts_delete AFTER DELETE ON kh_document_chunk BEGIN
  INSERT INTO kh_document_chunk_fts (kh_document_chunk_fts, rowid, title, content)
    VALUES ('delete', old.id, old.title, old.content);
END;

CREATE TRIGGER kh_document_chunk_fts_update AFTER UPDATE ON kh_document_chunk BEGIN
  INSERT INTO kh_document_chunk_fts (kh_document_chunk_fts, rowid, title, content)
    VALUES ('delete', old.id, old.title, old.content);
  INSERT INTO kh_document_chunk_fts (rowid, title, content)
    VALUES (new.id, new.title, new.content);
END;

-- The reconciler looks for approved versions whose ingestion is not done, and for their approval
-- events; the outbox's retention looks for the same events to keep them.
CREATE INDEX kh_document_by_ingest_status ON kh_document (ingest_status)
  WHERE approved_version IS NOT NULL;
CREATE INDEX kh_outbox_approvals ON kh_outbox (document_id, version, id)
  WHERE event_type = 'document.approved';
