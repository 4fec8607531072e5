#include "adapters/sqlite/sqlite_store_transaction.h"

#include <string>
#include <utility>
#include <vector>

#include "adapters/sqlite/sqlite_document_sql.h"
#include "adapters/sqlite/sqlite_document_store.h"
#include "adapters/sqlite/sqlite_idempotency_store.h"
#include "adapters/sqlite/sqlite_outbox_store.h"
#include "adapters/sqlite/sqlite_session.h"
#include "core/error.h"

namespace docgate {
namespace {

using namespace sqlite_document_sql;  // the statements and rows (sqlite_document_sql.h)

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
    stmt.Bind(12, doc.id).Run();
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

std::unique_ptr<StoreTransaction> BeginSqliteStoreTransaction(SqliteSession& session) {
  return session.Begin<SqliteStoreTransaction>();
}

}  // namespace docgate
