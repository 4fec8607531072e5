-- docgate schema 1. Times are INTEGER milliseconds since the Unix epoch (UTC). Enum columns hold
-- the spellings of core/model.h; the CHECKs keep anything else out.

CREATE TABLE kh_document (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  title             TEXT    NOT NULL,
  status            TEXT    NOT NULL
                    CHECK (status IN ('draft', 'pending_review', 'approved', 'rejected')),
  version           INTEGER NOT NULL,
  author_id         TEXT    NOT NULL,
  current_review_id INTEGER,
  approved_version  INTEGER,
  approved_at       INTEGER,
  ingest_status     TEXT    NOT NULL
                    CHECK (ingest_status IN ('none', 'pending', 'done', 'failed')),
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
) STRICT;

CREATE INDEX kh_document_by_status ON kh_document (status, id);
CREATE INDEX kh_document_by_author ON kh_document (author_id, id);

-- One row per content version; a version, once written, is never rewritten.
CREATE TABLE kh_document_content (
  document_id INTEGER NOT NULL REFERENCES kh_document (id),
  version     INTEGER NOT NULL,
  content     TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (document_id, version)
) STRICT;

CREATE TABLE kh_document_review (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  document_id      INTEGER NOT NULL REFERENCES kh_document (id),
  document_version INTEGER NOT NULL,
  status           TEXT    NOT NULL
                   CHECK (status IN ('pending', 'approved', 'rejected', 'withdrawn')),
  submitted_by     TEXT    NOT NULL,
  submitted_at     INTEGER NOT NULL,
  decided_by       TEXT,
  decided_at       INTEGER,
  comment          TEXT
) STRICT;

-- The database's own guarantee behind "already pending": at most one pending review a document.
CREATE UNIQUE INDEX kh_document_review_one_pending ON kh_document_review (document_id)
  WHERE status = 'pending';
CREATE INDEX kh_document_review_by_status ON kh_document_review (status, id);
CREATE INDEX kh_document_review_by_document ON kh_document_review (document_id, id);

-- The transactional outbox; id is the event's sequence, i.e. commit order (writers are serial).
CREATE TABLE kh_outbox (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id     TEXT    NOT NULL UNIQUE,
  event_type   TEXT    NOT NULL
               CHECK (event_type IN ('document.submitted', 'document.approved',
                                     'document.rejected', 'document.withdrawn')),
  document_id  INTEGER NOT NULL,
  review_id    INTEGER NOT NULL,
  version      INTEGER NOT NULL,
  actor_id     TEXT    NOT NULL,
  occurred_at  INTEGER NOT NULL,
  delivered_at INTEGER
) STRICT;

CREATE INDEX kh_outbox_pending ON kh_outbox (id) WHERE delivered_at IS NULL;
