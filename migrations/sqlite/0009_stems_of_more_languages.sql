-- docgate's text analyzer stems the words of more scripts (Cyrillic, Greek, Arabic, Armenian,
-- Devanagari, Tamil: ADR 0009), so the index is rebuilt from kh_document_chunk with it.
INSERT INTO kh_document_chunk_fts (kh_document_chunk_fts) VALUES ('rebuild');
