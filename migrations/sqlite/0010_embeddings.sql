-- Embeddings (issue 17, ADR 0010): the vectors of the chunks' texts, computed once per (model,
-- dimensions, text key). The twin of migrations/postgres/0010_embeddings.sql.

-- The SHA-256 (hex) of the chunk's NFC-normalised text, written with the chunk by ingestion.
-- Chunks written before this migration have none until the embedding worker keys them.
ALTER TABLE kh_document_chunk ADD COLUMN text_key TEXT;
CREATE INDEX kh_document_chunk_by_text_key ON kh_document_chunk (text_key);

-- One row per (model, dimensions, text key): a vector (little-endian float32) or the provider's
-- refusal. id grows with every row, so an index can follow the table. orphaned_at (epoch millis,
-- the database's clock) is set when no chunk has the key any more, cleared when one has it again.
CREATE TABLE kh_embedding (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  model       TEXT    NOT NULL,
  dimensions  INTEGER NOT NULL,
  text_key    TEXT    NOT NULL,
  vector      BLOB,
  refusal     TEXT,
  orphaned_at INTEGER,
  UNIQUE (model, dimensions, text_key),
  CHECK ((vector IS NULL) <> (refusal IS NULL))
) STRICT;
CREATE INDEX kh_embedding_orphans ON kh_embedding (orphaned_at) WHERE orphaned_at IS NOT NULL;
CREATE INDEX kh_embedding_by_text_key ON kh_embedding (text_key);

-- Who is embedding a key now: an embedding worker's owner token until expires_at (epoch millis,
-- the worker's clock). Dropped when the vector is stored or the worker gives the key back.
CREATE TABLE kh_embedding_claim (
  model      TEXT    NOT NULL,
  dimensions INTEGER NOT NULL,
  text_key   TEXT    NOT NULL,
  owner      TEXT    NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (model, dimensions, text_key)
) STRICT, WITHOUT ROWID;
