-- docgate's text analyzer (issue 16, app/text_analyzer.h) as the full-text index's tokenizer:
-- NFKC_Casefold, ICU word segmentation, bigrams of Han and kana, English Snowball stems. FTS5
-- cannot change a table's tokenizer, so the index is made again with the tokenizer `docgate`
-- (registered on every connection docgate opens) and rebuilt from kh_document_chunk, its external
-- content. The triggers of 0004 name the table and keep working. An sqlite3 shell without the
-- tokenizer can read kh_document_chunk but not query kh_document_chunk_fts.
DROP TABLE kh_document_chunk_fts;

CREATE VIRTUAL TABLE kh_document_chunk_fts USING fts5(
  title, content, content = 'kh_document_chunk', content_rowid = 'id', tokenize = 'docgate');

INSERT INTO kh_document_chunk_fts (kh_document_chunk_fts) VALUES ('rebuild');
