#pragma once

// Rows a database of schema 6 (before migration 0007, ADR 0008) may hold, the same SQL for SQLite
// and PostgreSQL: document 1 at version 4 with version 2 approved; versions 1..4 written by alice,
// 张三, carol and alice; only version 2 has a review. After 0007, versions 2 and 4 are kept, and
// the editors' newest versions are alice 4, carol 3, 张三 2.

namespace docgate {

inline constexpr char kSchema6VersionsSeed[] =
    "INSERT INTO kh_document (id, title, status, version, author_id, approved_version,"
    " ingest_status, created_at, updated_at)"
    " VALUES (1, '\u5165\u804c\u6307\u5357', 'draft', 4, 'alice', 2, 'done', 0, 0);"
    "INSERT INTO kh_document_content (document_id, version, content, created_at, edited_by)"
    " VALUES (1, 1, 'v1', 0, 'alice'), (1, 2, 'v2', 0, '\u5f20\u4e09'),"
    "        (1, 3, 'v3', 0, 'carol'), (1, 4, 'v4', 0, 'alice');"
    "INSERT INTO kh_document_review (document_id, document_version, status, submitted_by,"
    " submitted_at) VALUES (1, 2, 'approved', 'alice', 0);";

// The seed's document title (入职指南), which 0007 gives every kept version.
inline constexpr char kSchema6SeedTitle[] = "\u5165\u804c\u6307\u5357";

}  // namespace docgate
