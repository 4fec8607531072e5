#pragma once

// The SQL of PgDocumentStore: the statements prepared on every connection
// (kStatements) and the list queries run unprepared.

#include <array>

namespace docgate::pg_sql {

// A statement prepared once per connection.
struct Statement {
  const char *name;
  const char *sql;
};

constexpr Statement kSelectDocument{
    "select_document", "SELECT id, title, status, version, author_id, "
                       "current_review_id, approved_version,"
                       " approved_at, ingest_status, created_at, updated_at "
                       "FROM kh_document WHERE id = $1"};
constexpr Statement kLockDocument{
    "lock_document", "SELECT id, title, status, version, author_id, "
                     "current_review_id, approved_version,"
                     " approved_at, ingest_status, created_at, updated_at FROM "
                     "kh_document WHERE id = $1"
                     " FOR UPDATE"};
constexpr Statement kInsertDocument{
    "insert_document",
    "INSERT INTO kh_document (title, status, version, author_id, "
    "current_review_id,"
    " approved_version, approved_at, ingest_status, created_at, updated_at)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id"};
// The mutable columns only: the author and the creation time never change.
constexpr Statement kUpdateDocument{
    "update_document", "UPDATE kh_document SET title = $2, status = $3, "
                       "version = $4, current_review_id = $5,"
                       " approved_version = $6, approved_at = $7, "
                       "ingest_status = $8, updated_at = $9"
                       " WHERE id = $1"};

constexpr Statement kSelectReview{
    "select_review",
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment FROM kh_document_review WHERE id = $1"};
constexpr Statement kLockReview{
    "lock_review",
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment FROM kh_document_review WHERE id = $1 FOR UPDATE"};
constexpr Statement kInsertReview{
    "insert_review", "INSERT INTO kh_document_review (document_id, "
                     "document_version, status, submitted_by,"
                     " submitted_at, decided_by, decided_at, comment)"
                     " VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id"};
// The decision only: what was submitted, by whom and when, never changes.
constexpr Statement kUpdateReview{
    "update_review", "UPDATE kh_document_review SET status = $2, decided_by = "
                     "$3, decided_at = $4, comment = $5"
                     " WHERE id = $1"};
constexpr Statement kSelectDocumentReviews{
    "select_document_reviews", "SELECT id, document_id, document_version, "
                               "status, submitted_by, submitted_at, decided_by,"
                               " decided_at, comment FROM kh_document_review "
                               "WHERE document_id = $1 ORDER BY id DESC"};

constexpr Statement kSelectContent{"select_content",
                                   "SELECT content FROM kh_document_content "
                                   "WHERE document_id = $1 AND version = $2"};
constexpr Statement kInsertContent{
    "insert_content", "INSERT INTO kh_document_content (document_id, version, "
                      "content, edited_by, created_at)"
                      " VALUES ($1, $2, $3, $4, $5)"};
constexpr Statement kSelectEditors{
    "select_editors", "SELECT DISTINCT edited_by FROM kh_document_content"
                      " WHERE document_id = $1 AND version > $2 AND version <= "
                      "$3 ORDER BY edited_by"};





constexpr Statement kSetIngestStatus{
    "set_ingest_status",
    "UPDATE kh_document SET ingest_status = $2 WHERE id = $1"};

constexpr Statement kPing{"ping", "SELECT 1"};

inline constexpr std::array kStatements{
    kSelectDocument,
    kLockDocument,
    kInsertDocument,
    kUpdateDocument,
    kSelectReview,
    kLockReview,
    kInsertReview,
    kUpdateReview,
    kSelectDocumentReviews,
    kSelectContent,
    kInsertContent,
    kSelectEditors,
    kSetIngestStatus,
};

// The list queries filter on optional parameters; run unprepared, each is
// planned with its actual values, so a NULL filter folds away and the matching
// index is used.
constexpr const char *kListDocuments =
    "SELECT id, title, status, version, author_id, current_review_id, "
    "approved_version,"
    " approved_at, ingest_status, created_at, updated_at FROM kh_document"
    " WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR "
    "author_id = $2)"
    "   AND ($3::bigint IS NULL OR id < $3)"
    " ORDER BY id DESC LIMIT $4";
constexpr const char *kListReviews =
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment FROM kh_document_review"
    " WHERE ($1::text IS NULL OR status = $1) AND ($2::bigint IS NULL OR id > "
    "$2)"
    " ORDER BY id LIMIT $3";

} // namespace docgate::pg_sql
