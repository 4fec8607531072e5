#pragma once

// The SQL of PgDocumentStore and of its transaction (pg_store_transaction.cpp): the documents' and
// reviews' statements, prepared on every connection, the list queries run unprepared, and the rows
// they read. Internal to adapters/pg.

#include <array>
#include <optional>
#include <pqxx/pqxx>
#include <string>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_statements.h"
#include "adapters/sql/shared_statements.h"
#include "adapters/sql/sql_join.h"
#include "app/ports/document_store.h"
#include "core/model.h"

namespace docgate::pg_document_sql {

using pg_sql::Statement;
using namespace pg;  // parameters and rows (pg_rows.h)

// The documents' and reviews' SQL: statements prepared on every connection, and the list queries
// run unprepared.
inline constexpr Statement kSelectDocument{
    "select_document",
    "SELECT id, title, status, version, author_id, "
    "current_review_id, approved_version,"
    " approved_at, ingest_status, created_at, updated_at, format"
    " FROM kh_document WHERE id = $1"};
inline constexpr Statement kLockDocument{
    "lock_document",
    "SELECT id, title, status, version, author_id, "
    "current_review_id, approved_version,"
    " approved_at, ingest_status, created_at, updated_at, format"
    " FROM kh_document WHERE id = $1"
    " FOR UPDATE"};
// The consumers' one read of the approvals they work from. For the preview, a batch: $1 document
// ids, $2 versions; each document found, with that version's content (NULL when it has none) and
// its position in $1 (from 1) last.
inline constexpr Statement kSelectDocumentsWithContent{
    "select_documents_with_content",
    "SELECT d.id, d.title, d.status, d.version, d.author_id, d.current_review_id,"
    " d.approved_version, d.approved_at, d.ingest_status, d.created_at, d.updated_at, d.format,"
    " c.content, w.n FROM unnest($1::bigint[], $2::integer[]) WITH ORDINALITY AS w (id, version, n)"
    " JOIN kh_document d ON d.id = w.id"
    " LEFT JOIN kh_document_content c ON c.document_id = w.id AND c.version = w.version"};
// For ingestion: the document $1 locked, with the content of version $2 (NULL when it has none).
inline constexpr Statement kLockDocumentWithContent{
    "lock_document_with_content",
    "SELECT d.id, d.title, d.status, d.version, d.author_id, d.current_review_id,"
    " d.approved_version, d.approved_at, d.ingest_status, d.created_at, d.updated_at, d.format,"
    " c.content FROM kh_document d LEFT JOIN kh_document_content c ON c.document_id = d.id"
    " AND c.version = $2 WHERE d.id = $1 FOR UPDATE OF d"};
inline constexpr Statement kInsertDocument{"insert_document", sql::kInsertDocument};
// The mutable columns only: the author and the creation time never change.
inline constexpr Statement kUpdateDocument{"update_document",
                                           "UPDATE kh_document SET title = $2, status = $3, "
                                           "version = $4, current_review_id = $5,"
                                           " approved_version = $6, approved_at = $7, "
                                           "ingest_status = $8, updated_at = $9, format = $10"
                                           " WHERE id = $1"};

// A review's columns as ToReview reads them, its approvals and assignees included, each as one
// JSON array (NULL: none) read in the same statement as the review: a review costs one round trip
// whatever it holds, and is read as one snapshot. Order: approvals as they were given, assignees as
// they were assigned; ties by reviewer id in byte order, whatever the database's collation, as on
// SQLite (BINARY). kh_lock_review (migration 0016) selects the same.
inline constexpr char kReviewColumns[] =
    "SELECT r.id, r.document_id, r.document_version, r.status, r.submitted_by, r.submitted_at,"
    " r.decided_by, r.decided_at, r.comment, r.required_approvals,"
    " (SELECT json_agg(json_build_array(a.reviewer_id, a.comment, a.decided_at)"
    "                  ORDER BY a.decided_at, a.reviewer_id COLLATE \"C\")"
    "    FROM kh_review_approval a WHERE a.review_id = r.id),"
    " (SELECT json_agg(s.reviewer_id ORDER BY s.assigned_at, s.reviewer_id COLLATE \"C\")"
    "    FROM kh_review_assignee s WHERE s.review_id = r.id)";
inline constexpr auto kSelectReviewText =
    sql::Join(kReviewColumns, " FROM kh_document_review r WHERE r.id = $1");
inline constexpr Statement kSelectReview{"select_review", kSelectReviewText.c_str()};
// Locks the review, then reads it as kReviewColumns do, in one round trip: a function of migration
// 0016, whose read after the lock has a snapshot of its own (one statement locking and reading
// would read the approvals of the snapshot taken before its wait, missing the vote it waited for).
inline constexpr Statement kLockReview{"lock_review", "SELECT * FROM kh_lock_review($1)"};
inline constexpr Statement kInsertReview{"insert_review", sql::kInsertReview};
inline constexpr Statement kInsertApproval{"insert_approval", sql::kInsertApproval};
inline constexpr Statement kInsertAssignee{"insert_assignee", sql::kInsertAssignee};
inline constexpr Statement kDeleteAssignee{"delete_assignee", sql::kDeleteAssignee};
inline constexpr Statement kInsertComment{"insert_comment", sql::kInsertComment};
inline constexpr Statement kSelectComment{"select_comment", sql::kSelectComment};
inline constexpr Statement kListComments{"list_comments", sql::kListComments};
// The decision only: what was submitted, by whom and when, never changes.
inline constexpr char kUpdateReviewText[] =
    "UPDATE kh_document_review SET status = $2, decided_by = $3, decided_at = $4, comment = $5"
    " WHERE id = $1";
inline constexpr Statement kUpdateReview{"update_review", kUpdateReviewText};
// The approval that decides review $1 ($6 reviewer, $7 comment, $8 when), inserted by the
// statement that writes the decision: one round trip for both (PgTransaction sends an approval
// with the statement after it). PostgreSQL runs a data-modifying WITH once, to completion, whether
// or not the UPDATE reads it.
inline constexpr auto kUpdateReviewWithApprovalText = sql::Join(
    "WITH vote AS (INSERT INTO kh_review_approval (review_id, reviewer_id, comment, decided_at)"
    " VALUES ($1, $6, $7, $8)) ",
    kUpdateReviewText);
inline constexpr Statement kUpdateReviewWithApproval{"update_review_with_approval",
                                                     kUpdateReviewWithApprovalText.c_str()};
// The reviews of document $1 below id $2 (the exclusive cursor), newest first, at most $3.
inline constexpr auto kSelectDocumentReviewsText =
    sql::Join(kReviewColumns,
              " FROM kh_document_review r WHERE r.document_id = $1 AND r.id < $2"
              " ORDER BY r.id DESC LIMIT $3");
inline constexpr Statement kSelectDocumentReviews{"select_document_reviews",
                                                  kSelectDocumentReviewsText.c_str()};

inline constexpr Statement kSelectContent{"select_content", sql::kSelectContent};
inline constexpr Statement kSelectDocumentWithContent{"select_document_with_content",
                                                      sql::kSelectDocumentWithContent};
inline constexpr Statement kInsertVersion{"insert_version", sql::kInsertVersion};
// An editor's newest version: versions only grow, so GREATEST keeps an upsert of an older one
// from moving it back.
inline constexpr Statement kRecordEditor{
    "record_editor",
    "INSERT INTO kh_document_editor (document_id, editor, "
    "last_version) VALUES ($1, $2, $3)"
    " ON CONFLICT (document_id, editor) DO UPDATE SET last_version"
    " = GREATEST(kh_document_editor.last_version, "
    "EXCLUDED.last_version)"};
inline constexpr Statement kInsertVersionEditor{"insert_version_editor", sql::kInsertVersionEditor};
inline constexpr Statement kDropUnsubmittedVersion{
    "drop_unsubmitted_version",
    "DELETE FROM kh_document_content c WHERE c.document_id = $1 AND c.version = $2"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_review r"
    "                  WHERE r.document_id = $1 AND r.document_version = $2)"};
inline constexpr Statement kSelectEditors{"select_editors", sql::kSelectEditors};
inline constexpr Statement kSelectVersion{"select_version", sql::kSelectVersion};
// Each kept version with its newest review (kh_document_review_by_version finds it).
inline constexpr Statement kListVersions{"list_versions", sql::kListVersions};
inline constexpr Statement kListVersionEditors{"list_version_editors", sql::kListVersionEditors};

inline constexpr Statement kSetIngestStatus{"set_ingest_status", sql::kSetIngestStatus};

inline constexpr std::array kDocumentStatements{
    kSelectDocument,
    kLockDocument,
    kSelectDocumentsWithContent,
    kLockDocumentWithContent,
    kInsertDocument,
    kUpdateDocument,
    kSelectReview,
    kLockReview,
    kInsertReview,
    kInsertApproval,
    kInsertAssignee,
    kDeleteAssignee,
    kInsertComment,
    kSelectComment,
    kListComments,
    kUpdateReview,
    kUpdateReviewWithApproval,
    kSelectDocumentReviews,
    kSelectContent,
    kSelectDocumentWithContent,
    kInsertVersion,
    kRecordEditor,
    kInsertVersionEditor,
    kDropUnsubmittedVersion,
    kSelectEditors,
    kSelectVersion,
    kListVersions,
    kListVersionEditors,
    kSetIngestStatus,
};

inline DocumentVersion ToVersion(const pqxx::row& row) {
  return DocumentVersion{row[0].as<DocumentId>(),  row[1].as<std::int32_t>(),
                         row[2].as<std::string>(), row[3].as<std::string>(),
                         row[4].as<std::string>(), FromMillis(row[5].as<std::int64_t>())};
}

inline VersionSummary ToVersionSummary(const pqxx::row& row) {
  VersionSummary summary{row[0].as<std::int32_t>(),
                         row[1].as<std::string>(),
                         row[2].as<std::string>(),
                         FromMillis(row[3].as<std::int64_t>()),
                         Nullable<ReviewId>(row[4]),
                         std::nullopt,
                         {}};
  if (!row[5].is_null()) {
    summary.review_status = Enum<ReviewStatus>(row[5], ParseReviewStatus, "review status");
  }
  return summary;
}

// The list queries filter on optional parameters; run unprepared, each is
// planned with its actual values, so a NULL filter folds away and the matching
// index is used.
inline constexpr const char* kListDocuments =
    "SELECT id, title, status, version, author_id, current_review_id, "
    "approved_version,"
    " approved_at, ingest_status, created_at, updated_at, format FROM kh_document"
    " WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR "
    "author_id = $2)"
    "   AND ($3::bigint IS NULL OR id < $3)"
    " ORDER BY id DESC LIMIT $4";
// Each review with its document's title last (ToQueuedReview).
inline constexpr auto kListReviewsText = sql::Join(
    kReviewColumns,
    ", d.title FROM kh_document_review r JOIN kh_document d ON d.id = r.document_id"
    " WHERE ($1::text IS NULL OR r.status = $1) AND ($2::bigint IS NULL OR r.id > $2)"
    "   AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM kh_review_assignee x"
    "                                    WHERE x.review_id = r.id AND x.reviewer_id = $4))"
    " ORDER BY r.id LIMIT $3");
inline constexpr const char* kListReviews = kListReviewsText.c_str();

inline QueuedReview ToQueuedReview(const pqxx::row& row) {
  return QueuedReview{ToReview(row), row[kReviewColumnCount].as<std::string>()};
}

inline ReviewComment ToComment(const pqxx::row& row) {
  return ReviewComment{row[0].as<std::int64_t>(),      row[1].as<ReviewId>(),
                       row[2].as<std::int32_t>(),      row[3].as<std::string>(),
                       row[4].as<std::string>(),       Nullable<std::int32_t>(row[5]),
                       Nullable<std::int64_t>(row[6]), FromMillis(row[7].as<std::int64_t>())};
}

// The review `statement` reads (by its id, `id`), with its approvals and assignees.
inline std::optional<Review> ReviewWithPeople(pqxx::transaction_base& tx,
                                              const Statement& statement, ReviewId id) {
  return First<Review>(tx.exec_prepared(statement.name, id), ToReview);
}

}  // namespace docgate::pg_document_sql
