-- Revisions (issue 15, ADR 0008): an approved document can be edited again while its approved
-- version stays published, and each kept version has a history line with its own title. The twin
-- of migrations/sqlite/0007_revisions.sql.
--
-- 1. Every version keeps the title it was written with. Versions written before this migration
--    get the document's current title: earlier titles were not recorded.
ALTER TABLE kh_document_content ADD COLUMN title TEXT;

UPDATE kh_document_content c
   SET title = d.title
  FROM kh_document d
 WHERE d.id = c.document_id;

ALTER TABLE kh_document_content ALTER COLUMN title SET NOT NULL;

-- 2. Who wrote a document up to which version: one row per (document, editor) with the newest
--    version they wrote. Four eyes asks for the editors after the approved version, and this table
--    answers that even for the drafts that are no longer kept (3).
CREATE TABLE kh_document_editor (
  document_id  BIGINT  NOT NULL REFERENCES kh_document (id),
  editor       TEXT    NOT NULL,
  last_version INTEGER NOT NULL,
  PRIMARY KEY (document_id, editor)
);

INSERT INTO kh_document_editor (document_id, editor, last_version)
SELECT document_id, edited_by, MAX(version)
  FROM kh_document_content
 GROUP BY document_id, edited_by;

-- 3. Storage grows with versions, not with edits: a draft replaced before it was submitted is not
--    kept. What is kept: every version a review is bound to (submitted, so also every approved
--    and rejected one) and each document's current version. The reviews of a version are found
--    by this index; then the drafts written before this migration are dropped by the same rule.
CREATE INDEX kh_document_review_by_version
  ON kh_document_review (document_id, document_version, id);

DELETE FROM kh_document_content c
 USING kh_document d
 WHERE d.id = c.document_id
   AND c.version <> d.version
   AND NOT EXISTS (SELECT 1 FROM kh_document_review r
                    WHERE r.document_id = c.document_id AND r.document_version = c.version);
