-- docgate's text analyzer stems the words of more scripts (Cyrillic, Greek, Arabic, Armenian,
-- Devanagari, Tamil: ADR 0009). The chunks' terms are cleared here and written again by docgate
-- right after the migrations (PgChunkIndex::AnalyseUnanalysedChunks); until then search misses them.
UPDATE kh_document_chunk SET search_terms = NULL;
