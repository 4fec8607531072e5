-- Formats (API.md v1.2 "Formats and import"): a document's content is Markdown or plain text, and
-- a chunk knows the heading path it lies under. The twin of migrations/sqlite/0017_formats.sql.

-- Documents written before formats existed were written as plain text (their content was shown and
-- chunked as written), so they stay `text`; new documents are `markdown` unless they say otherwise.
-- A constant default makes the new column a change of the catalogue only: no row is rewritten.
ALTER TABLE kh_document ADD COLUMN format TEXT NOT NULL DEFAULT 'text'
  CHECK (format IN ('markdown', 'text'));
ALTER TABLE kh_document ALTER COLUMN format SET DEFAULT 'markdown';

-- The chunk's heading path ("运维手册 > 数据库 > 备份"), "" for text and before a first heading:
-- what chunks ingested before formats had.
ALTER TABLE kh_document_chunk ADD COLUMN section TEXT NOT NULL DEFAULT '';
