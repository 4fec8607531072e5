-- docgate's own BM25 (ADR 0012, app/search_ranking.h) needs each chunk's length in terms, the
-- number of term positions of its title and content. docgate writes it with the chunk's terms
-- from now on; the chunks written before get it from their tsvector here (a lexeme's positions
-- are capped at 256, so a very repetitive chunk counts a little short).
ALTER TABLE kh_document_chunk ADD COLUMN search_length integer;

UPDATE kh_document_chunk
SET search_length = (SELECT coalesce(sum(array_length(t.positions, 1)), 0)
                     FROM unnest(search_terms) AS t)
WHERE search_terms IS NOT NULL;
