-- Term statistics for docgate's own BM25 (ADR 0012, app/search_ranking.h): how many chunks hold
-- each term, read from the full-text index itself (one row per term; `doc` is the number of rows
-- holding it). Nothing is stored twice and ingestion writes nothing more.
CREATE VIRTUAL TABLE kh_document_chunk_terms USING fts5vocab(kh_document_chunk_fts, 'row');
