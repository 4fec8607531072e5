-- Formats (API.md v1.2 "Formats and import"): a document's content is Markdown or plain text, and
-- a chunk knows the heading path it lies under. The twin of migrations/postgres/0017_formats.sql.

-- Documents written before formats existed were written as plain text (their content was shown and
-- chunked as written), so they stay `text`. SQLite cannot change a column's default afterwards:
-- docgate names the format in every insert, so the default serves the rows that exist only.
ALTER TABLE kh_document ADD COLUMN format TEXT NOT NULL DEFAULT 'text'
  CHECK (format IN ('markdown', 'text'));

-- The chunk's heading path ("运维手册 > 数据库 > 备份"), "" for text and before a first heading:
-- what chunks ingested before formats had. Not indexed for full-text search: kh_document_chunk_fts
-- keeps indexing title and content.
ALTER TABLE kh_document_chunk ADD COLUMN section TEXT NOT NULL DEFAULT '';
