-- docgate's text analyzer (issue 16, app/text_analyzer.h) in place of the 'english' configuration:
-- NFKC_Casefold, ICU word segmentation, bigrams (and single characters) of Han and kana, English
-- Snowball stems. PostgreSQL cannot run the analyzer, so docgate writes each chunk's terms as a
-- tsvector (adapters/pg/pg_text_search.h) and its queries as tsqueries of the same terms.
--
-- Dropping the generated column drops its GIN index. The chunks already written get their terms
-- from docgate right after this migration (PgChunkIndex::AnalyseUnanalysedChunks, run by every
-- `docgate migrate` and every start), found through the partial index below, which is empty
-- afterwards. Until then they are not found by search.
ALTER TABLE kh_document_chunk DROP COLUMN search_vector;
ALTER TABLE kh_document_chunk ADD COLUMN search_terms tsvector;

CREATE INDEX kh_document_chunk_search ON kh_document_chunk USING GIN (search_terms);
CREATE INDEX kh_document_chunk_unanalysed ON kh_document_chunk (document_id, ordinal)
  WHERE search_terms IS NULL;
