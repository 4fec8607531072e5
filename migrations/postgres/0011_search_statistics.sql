-- docgate's own BM25 (ADR 0012, app/search_ranking.h) needs each chunk's length in terms, the
-- number of term positions of its title and content. docgate writes it with the chunk's terms
-- from now on; the chunks written before get it from their tsvector here (a lexeme's positions
-- are capped at 256, so a very repetitive chunk counts a little short).
ALTER TABLE kh_document_chunk ADD COLUMN search_length integer;

-- A search scores each candidate chunk by its terms, once per phrase of the query. Out of line
-- (TOAST, the default past 2 kB), each reading of a chunk's tsvector is a lookup in the TOAST
-- table: 8 us against under 3 us inline, measured at 100,000 chunks (docs/benchmarks.md). So
-- rows stay whole in their page up to a page's size, and the terms are moved out only when
-- nothing else can be.
ALTER TABLE kh_document_chunk SET (toast_tuple_target = 8160);
ALTER TABLE kh_document_chunk ALTER COLUMN search_terms SET STORAGE MAIN;

-- `|| ''` makes a new value, which the new storage keeps inline (an unchanged one would keep its
-- TOAST pointer).
UPDATE kh_document_chunk
SET search_length = (SELECT coalesce(sum(array_length(t.positions, 1)), 0)
                     FROM unnest(search_terms) AS t),
    search_terms = search_terms || ''::tsvector
WHERE search_terms IS NOT NULL;
