#include "adapters/pg/pg_store_transaction.h"

#include <optional>
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
    return Work().Run("lock review", id,
                      [&](pqxx::work& w) { return ReviewWithPeople(w, kLockReview, id); });
  }

  std::optional<Document> LockDocument(DocumentId id) override {
    return PgDocumentStore::LockDocumentIn(Work(), id);
  }

  std::optional<Document> ReadDocument(DocumentId id) override {
    return Work().Run("read document", id, [&](pqxx::work& w) {
      return First<Document>(w.exec_prepared(kSelectDocument.name, id), ToDocument);
    });
  }

  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return PgDocumentStore::ReadContentIn(Work(), id, version);
  }

  DocumentId InsertDocument(const Document& doc) override {
    return Work().Run("insert document", 0, [&](pqxx::work& w) {
      return w
          .exec_prepared1(kInsertDocument.name, Checked(doc.title), Name(ToString(doc.status)),
                          doc.version, Checked(doc.author_id), Checked(Text(doc.current_review_id)),
                          Checked(Text(doc.approved_version)), Checked(Text(doc.approved_at)),
                          Name(ToString(doc.ingest_status)), Millis(doc.created_at),
                          Millis(doc.updated_at), Name(ToString(doc.format)))[0]
          .as<DocumentId>();
    });
  }

  ReviewId InsertReview(const Review& review) override {
    return Work().Run("insert review of document", review.document_id, [&](pqxx::work& w) {
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
    Work().Run("update document", doc.id, [&](pqxx::work& w) {
      const auto result = w.exec_prepared(
          kUpdateDocument.name, doc.id, Checked(doc.title), Name(ToString(doc.status)), doc.version,
          Checked(Text(doc.current_review_id)), Checked(Text(doc.approved_version)),
          Checked(Text(doc.approved_at)), Name(ToString(doc.ingest_status)), Millis(doc.updated_at),
          Name(ToString(doc.format)));
      ExpectOneRow(result, "document", doc.id);
    });
  }

  void UpdateReview(const Review& review) override {
    if (!pending_approval_ || pending_approval_->first != review.id) {
      Work().Run("update review", review.id, [&](pqxx::work& w) {
        ExpectOneRow(w.exec_prepared(kUpdateReview.name, review.id, Name(ToString(review.status)),
                                     Checked(review.decided_by), Checked(Text(review.decided_at)),
                                     Checked(review.comment)),
                     "review", review.id);
      });
      return;
    }
    const Approval approval = std::move(pending_approval_->second);
    pending_approval_.reset();
    work_.Run("decide review", review.id, [&](pqxx::work& w) {
      ExpectOneRow(
          w.exec_prepared(kUpdateReviewWithApproval.name, review.id, Name(ToString(review.status)),
                          Checked(review.decided_by), Checked(Text(review.decided_at)),
                          Checked(review.comment), Checked(approval.reviewer_id),
                          Checked(approval.comment), Millis(approval.decided_at)),
          "review", review.id);
    });
  }

  void PutVersion(const DocumentVersion& v) override {
    Work().Run("put version of document", v.document_id, [&](pqxx::work& w) {
      w.exec_prepared(kInsertVersion.name, v.document_id, v.version, Checked(v.title),
                      Checked(v.content), Checked(v.edited_by), Millis(v.created_at));
      w.exec_prepared(kRecordEditor.name, v.document_id, Checked(v.edited_by), v.version);
      w.exec_prepared(kInsertVersionEditor.name, v.document_id, v.version, Checked(v.edited_by));
    });
  }

  bool DropUnsubmittedVersion(DocumentId id, std::int32_t version) override {
    return Work().Run("drop unsubmitted version of document", id, [&](pqxx::work& w) {
      return w.exec_prepared(kDropUnsubmittedVersion.name, id, version).affected_rows() == 1;
    });
  }

  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version) override {
    return Work().Run("list editors of document", id, [&](pqxx::work& w) {
      return All<UserId>(w.exec_prepared(kSelectEditors.name, id, after_version), ToText);
    });
  }

  // Held until the next statement, which sends it: UpdateReview of the same review in the same
  // statement (the approval that decides it), any other before itself.
  void AddApproval(ReviewId id, const Approval& approval) override {
    Work();
    pending_approval_.emplace(id, approval);
  }

  void AddAssignee(ReviewId id, const UserId& reviewer, const UserId& by, TimePoint at) override {
    Work().Run("assign a reviewer to review", id, [&](pqxx::work& w) {
      w.exec_prepared(kInsertAssignee.name, id, Checked(reviewer), Checked(by), Millis(at));
    });
  }

  bool RemoveAssignee(ReviewId id, const UserId& reviewer) override {
    return Work().Run("unassign a reviewer of review", id, [&](pqxx::work& w) {
      return w.exec_prepared(kDeleteAssignee.name, id, Checked(reviewer)).affected_rows() == 1;
    });
  }

  std::int64_t InsertComment(const ReviewComment& c) override {
    return Work().Run("comment on review", c.review_id, [&](pqxx::work& w) {
      return w
          .exec_prepared(kInsertComment.name, c.review_id, c.document_version, Checked(c.author_id),
                         Checked(c.body), c.line, c.parent_id, Millis(c.created_at))[0][0]
          .as<std::int64_t>();
    });
  }

  std::optional<ReviewComment> ReadComment(std::int64_t id) override {
    return Work().Run("read comment", id, [&](pqxx::work& w) {
      return First<ReviewComment>(w.exec_prepared(kSelectComment.name, id), ToComment);
    });
  }

  void AppendEvent(const OutboxEvent& event) override { PgOutboxStore::Append(Work(), event); }

  void CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                 const std::string& owner, const std::string& response,
                                 TimePoint expires_at) override {
    PgIdempotencyStore::Complete(Work(), caller, key, owner, response, expires_at);
  }

  void Commit() override { Work().Commit(); }

 private:
  // The transaction's connection for the next statement, an approval held by AddApproval sent
  // first. Every statement but UpdateReview's fold of that approval goes through here.
  PgWork& Work() {
    if (pending_approval_) {
      // Named members, not a structured binding: clang 14 (the fuzz build) cannot capture one.
      const ReviewId id = pending_approval_->first;
      const Approval approval = std::move(pending_approval_->second);
      pending_approval_.reset();
      work_.Run("add approval to review", id, [&](pqxx::work& w) {
        w.exec_prepared(kInsertApproval.name, id, Checked(approval.reviewer_id),
                        Checked(approval.comment), Millis(approval.decided_at));
      });
    }
    return work_;
  }

  static void ExpectOneRow(const pqxx::result& result, const char* table, std::int64_t id) {
    if (result.affected_rows() != 1) {
      throw StorageError("postgres: no " + std::string(table) + " " + std::to_string(id) +
                         " to update");
    }
  }

  PgWork work_;
  std::optional<std::pair<ReviewId, Approval>> pending_approval_;
};

}  // namespace

std::unique_ptr<StoreTransaction> BeginPgStoreTransaction(PgSession& session) {
  return session.Begin<PgTransaction>();
}

}  // namespace docgate
