#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/ports/document_store.h"
#include "app/ports/store_transaction.h"
#include "fakes/fake_database.h"

namespace docgate {

// DocumentStore on a FakeDatabase (fake_database.h: transactions, faults), shared with the
// database's other fakes. Begin() is a FakeTransaction composed of the ports' writers: the
// documents' (FakeDocumentWriter), the outbox's (FakeOutboxWriter) and the idempotency keys'
// (FakeIdempotencyWriter). The rules the database enforces are enforced with StorageError: one
// pending review per document, reviews and versions only for existing documents, 1..10 required
// approvals, approvals only of existing reviews and one per reviewer (assignees likewise), comments
// only of existing reviews with an existing parent, a version written once, unique event ids,
// updates of existing rows only. Ping answers the database's Ping. Thread-safe; it must outlive
// every transaction it hands out.
class FakeDocumentStore final : public DocumentStore {
 public:
  explicit FakeDocumentStore(std::shared_ptr<FakeDatabase> database);

  std::unique_ptr<StoreTransaction> Begin() override;
  std::optional<Document> FindDocument(DocumentId id) override;
  std::optional<Review> FindReview(ReviewId id) override;
  std::optional<std::string> FindContent(DocumentId id, std::int32_t version) override;
  std::optional<DocumentWithContent> FindDocumentWithContent(DocumentId id) override;
  std::optional<DocumentVersion> FindVersion(DocumentId id, std::int32_t version) override;
  std::vector<VersionSummary> ListVersions(const VersionQuery& query) override;
  std::vector<std::pair<std::int32_t, UserId>> ListVersionEditors(DocumentId id,
                                                                  std::int32_t from_version,
                                                                  std::int32_t to_version) override;
  std::vector<Document> ListDocuments(const DocumentQuery& query) override;
  std::vector<QueuedReview> ListReviews(const ReviewQuery& query) override;
  std::vector<Review> ListDocumentReviews(const DocumentReviewQuery& query) override;
  std::vector<ReviewComment> ListComments(const CommentQuery& query) override;
  bool Ping() override;

 private:
  std::shared_ptr<FakeDatabase> database_;
};

// The documents' part of a transaction (StoreTransaction's, and a consumer transaction's
// LockDocument, ReadContent and SetIngestStatus), on the transaction's copy of the tables. A row
// "locked" is only read: the transaction holds the one writer slot.
class FakeDocumentWriter {
 public:
  explicit FakeDocumentWriter(FakeTransaction& tx) : tx_(tx) {}

  std::optional<Review> LockReview(ReviewId id);
  std::optional<Document> ReadDocument(DocumentId id);
  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version);
  DocumentId InsertDocument(const Document& doc);
  ReviewId InsertReview(const Review& review);
  void UpdateDocument(const Document& doc);
  void UpdateReview(const Review& review);
  void AddApproval(ReviewId id, const Approval& approval);
  void AddAssignee(ReviewId id, const UserId& reviewer, TimePoint at);
  bool RemoveAssignee(ReviewId id, const UserId& reviewer);
  std::int64_t InsertComment(const ReviewComment& comment);
  std::optional<ReviewComment> ReadComment(std::int64_t id);
  void PutVersion(const DocumentVersion& version);
  bool DropUnsubmittedVersion(DocumentId id, std::int32_t version);
  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version);
  // StorageError for a missing document.
  void SetIngestStatus(DocumentId id, IngestStatus status);

 private:
  FakeTransaction& tx_;
};

}  // namespace docgate
