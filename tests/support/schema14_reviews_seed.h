#pragma once

// Rows a database of schema 14 (before migration 0015, review quorums) may hold, the same SQL for
// SQLite and PostgreSQL: documents 1..3; review 1 of document 1 approved by 张三 with a comment,
// review 2 of document 2 rejected by bob, review 3 of document 2 pending, review 4 of document 3
// approved by bob without a comment. After 0015, every review needs one approval; reviews 1 and 4
// hold one each, their decision's, and the others none.

namespace docgate {

inline constexpr char kSchema14ReviewsSeed[] =
    "INSERT INTO kh_document (id, title, status, version, author_id, approved_version,"
    " ingest_status, created_at, updated_at)"
    " VALUES (1, 'a', 'approved', 1, 'alice', 1, 'done', 0, 0),"
    "        (2, 'b', 'pending_review', 2, 'alice', NULL, 'none', 0, 0),"
    "        (3, 'c', 'approved', 1, 'alice', 1, 'done', 0, 0);"
    "INSERT INTO kh_document_review (id, document_id, document_version, status, submitted_by,"
    " submitted_at, decided_by, decided_at, comment)"
    " VALUES (1, 1, 1, 'approved', 'alice', 100, '\u5f20\u4e09', 1798000000123,"
    "         '\u540c\u610f'),"
    "        (2, 2, 1, 'rejected', 'alice', 100, 'bob', 200, 'no'),"
    "        (3, 2, 2, 'pending', 'alice', 300, NULL, NULL, NULL),"
    "        (4, 3, 1, 'approved', 'alice', 100, 'bob', 400, NULL);";

}  // namespace docgate
