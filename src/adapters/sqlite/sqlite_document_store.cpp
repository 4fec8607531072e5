#include "adapters/sqlite/sqlite_document_store.h"

#include <limits>
#include <map>
#include <string>
#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_document_sql.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "adapters/sqlite/sqlite_sql_text.h"
#include "adapters/sqlite/sqlite_store_transaction.h"
#include "core/error.h"

namespace docgate {

using namespace sqlite_document_sql;  // the statements and rows (sqlite_document_sql.h)

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
  return BeginSqliteStoreTransaction(*session_);
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
