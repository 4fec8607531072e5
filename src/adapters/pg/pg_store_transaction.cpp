#include "adapters/pg/pg_store_transaction.h"

#include <pqxx/pqxx>
#include <string>
#include <utility>
#include <vector>

#include "adapters/pg/pg_document_sql.h"
#include "adapters/pg/pg_document_store.h"
#include "adapters/pg/pg_idempotency_store.h"
#include "adapters/pg/pg_outbox_store.h"
#include "adapters/pg/pg_session.h"
#include "core/error.h"

namespace docgate {
namespace {

using namespace pg_document_sql;  // the statements and rows (pg_document_sql.h)

class PgTransaction final : public StoreTransaction {
 public:
  explicit PgTransaction(PgConnectionPool::Lease lease) : work_(std::move(lease)) {}

  std::optional<Review> LockReview(ReviewId id) override {
    return work_.Run("lock review", id,
                     [&](pqxx::work& w) { return ReviewWithPeople(w, kLockReview, id); });
  }

  std::optional<Document> LockDocument(DocumentId id) override {
    return PgDocumentStore::LockDocumentIn(work_, id);
  }

  std::optional<Document> ReadDocument(DocumentId id) override {
    return work_.Run("read document", id, [&](pqxx::work& w) {
      return First<Document>(w.exec_prepared(kSelectDocument.name, id), ToDocument);
    });
  }

  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return PgDocumentStore::ReadContentIn(work_, id, version);
  }

  DocumentId InsertDocument(const Document& doc) override {
    return work_.Run("insert document", 0, [&](pqxx::work& w) {
      return w
          .exec_prepared1(kInsertDocument.name, Checked(doc.title), Name(ToString(doc.status)),
                          doc.version, Checked(doc.author_id), Checked(Text(doc.current_review_id)),
                          Checked(Text(doc.approved_version)), Checked(Text(doc.approved_at)),
                          Name(ToString(doc.ingest_status)), Millis(doc.created_at),
                          Millis(doc.updated_at))[0]
          .as<DocumentId>();
    });
  }

  ReviewId InsertReview(const Review& review) override {
    return work_.Run("insert review of document", review.document_id, [&](pqxx::work& w) {
      return w
          .exec_prepared1(kInsertReview.name, review.document_id, review.document_version,
                          Name(ToString(review.status)), Checked(review.submitted_by),
                          Millis(review.submitted_at), Checked(review.decided_by),
                          Checked(Text(review.decided_at)), Checked(review.comment),
                          review.required_approvals)[0]
          .as<ReviewId>();
    });
  }

  void UpdateDocument(const Document& doc) override {
    work_.Run("update document", doc.id, [&](pqxx::work& w) {
      const auto result = w.exec_prepared(
          kUpdateDocument.name, doc.id, Checked(doc.title), Name(ToString(doc.status)), doc.version,
          Checked(Text(doc.current_review_id)), Checked(Text(doc.approved_version)),
          Checked(Text(doc.approved_at)), Name(ToString(doc.ingest_status)),
          Millis(doc.updated_at));
      ExpectOneRow(result, "document", doc.id);
    });
  }

  void UpdateReview(const Review& review) override {
    work_.Run("update review", review.id, [&](pqxx::work& w) {
      const auto result = w.exec_prepared(
          kUpdateReview.name, review.id, Name(ToString(review.status)), Checked(review.decided_by),
          Checked(Text(review.decided_at)), Checked(review.comment));
      ExpectOneRow(result, "review", review.id);
    });
  }

  void PutVersion(const DocumentVersion& v) override {
    work_.Run("put version of document", v.document_id, [&](pqxx::work& w) {
      w.exec_prepared(kInsertVersion.name, v.document_id, v.version, Checked(v.title),
                      Checked(v.content), Checked(v.edited_by), Millis(v.created_at));
      w.exec_prepared(kRecordEditor.name, v.document_id, Checked(v.edited_by), v.version);
      w.exec_prepared(kInsertVersionEditor.name, v.document_id, v.version, Checked(v.edited_by));
    });
  }

  bool DropUnsubmittedVersion(DocumentId id, std::int32_t version) override {
    return work_.Run("drop unsubmitted version of document", id, [&](pqxx::work& w) {
      return w.exec_prepared(kDropUnsubmittedVersion.name, id, version).affected_rows() == 1;
    });
  }

  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version) override {
    return work_.Run("list editors of document", id, [&](pqxx::work& w) {
      return All<UserId>(w.exec_prepared(kSelectEditors.name, id, after_version), ToText);
    });
  }

  void AddApproval(ReviewId id, const Approval& approval) override {
    work_.Run("add approval to review", id, [&](pqxx::work& w) {
      w.exec_prepared(kInsertApproval.name, id, Checked(approval.reviewer_id),
                      Checked(approval.comment), Millis(approval.decided_at));
    });
  }

  void AddAssignee(ReviewId id, const UserId& reviewer, const UserId& by, TimePoint at) override {
    work_.Run("assign a reviewer to review", id, [&](pqxx::work& w) {
      w.exec_prepared(kInsertAssignee.name, id, Checked(reviewer), Checked(by), Millis(at));
    });
  }

  bool RemoveAssignee(ReviewId id, const UserId& reviewer) override {
    return work_.Run("unassign a reviewer of review", id, [&](pqxx::work& w) {
      return w.exec_prepared(kDeleteAssignee.name, id, Checked(reviewer)).affected_rows() == 1;
    });
  }

  std::int64_t InsertComment(const ReviewComment& c) override {
    return work_.Run("comment on review", c.review_id, [&](pqxx::work& w) {
      return w
          .exec_prepared(kInsertComment.name, c.review_id, c.document_version, Checked(c.author_id),
                         Checked(c.body), c.line, c.parent_id, Millis(c.created_at))[0][0]
          .as<std::int64_t>();
    });
  }

  std::optional<ReviewComment> ReadComment(std::int64_t id) override {
    return work_.Run("read comment", id, [&](pqxx::work& w) {
      return First<ReviewComment>(w.exec_prepared(kSelectComment.name, id), ToComment);
    });
  }

  void AppendEvent(const OutboxEvent& event) override { PgOutboxStore::Append(work_, event); }

  void CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                 const std::string& owner, const std::string& response,
                                 TimePoint expires_at) override {
    PgIdempotencyStore::Complete(work_, caller, key, owner, response, expires_at);
  }

  void Commit() override { work_.Commit(); }

 private:
  static void ExpectOneRow(const pqxx::result& result, const char* table, std::int64_t id) {
    if (result.affected_rows() != 1) {
      throw StorageError("postgres: no " + std::string(table) + " " + std::to_string(id) +
                         " to update");
    }
  }

  PgWork work_;
};

}  // namespace

std::unique_ptr<StoreTransaction> BeginPgStoreTransaction(PgSession& session) {
  return session.Begin<PgTransaction>();
}

}  // namespace docgate
