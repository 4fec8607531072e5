#pragma once

// The SQL of SqliteDocumentStore and of its transaction (sqlite_store_transaction.cpp): the
// documents' and reviews' statements, the rows they read and the reads both run. Internal to
// adapters/sqlite.

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_connection.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_sql_text.h"
#include "app/ports/document_store.h"
#include "core/model.h"

namespace docgate::sqlite_document_sql {

using namespace sqlite_rows;  // shared rows and binders (sqlite_rows.h)
using sqlite_sql::Sql;

// Row selections; DocumentFromRow and ReviewFromRow read their columns by position.
inline constexpr char kSelectDocuments[] =
    "SELECT id, title, status, version, author_id, current_review_id, "
    "approved_version,"
    " approved_at, ingest_status, created_at, updated_at, format FROM kh_document "
    "WHERE ";
// A review's approvals and assignees are read by a second statement (kSelectReviewPeople), for
// every review read.
inline constexpr char kSelectReviews[] =
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment, required_approvals FROM kh_document_review WHERE ";
// The queue's reviews, each with its document's title last (QueuedReviewFromRow).
inline constexpr char kSelectQueuedReviews[] =
    "SELECT r.id, r.document_id, r.document_version, r.status, r.submitted_by, r.submitted_at,"
    " r.decided_by, r.decided_at, r.comment, r.required_approvals, d.title"
    " FROM kh_document_review r JOIN kh_document d ON d.id = r.document_id WHERE ";

inline constexpr auto kSelectDocument = Sql(kSelectDocuments, "id = ?1");
// Document lists bind ?1 status, ?2 author_id, ?3 the exclusive cursor, ?4 the
// limit; one text per filter combination so that each can use its index.
inline constexpr char kNewestFirst[] = " ORDER BY id DESC LIMIT ?4";
inline constexpr auto kListDocuments = Sql(kSelectDocuments, "id < ?3", kNewestFirst);
inline constexpr auto kListDocumentsByStatus =
    Sql(kSelectDocuments, "status = ?1 AND id < ?3", kNewestFirst);
inline constexpr auto kListDocumentsByAuthor =
    Sql(kSelectDocuments, "author_id = ?2 AND id < ?3", kNewestFirst);
inline constexpr auto kListDocumentsByStatusAndAuthor =
    Sql(kSelectDocuments, "status = ?1 AND author_id = ?2 AND id < ?3", kNewestFirst);
// Insert and update share the parameter numbers of BindDocument; update leaves
// author_id (?4) and created_at (?9) alone and names the row by ?12.
inline constexpr std::string_view kInsertDocument = sql::kSqlite<sql::kInsertDocument>;
inline constexpr std::string_view kUpdateDocument =
    "UPDATE kh_document SET title = ?1, status = ?2, version = ?3, "
    "current_review_id = ?5,"
    " approved_version = ?6, approved_at = ?7, ingest_status = ?8, updated_at "
    "= ?10, format = ?11"
    " WHERE id = ?12";
inline constexpr std::string_view kSetIngestStatus = sql::kSqlite<sql::kSetIngestStatus>;

inline constexpr std::string_view kSelectContent = sql::kSqlite<sql::kSelectContent>;
inline constexpr std::string_view kSelectDocumentWithContent =
    sql::kSqlite<sql::kSelectDocumentWithContent>;
inline constexpr std::string_view kInsertVersion = sql::kSqlite<sql::kInsertVersion>;
// An editor's newest version: versions only grow, so max() keeps an upsert of an older one from
// moving it back.
inline constexpr std::string_view kRecordEditor =
    "INSERT INTO kh_document_editor (document_id, editor, last_version) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (document_id, editor) DO UPDATE SET last_version ="
    " max(last_version, excluded.last_version)";
inline constexpr std::string_view kDropUnsubmittedVersion =
    "DELETE FROM kh_document_content WHERE document_id = ?1 AND version = ?2"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_review"
    "                  WHERE document_id = ?1 AND document_version = ?2)";
inline constexpr std::string_view kSelectEditors = sql::kSqlite<sql::kSelectEditors>;
inline constexpr std::string_view kSelectVersion = sql::kSqlite<sql::kSelectVersion>;
// Each kept version with its newest review (kh_document_review_by_version finds it).
inline constexpr std::string_view kListVersions = sql::kSqlite<sql::kListVersions>;
inline constexpr std::string_view kListVersionEditors = sql::kSqlite<sql::kListVersionEditors>;
inline constexpr std::string_view kInsertVersionEditor = sql::kSqlite<sql::kInsertVersionEditor>;

inline constexpr auto kSelectReview = Sql(kSelectReviews, "id = ?1");
// Review lists bind ?1 status, ?2 the exclusive cursor, ?3 the limit, ?4 the assignee; one text
// per filter combination.
inline constexpr char kOldestFirst[] = " ORDER BY r.id LIMIT ?3";
inline constexpr char kAssignedTo[] =
    " AND EXISTS (SELECT 1 FROM kh_review_assignee a"
    "             WHERE a.review_id = r.id AND a.reviewer_id = ?4)";
inline constexpr auto kListReviews = Sql(kSelectQueuedReviews, "r.id > ?2", kOldestFirst);
inline constexpr auto kListReviewsByStatus =
    Sql(kSelectQueuedReviews, "r.status = ?1 AND r.id > ?2", kOldestFirst);
inline constexpr auto kListReviewsByAssignee =
    Sql(kSelectQueuedReviews, "r.id > ?2", kAssignedTo, kOldestFirst);
inline constexpr auto kListReviewsByStatusAndAssignee =
    Sql(kSelectQueuedReviews, "r.status = ?1 AND r.id > ?2", kAssignedTo, kOldestFirst);
// A document's reviews bind ?1 the document, ?2 the exclusive cursor, ?3 the limit.
inline constexpr auto kListDocumentReviews =
    Sql(kSelectReviews, "document_id = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3");
// Insert and update share the parameter numbers of BindReview; a decision
// changes only ?3, ?6-?8 (and names the row by ?10).
inline constexpr std::string_view kInsertReview = sql::kSqlite<sql::kInsertReview>;
inline constexpr std::string_view kUpdateReview =
    "UPDATE kh_document_review SET status = ?3, decided_by = ?6, decided_at = "
    "?7, comment = ?8"
    " WHERE id = ?10";
inline constexpr std::string_view kInsertApproval = sql::kSqlite<sql::kInsertApproval>;
inline constexpr std::string_view kInsertAssignee = sql::kSqlite<sql::kInsertAssignee>;
inline constexpr std::string_view kDeleteAssignee = sql::kSqlite<sql::kDeleteAssignee>;
inline constexpr std::string_view kInsertComment = sql::kSqlite<sql::kInsertComment>;
inline constexpr std::string_view kSelectComment = sql::kSqlite<sql::kSelectComment>;
inline constexpr std::string_view kListComments = sql::kSqlite<sql::kListComments>;
// The approvals (kind 0) and assignees (kind 1) of the reviews whose ids ?1 holds as a JSON array:
// one statement for a page of reviews, whatever their number; each review's approvals in the order
// they were given, its assignees in the order they were assigned. Ties go to the reviewer id in
// byte order (BINARY), as on PostgreSQL (COLLATE "C").
inline constexpr char kApprovalsOfReviews[] =
    "SELECT review_id, 0, reviewer_id, comment, decided_at FROM kh_review_approval WHERE "
    "review_id ";
inline constexpr char kAssigneesOfReviews[] =
    " UNION ALL SELECT review_id, 1, reviewer_id, NULL, assigned_at FROM kh_review_assignee"
    " WHERE review_id ";
inline constexpr char kPeopleOrder[] = " ORDER BY 1, 2, 5, 3";
inline constexpr char kInReviews[] = "IN (SELECT value FROM json_each(?1))";
inline constexpr auto kSelectReviewPeople =
    Sql(kApprovalsOfReviews, kInReviews, kAssigneesOfReviews, kInReviews, kPeopleOrder);
// The same for the one review ?1 (a review's read, and the approval path's lock): two lookups in
// the primary keys, no JSON to parse.
inline constexpr auto kSelectOneReviewPeople =
    Sql(kApprovalsOfReviews, "= ?1", kAssigneesOfReviews, "= ?1", kPeopleOrder);

inline Document DocumentFromRow(const SqliteStatement& row) {
  Document doc;
  doc.id = row.Int64(0);
  doc.title = row.Text(1);
  doc.status = EnumColumn(row, 2, &ParseDocumentStatus, "kh_document.status");
  doc.version = row.Int32(3);
  doc.author_id = row.Text(4);
  doc.current_review_id = Nullable(row, 5, &SqliteStatement::Int64);
  doc.approved_version = Nullable(row, 6, &SqliteStatement::Int32);
  doc.approved_at = Nullable(row, 7, &SqliteStatement::Time);
  doc.ingest_status = EnumColumn(row, 8, &ParseIngestStatus, "kh_document.ingest_status");
  doc.created_at = row.Time(9);
  doc.updated_at = row.Time(10);
  doc.format = EnumColumn(row, 11, &ParseDocumentFormat, "kh_document.format");
  return doc;
}

inline DocumentWithContent DocumentWithContentFromRow(const SqliteStatement& row) {
  return DocumentWithContent{DocumentFromRow(row), Nullable(row, 12, &SqliteStatement::Text)};
}

inline Review ReviewFromRow(const SqliteStatement& row) {
  Review review;
  review.id = row.Int64(0);
  review.document_id = row.Int64(1);
  review.document_version = row.Int32(2);
  review.status = EnumColumn(row, 3, &ParseReviewStatus, "kh_document_review.status");
  review.submitted_by = row.Text(4);
  review.submitted_at = row.Time(5);
  review.decided_by = Nullable(row, 6, &SqliteStatement::Text);
  review.decided_at = Nullable(row, 7, &SqliteStatement::Time);
  review.comment = Nullable(row, 8, &SqliteStatement::Text);
  review.required_approvals = row.Int32(9);
  return review;
}

// A row of kSelectReviewPeople of kind 0.
inline Approval ApprovalFromRow(const SqliteStatement& row) {
  return Approval{row.Text(2), Nullable(row, 3, &SqliteStatement::Text), row.Time(4)};
}

inline ReviewComment CommentFromRow(const SqliteStatement& row) {
  return ReviewComment{row.Int64(0),
                       row.Int64(1),
                       row.Int32(2),
                       row.Text(3),
                       row.Text(4),
                       Nullable(row, 5, &SqliteStatement::Int32),
                       Nullable(row, 6, &SqliteStatement::Int64),
                       row.Time(7)};
}

inline DocumentVersion VersionFromRow(const SqliteStatement& row) {
  return DocumentVersion{row.Int64(0), row.Int32(1), row.Text(2),
                         row.Text(3),  row.Text(4),  row.Time(5)};
}

inline QueuedReview QueuedReviewFromRow(const SqliteStatement& row) {
  return QueuedReview{ReviewFromRow(row), row.Text(10)};
}

inline VersionSummary VersionSummaryFromRow(const SqliteStatement& row) {
  VersionSummary summary{row.Int32(0),
                         row.Text(1),
                         row.Text(2),
                         row.Time(3),
                         Nullable(row, 4, &SqliteStatement::Int64),
                         std::nullopt,
                         {}};
  if (!row.IsNull(5)) {
    summary.review_status = EnumColumn(row, 5, &ParseReviewStatus, "kh_document_review.status");
  }
  return summary;
}

inline std::pair<std::int32_t, UserId> VersionEditorFromRow(const SqliteStatement& row) {
  return {row.Int32(0), row.Text(1)};
}

inline void BindDocument(SqliteStatement& stmt, const Document& doc) {
  stmt.Bind(1, doc.title)
      .Bind(2, ToString(doc.status))
      .Bind(3, doc.version)
      .Bind(4, doc.author_id)
      .Bind(5, doc.current_review_id)
      .Bind(6, doc.approved_version)
      .Bind(7, doc.approved_at)
      .Bind(8, ToString(doc.ingest_status))
      .Bind(9, doc.created_at)
      .Bind(10, doc.updated_at)
      .Bind(11, ToString(doc.format));
}

inline void BindReview(SqliteStatement& stmt, const Review& review) {
  stmt.Bind(1, review.document_id)
      .Bind(2, review.document_version)
      .Bind(3, ToString(review.status))
      .Bind(4, review.submitted_by)
      .Bind(5, review.submitted_at)
      .Bind(6, review.decided_by)
      .Bind(7, review.decided_at)
      .Bind(8, review.comment)
      .Bind(9, review.required_approvals);
}

inline std::string_view DocumentListSql(const DocumentQuery& query) {
  if (query.status && query.author_id) return kListDocumentsByStatusAndAuthor;
  if (query.status) return kListDocumentsByStatus;
  if (query.author_id) return kListDocumentsByAuthor;
  return kListDocuments;
}

inline std::optional<Document> SelectDocument(SqliteConnection& connection, DocumentId id) {
  auto stmt = connection.Prepare(kSelectDocument);
  stmt.Bind(1, id);
  return FirstRow(stmt, &DocumentFromRow);
}

inline std::string_view ReviewListSql(const ReviewQuery& query) {
  if (query.status && query.assignee) return kListReviewsByStatusAndAssignee;
  if (query.status) return kListReviewsByStatus;
  if (query.assignee) return kListReviewsByAssignee;
  return kListReviews;
}

inline Review& ReviewOf(Review& review) { return review; }
inline Review& ReviewOf(QueuedReview& item) { return item.review; }

// Reads the rows of kSelectReviewPeople or kSelectOneReviewPeople into the reviews `review_of`
// finds by id.
template <typename Find>
inline void StepReviewPeople(SqliteStatement& stmt, Find&& review_of) {
  while (stmt.Step()) {
    Review& review = review_of(stmt.Int64(0));
    if (stmt.Int32(1) == 0) {
      review.approvals.push_back(ApprovalFromRow(stmt));
    } else {
      review.assignees.push_back(stmt.Text(2));
    }
  }
}

// Reads the approvals and assignees of `items`' reviews into them, on the connection that read the
// reviews.
template <typename Item>
inline void ReadReviewPeople(SqliteConnection& connection, std::vector<Item>& items) {
  if (items.empty()) return;
  std::string ids = "[";
  std::map<ReviewId, Review*> by_id;
  for (Item& item : items) {
    Review& review = ReviewOf(item);
    if (!by_id.empty()) ids += ',';
    ids += std::to_string(review.id);
    by_id.emplace(review.id, &review);
  }
  ids += ']';
  auto stmt = connection.Prepare(kSelectReviewPeople);
  stmt.Bind(1, ids);
  StepReviewPeople(stmt, [&](ReviewId id) -> Review& { return *by_id.at(id); });
}

inline std::optional<Review> SelectReview(SqliteConnection& connection, ReviewId id) {
  auto stmt = connection.Prepare(kSelectReview);
  stmt.Bind(1, id);
  std::optional<Review> found = FirstRow(stmt, &ReviewFromRow);
  if (!found) return std::nullopt;
  auto people = connection.Prepare(kSelectOneReviewPeople);
  people.Bind(1, id);
  StepReviewPeople(people, [&](ReviewId) -> Review& { return *found; });
  return found;
}

inline std::optional<std::string> SelectContent(SqliteConnection& connection, DocumentId id,
                                                std::int32_t version) {
  auto stmt = connection.Prepare(kSelectContent);
  stmt.Bind(1, id).Bind(2, version);
  return FirstRow(stmt, &TextFromRow);
}

}  // namespace docgate::sqlite_document_sql
