-- Four eyes over every editor (issue 12): who wrote each content version, the author of version 1
-- and the editor of every later one, so that nobody who changed the version under review decides
-- it. Versions written before this migration are credited to the document's author: which
-- editor wrote them was not recorded.
ALTER TABLE kh_document_content ADD COLUMN edited_by TEXT;

UPDATE kh_document_content
   SET edited_by = (SELECT author_id FROM kh_document WHERE kh_document.id = document_id);
