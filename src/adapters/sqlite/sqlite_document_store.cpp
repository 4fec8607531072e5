#include "adapters/sqlite/sqlite_document_store.h"

#include <limits>
#include <map>
#include <string>
#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_idempotency_store.h"
#include "adapters/sqlite/sqlite_outbox_store.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "adapters/sqlite/sqlite_sql_text.h"
#include "core/error.h"

namespace docgate {
namespace {

using namespace sqlite_rows;  // shared rows and binders (sqlite_rows.h)
using sqlite_sql::Sql;

// Row selections; DocumentFromRow and ReviewFromRow read their columns by position.
constexpr char kSelectDocuments[] =
    "SELECT id, title, status, version, author_id, current_review_id, "
    "approved_version,"
    " approved_at, ingest_status, created_at, updated_at FROM kh_document "
    "WHERE ";
// A review's approvals and assignees are read by a second statement (kSelectReviewPeople), for
// every review read.
constexpr char kSelectReviews[] =
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment, required_approvals FROM kh_document_review WHERE ";
// The queue's reviews, each with its document's title last (QueuedReviewFromRow).
constexpr char kSelectQueuedReviews[] =
    "SELECT r.id, r.document_id, r.document_version, r.status, r.submitted_by, r.submitted_at,"
    " r.decided_by, r.decided_at, r.comment, r.required_approvals, d.title"
    " FROM kh_document_review r JOIN kh_document d ON d.id = r.document_id WHERE ";

constexpr auto kSelectDocument = Sql(kSelectDocuments, "id = ?1");
// Document lists bind ?1 status, ?2 author_id, ?3 the exclusive cursor, ?4 the
// limit; one text per filter combination so that each can use its index.
constexpr char kNewestFirst[] = " ORDER BY id DESC LIMIT ?4";
constexpr auto kListDocuments = Sql(kSelectDocuments, "id < ?3", kNewestFirst);
constexpr auto kListDocumentsByStatus =
    Sql(kSelectDocuments, "status = ?1 AND id < ?3", kNewestFirst);
constexpr auto kListDocumentsByAuthor =
    Sql(kSelectDocuments, "author_id = ?2 AND id < ?3", kNewestFirst);
constexpr auto kListDocumentsByStatusAndAuthor =
    Sql(kSelectDocuments, "status = ?1 AND author_id = ?2 AND id < ?3", kNewestFirst);
// Insert and update share the parameter numbers of BindDocument; update leaves
// author_id (?4) and created_at (?9) alone and names the row by ?11.
constexpr std::string_view kInsertDocument = sql::kSqlite<sql::kInsertDocument>;
constexpr std::string_view kUpdateDocument =
    "UPDATE kh_document SET title = ?1, status = ?2, version = ?3, "
    "current_review_id = ?5,"
    " approved_version = ?6, approved_at = ?7, ingest_status = ?8, updated_at "
    "= ?10"
    " WHERE id = ?11";
constexpr std::string_view kSetIngestStatus = sql::kSqlite<sql::kSetIngestStatus>;

constexpr std::string_view kSelectContent = sql::kSqlite<sql::kSelectContent>;
constexpr std::string_view kSelectDocumentWithContent =
    sql::kSqlite<sql::kSelectDocumentWithContent>;
constexpr std::string_view kInsertVersion = sql::kSqlite<sql::kInsertVersion>;
// An editor's newest version: versions only grow, so max() keeps an upsert of an older one from
// moving it back.
constexpr std::string_view kRecordEditor =
    "INSERT INTO kh_document_editor (document_id, editor, last_version) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (document_id, editor) DO UPDATE SET last_version ="
    " max(last_version, excluded.last_version)";
constexpr std::string_view kDropUnsubmittedVersion =
    "DELETE FROM kh_document_content WHERE document_id = ?1 AND version = ?2"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_review"
    "                  WHERE document_id = ?1 AND document_version = ?2)";
constexpr std::string_view kSelectEditors = sql::kSqlite<sql::kSelectEditors>;
constexpr std::string_view kSelectVersion = sql::kSqlite<sql::kSelectVersion>;
// Each kept version with its newest review (kh_document_review_by_version finds it).
constexpr std::string_view kListVersions = sql::kSqlite<sql::kListVersions>;
constexpr std::string_view kListVersionEditors = sql::kSqlite<sql::kListVersionEditors>;
constexpr std::string_view kInsertVersionEditor = sql::kSqlite<sql::kInsertVersionEditor>;

constexpr auto kSelectReview = Sql(kSelectReviews, "id = ?1");
// Review lists bind ?1 status, ?2 the exclusive cursor, ?3 the limit, ?4 the assignee; one text
// per filter combination.
constexpr char kOldestFirst[] = " ORDER BY r.id LIMIT ?3";
constexpr char kAssignedTo[] =
    " AND EXISTS (SELECT 1 FROM kh_review_assignee a"
    "             WHERE a.review_id = r.id AND a.reviewer_id = ?4)";
constexpr auto kListReviews = Sql(kSelectQueuedReviews, "r.id > ?2", kOldestFirst);
constexpr auto kListReviewsByStatus =
    Sql(kSelectQueuedReviews, "r.status = ?1 AND r.id > ?2", kOldestFirst);
constexpr auto kListReviewsByAssignee =
    Sql(kSelectQueuedReviews, "r.id > ?2", kAssignedTo, kOldestFirst);
constexpr auto kListReviewsByStatusAndAssignee =
    Sql(kSelectQueuedReviews, "r.status = ?1 AND r.id > ?2", kAssignedTo, kOldestFirst);
// A document's reviews bind ?1 the document, ?2 the exclusive cursor, ?3 the limit.
constexpr auto kListDocumentReviews =
    Sql(kSelectReviews, "document_id = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3");
// Insert and update share the parameter numbers of BindReview; a decision
// changes only ?3, ?6-?8 (and names the row by ?10).
constexpr std::string_view kInsertReview = sql::kSqlite<sql::kInsertReview>;
constexpr std::string_view kUpdateReview =
    "UPDATE kh_document_review SET status = ?3, decided_by = ?6, decided_at = "
    "?7, comment = ?8"
    " WHERE id = ?10";
constexpr std::string_view kInsertApproval = sql::kSqlite<sql::kInsertApproval>;
constexpr std::string_view kInsertAssignee = sql::kSqlite<sql::kInsertAssignee>;
constexpr std::string_view kDeleteAssignee = sql::kSqlite<sql::kDeleteAssignee>;
constexpr std::string_view kInsertComment = sql::kSqlite<sql::kInsertComment>;
constexpr std::string_view kSelectComment = sql::kSqlite<sql::kSelectComment>;
constexpr std::string_view kListComments = sql::kSqlite<sql::kListComments>;
// The approvals (kind 0) and assignees (kind 1) of the reviews whose ids ?1 holds as a JSON array:
// one statement for a page of reviews, whatever their number; each review's approvals in the order
// they were given, its assignees in the order they were assigned. Ties go to the reviewer id in
// byte order (BINARY), as on PostgreSQL (COLLATE "C").
constexpr std::string_view kSelectReviewPeople =
    "SELECT review_id, 0, reviewer_id, comment, decided_at FROM kh_review_approval"
    " WHERE review_id IN (SELECT value FROM json_each(?1))"
    " UNION ALL"
    " SELECT review_id, 1, reviewer_id, NULL, assigned_at FROM kh_review_assignee"
    " WHERE review_id IN (SELECT value FROM json_each(?1))"
    " ORDER BY 1, 2, 5, 3";

Document DocumentFromRow(const SqliteStatement& row) {
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
  return doc;
}

DocumentWithContent DocumentWithContentFromRow(const SqliteStatement& row) {
  return DocumentWithContent{DocumentFromRow(row), Nullable(row, 11, &SqliteStatement::Text)};
}

Review ReviewFromRow(const SqliteStatement& row) {
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
Approval ApprovalFromRow(const SqliteStatement& row) {
  return Approval{row.Text(2), Nullable(row, 3, &SqliteStatement::Text), row.Time(4)};
}

ReviewComment CommentFromRow(const SqliteStatement& row) {
  return ReviewComment{row.Int64(0),
                       row.Int64(1),
                       row.Int32(2),
                       row.Text(3),
                       row.Text(4),
                       Nullable(row, 5, &SqliteStatement::Int32),
                       Nullable(row, 6, &SqliteStatement::Int64),
                       row.Time(7)};
}

DocumentVersion VersionFromRow(const SqliteStatement& row) {
  return DocumentVersion{row.Int64(0), row.Int32(1), row.Text(2),
                         row.Text(3),  row.Text(4),  row.Time(5)};
}

QueuedReview QueuedReviewFromRow(const SqliteStatement& row) {
  return QueuedReview{ReviewFromRow(row), row.Text(10)};
}

VersionSummary VersionSummaryFromRow(const SqliteStatement& row) {
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

std::pair<std::int32_t, UserId> VersionEditorFromRow(const SqliteStatement& row) {
  return {row.Int32(0), row.Text(1)};
}

void BindDocument(SqliteStatement& stmt, const Document& doc) {
  stmt.Bind(1, doc.title)
      .Bind(2, ToString(doc.status))
      .Bind(3, doc.version)
      .Bind(4, doc.author_id)
      .Bind(5, doc.current_review_id)
      .Bind(6, doc.approved_version)
      .Bind(7, doc.approved_at)
      .Bind(8, ToString(doc.ingest_status))
      .Bind(9, doc.created_at)
      .Bind(10, doc.updated_at);
}

void BindReview(SqliteStatement& stmt, const Review& review) {
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

std::string_view DocumentListSql(const DocumentQuery& query) {
  if (query.status && query.author_id) return kListDocumentsByStatusAndAuthor;
  if (query.status) return kListDocumentsByStatus;
  if (query.author_id) return kListDocumentsByAuthor;
  return kListDocuments;
}

std::optional<Document> SelectDocument(SqliteConnection& connection, DocumentId id) {
  auto stmt = connection.Prepare(kSelectDocument);
  stmt.Bind(1, id);
  return FirstRow(stmt, &DocumentFromRow);
}

std::string_view ReviewListSql(const ReviewQuery& query) {
  if (query.status && query.assignee) return kListReviewsByStatusAndAssignee;
  if (query.status) return kListReviewsByStatus;
  if (query.assignee) return kListReviewsByAssignee;
  return kListReviews;
}

Review& ReviewOf(Review& review) { return review; }
Review& ReviewOf(QueuedReview& item) { return item.review; }

// Reads the approvals and assignees of `items`' reviews into them, on the connection that read the
// reviews.
template <typename Item>
void ReadReviewPeople(SqliteConnection& connection, std::vector<Item>& items) {
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
  while (stmt.Step()) {
    Review& review = *by_id.at(stmt.Int64(0));
    if (stmt.Int32(1) == 0) {
      review.approvals.push_back(ApprovalFromRow(stmt));
    } else {
      review.assignees.push_back(stmt.Text(2));
    }
  }
}

std::optional<Review> SelectReview(SqliteConnection& connection, ReviewId id) {
  auto stmt = connection.Prepare(kSelectReview);
  stmt.Bind(1, id);
  std::vector<Review> found = AllRows(stmt, &ReviewFromRow);
  if (found.empty()) return std::nullopt;
  ReadReviewPeople(connection, found);
  return std::move(found.front());
}

std::optional<std::string> SelectContent(SqliteConnection& connection, DocumentId id,
                                         std::int32_t version) {
  auto stmt = connection.Prepare(kSelectContent);
  stmt.Bind(1, id).Bind(2, version);
  return FirstRow(stmt, &TextFromRow);
}

// A transition's unit of work, composed of the ports' writers over one SqliteWork: the documents'
// (here), the outbox's (SqliteOutboxStore::Append), the idempotency keys'
// (SqliteIdempotencyStore::Complete).
class SqliteStoreTransaction final : public StoreTransaction {
 public:
  explicit SqliteStoreTransaction(SqliteConnectionPool::Lease lease) : work_(std::move(lease)) {}

  std::optional<Review> LockReview(ReviewId id) override { return SelectReview(Open(), id); }
  std::optional<Document> LockDocument(DocumentId id) override {
    return SqliteDocumentStore::LockDocumentIn(work_, id);
  }
  std::optional<Document> ReadDocument(DocumentId id) override {
    return SelectDocument(Open(), id);
  }
  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return SqliteDocumentStore::ReadContentIn(work_, id, version);
  }

  DocumentId InsertDocument(const Document& doc) override {
    auto stmt = Open().Prepare(kInsertDocument);
    BindDocument(stmt, doc);
    return ReturnedId(stmt);
  }

  ReviewId InsertReview(const Review& review) override {
    auto stmt = Open().Prepare(kInsertReview);
    BindReview(stmt, review);
    return ReturnedId(stmt);
  }

  void UpdateDocument(const Document& doc) override {
    auto stmt = Open().Prepare(kUpdateDocument);
    BindDocument(stmt, doc);
    stmt.Bind(11, doc.id).Run();
    ExpectOneRowChanged(Open(), "document", doc.id);
  }

  void UpdateReview(const Review& review) override {
    auto stmt = Open().Prepare(kUpdateReview);
    BindReview(stmt, review);
    stmt.Bind(10, review.id).Run();
    ExpectOneRowChanged(Open(), "review", review.id);
  }

  void PutVersion(const DocumentVersion& v) override {
    Open()
        .Prepare(kInsertVersion)
        .Bind(1, v.document_id)
        .Bind(2, v.version)
        .Bind(3, v.title)
        .Bind(4, v.content)
        .Bind(5, v.edited_by)
        .Bind(6, v.created_at)
        .Run();
    Open()
        .Prepare(kRecordEditor)
        .Bind(1, v.document_id)
        .Bind(2, v.edited_by)
        .Bind(3, v.version)
        .Run();
    Open()
        .Prepare(kInsertVersionEditor)
        .Bind(1, v.document_id)
        .Bind(2, v.version)
        .Bind(3, v.edited_by)
        .Run();
  }

  bool DropUnsubmittedVersion(DocumentId id, std::int32_t version) override {
    Open().Prepare(kDropUnsubmittedVersion).Bind(1, id).Bind(2, version).Run();
    return Open().Changes() == 1;
  }

  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version) override {
    auto stmt = Open().Prepare(kSelectEditors);
    stmt.Bind(1, id).Bind(2, after_version);
    return AllRows(stmt, &TextFromRow);
  }

  void AddApproval(ReviewId id, const Approval& approval) override {
    Open()
        .Prepare(kInsertApproval)
        .Bind(1, id)
        .Bind(2, approval.reviewer_id)
        .Bind(3, approval.comment)
        .Bind(4, approval.decided_at)
        .Run();
  }

  void AddAssignee(ReviewId id, const UserId& reviewer, const UserId& by, TimePoint at) override {
    Open().Prepare(kInsertAssignee).Bind(1, id).Bind(2, reviewer).Bind(3, by).Bind(4, at).Run();
  }

  bool RemoveAssignee(ReviewId id, const UserId& reviewer) override {
    Open().Prepare(kDeleteAssignee).Bind(1, id).Bind(2, reviewer).Run();
    return Open().Changes() == 1;
  }

  std::int64_t InsertComment(const ReviewComment& comment) override {
    auto stmt = Open().Prepare(kInsertComment);
    stmt.Bind(1, comment.review_id)
        .Bind(2, comment.document_version)
        .Bind(3, comment.author_id)
        .Bind(4, comment.body)
        .Bind(5, comment.line)
        .Bind(6, comment.parent_id)
        .Bind(7, comment.created_at);
    return ReturnedId(stmt);
  }

  std::optional<ReviewComment> ReadComment(std::int64_t id) override {
    auto stmt = Open().Prepare(kSelectComment);
    stmt.Bind(1, id);
    return FirstRow(stmt, &CommentFromRow);
  }

  void AppendEvent(const OutboxEvent& event) override { SqliteOutboxStore::Append(work_, event); }

  void CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                 const std::string& owner, const std::string& response,
                                 TimePoint expires_at) override {
    SqliteIdempotencyStore::Complete(work_, caller, key, owner, response, expires_at);
  }

  void Commit() override { work_.Commit(); }

 private:
  SqliteConnection& Open() { return work_.Open(); }

  SqliteWork work_;
};

}  // namespace

SqliteDocumentStore::SqliteDocumentStore(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

std::optional<Document> SqliteDocumentStore::LockDocumentIn(SqliteWork& work, DocumentId id) {
  return SelectDocument(work.Open(), id);
}

std::optional<std::string> SqliteDocumentStore::ReadContentIn(SqliteWork& work, DocumentId id,
                                                              std::int32_t version) {
  return SelectContent(work.Open(), id, version);
}

void SqliteDocumentStore::SetIngestStatusIn(SqliteWork& work, DocumentId id, IngestStatus status) {
  SqliteConnection& connection = work.Open();
  connection.Prepare(kSetIngestStatus).Bind(1, id).Bind(2, ToString(status)).Run();
  ExpectOneRowChanged(connection, "document", id);
}

std::unique_ptr<StoreTransaction> SqliteDocumentStore::Begin() {
  return session_->Begin<SqliteStoreTransaction>();
}

std::optional<Document> SqliteDocumentStore::FindDocument(DocumentId id) {
  return SelectDocument(*session_->Read(), id);
}

std::optional<Review> SqliteDocumentStore::FindReview(ReviewId id) {
  return SelectReview(*session_->Read(), id);
}

std::optional<std::string> SqliteDocumentStore::FindContent(DocumentId id, std::int32_t version) {
  return SelectContent(*session_->Read(), id, version);
}

std::optional<DocumentWithContent> SqliteDocumentStore::FindDocumentWithContent(DocumentId id) {
  auto lease = session_->Read();
  auto stmt = lease->Prepare(kSelectDocumentWithContent);
  stmt.Bind(1, id);
  return FirstRow(stmt, &DocumentWithContentFromRow);
}

std::optional<DocumentVersion> SqliteDocumentStore::FindVersion(DocumentId id,
                                                                std::int32_t version) {
  auto lease = session_->Read();
  auto stmt = lease->Prepare(kSelectVersion);
  stmt.Bind(1, id).Bind(2, version);
  return FirstRow(stmt, &VersionFromRow);
}

std::vector<VersionSummary> SqliteDocumentStore::ListVersions(const VersionQuery& query) {
  return session_->ReadAll(kListVersions, &VersionSummaryFromRow, query.document_id,
                           query.before.value_or(std::numeric_limits<std::int32_t>::max()),
                           NonNegative(query.limit));
}

std::vector<std::pair<std::int32_t, UserId>> SqliteDocumentStore::ListVersionEditors(
    DocumentId id, std::int32_t from_version, std::int32_t to_version) {
  return session_->ReadAll(kListVersionEditors, &VersionEditorFromRow, id, from_version,
                           to_version);
}

std::vector<Document> SqliteDocumentStore::ListDocuments(const DocumentQuery& query) {
  auto lease = session_->Read();
  auto stmt = lease->Prepare(DocumentListSql(query));
  if (query.status) stmt.Bind(1, ToString(*query.status));
  stmt.Bind(2, query.author_id)
      .Bind(3, query.before.value_or(std::numeric_limits<DocumentId>::max()))
      .Bind(4, NonNegative(query.limit));
  return AllRows(stmt, &DocumentFromRow);
}

std::vector<QueuedReview> SqliteDocumentStore::ListReviews(const ReviewQuery& query) {
  auto lease = session_->Read();
  auto stmt = lease->Prepare(ReviewListSql(query));
  if (query.status) stmt.Bind(1, ToString(*query.status));
  if (query.assignee) stmt.Bind(4, *query.assignee);
  stmt.Bind(2, query.after.value_or(std::numeric_limits<ReviewId>::min()))
      .Bind(3, NonNegative(query.limit));
  std::vector<QueuedReview> page = AllRows(stmt, &QueuedReviewFromRow);
  ReadReviewPeople(*lease, page);
  return page;
}

std::vector<Review> SqliteDocumentStore::ListDocumentReviews(const DocumentReviewQuery& query) {
  auto lease = session_->Read();
  auto stmt = lease->Prepare(kListDocumentReviews);
  stmt.Bind(1, query.document_id)
      .Bind(2, query.before.value_or(std::numeric_limits<ReviewId>::max()))
      .Bind(3, NonNegative(query.limit));
  std::vector<Review> page = AllRows(stmt, &ReviewFromRow);
  ReadReviewPeople(*lease, page);
  return page;
}

std::vector<ReviewComment> SqliteDocumentStore::ListComments(const CommentQuery& query) {
  return session_->ReadAll(kListComments, &CommentFromRow, query.review_id,
                           query.after.value_or(std::numeric_limits<std::int64_t>::min()),
                           NonNegative(query.limit));
}

bool SqliteDocumentStore::Ping() { return session_->Ping(); }

}  // namespace docgate
