-- Four eyes over every editor (issue 12): who wrote each content version, the author of version 1
-- and the editor of every later one, so that nobody who changed the version under review decides
-- it. Versions written before this migration are credited to the document's author: which
-- editor wrote them was not recorded. The twin of migrations/sqlite/0005_version_editors.sql.
ALTER TABLE kh_document_content ADD COLUMN edited_by TEXT;

UPDATE kh_document_content c
   SET edited_by = d.author_id
  FROM kh_document d
 WHERE d.id = c.document_id;

ALTER TABLE kh_document_content ALTER COLUMN edited_by SET NOT NULL;
