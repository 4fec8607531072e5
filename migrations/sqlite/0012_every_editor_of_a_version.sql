-- Every editor of a kept version (issue 36, item 7): a draft replaced before it was submitted is
-- not kept (0007), so the kept version that replaced it was written by its editor and by the
-- dropped draft's. One row per version anyone wrote, dropped drafts included, never deleted; the
-- editors of a kept version are those of every version after the kept one before it, up to it.
-- The twin of migrations/postgres/0012_every_editor_of_a_version.sql.
CREATE TABLE kh_version_editor (
  document_id INTEGER NOT NULL REFERENCES kh_document (id),
  version     INTEGER NOT NULL,
  editor      TEXT    NOT NULL,
  PRIMARY KEY (document_id, version, editor)
) STRICT, WITHOUT ROWID;

-- What is known of the versions written before: the editor of each kept one, and the newest
-- version each editor wrote (which may have been a dropped draft).
INSERT OR IGNORE INTO kh_version_editor (document_id, version, editor)
SELECT document_id, version, edited_by FROM kh_document_content WHERE edited_by IS NOT NULL;
INSERT OR IGNORE INTO kh_version_editor (document_id, version, editor)
SELECT document_id, last_version, editor FROM kh_document_editor;
