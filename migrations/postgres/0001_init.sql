-- docgate schema 1, the PostgreSQL twin of migrations/sqlite/0001_init.sql: the same tables and
-- columns. Times are BIGINT milliseconds since the Unix epoch (UTC), as in SQLite, so both stores
-- hold identical values. Enum columns hold the spellings of core/model.h; the CHECKs keep anything
-- else out. schema_migrations is created by the migration runner before this file runs.

CREATE TABLE kh_document (
  id                BIGSERIAL PRIMARY KEY,
  title             TEXT    NOT NULL,
  status            TEXT    NOT NULL
                    CHECK (status IN ('draft', 'pending_review', 'approved', 'rejected')),
  version           INTEGER NOT NULL,
  author_id         TEXT    NOT NULL,
  current_review_id BIGINT,
  approved_version  INTEGER,
  approved_at       BIGINT,
  ingest_status     TEXT    NOT NULL
                    CHECK (ingest_status IN ('none', 'pending', 'done', 'failed')),
  created_at        BIGINT  NOT NULL,
  updated_at        BIGINT  NOT NULL
);

CREATE INDEX kh_document_by_status ON kh_document (status, id);
CREATE INDEX kh_document_by_author ON kh_document (author_id, id);

-- One row per content version; a version, once written, is never rewritten.
CREATE TABLE kh_document_content (
  document_id BIGINT  NOT NULL REFERENCES kh_document (id),
  version     INTEGER NOT NULL,
  content     TEXT    NOT NULL,
  created_at  BIGINT  NOT NULL,
  PRIMARY KEY (document_id, version)
);

CREATE TABLE kh_document_review (
  id               BIGSERIAL PRIMARY KEY,
  document_id      BIGINT  NOT NULL REFERENCES kh_document (id),
  document_version INTEGER NOT NULL,
  status           TEXT    NOT NULL
                   CHECK (status IN ('pending', 'approved', 'rejected', 'withdrawn')),
  submitted_by     TEXT    NOT NULL,
  submitted_at     BIGINT  NOT NULL,
  decided_by       TEXT,
  decided_at       BIGINT,
  comment          TEXT
);

-- The database's own guarantee behind "already pending": at most one pending review a document.
CREATE UNIQUE INDEX kh_document_review_one_pending ON kh_document_review (document_id)
  WHERE status = 'pending';
CREATE INDEX kh_document_review_by_status ON kh_document_review (status, id);
CREATE INDEX kh_document_review_by_document ON kh_document_review (document_id, id);

-- The transactional outbox; id is the event's sequence. Several docgate instances may drain it:
-- a dispatcher claims rows by setting claimed_by (its instance token) and claimed_until (database
-- clock, epoch millis); a claim that has run out may be taken over by another instance.
CREATE TABLE kh_outbox (
  id            BIGSERIAL PRIMARY KEY,
  event_id      TEXT    NOT NULL UNIQUE,
  event_type    TEXT    NOT NULL
                CHECK (event_type IN ('document.submitted', 'document.approved',
                                      'document.rejected', 'document.withdrawn')),
  document_id   BIGINT  NOT NULL,
  review_id     BIGINT  NOT NULL,
  version       INTEGER NOT NULL,
  actor_id      TEXT    NOT NULL,
  occurred_at   BIGINT  NOT NULL,
  delivered_at  BIGINT,
  claimed_by    TEXT,
  claimed_until BIGINT
);

CREATE INDEX kh_outbox_pending ON kh_outbox (id) WHERE delivered_at IS NULL;
