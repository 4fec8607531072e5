#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/ports/store_transaction.h"
#include "core/model.h"

namespace docgate {

// Newest first (descending id); `before` is the exclusive cursor.
struct DocumentQuery {
  std::optional<DocumentStatus> status;
  std::optional<UserId> author_id;
  std::optional<DocumentId> before;
  int limit = 20;
};

// Oldest first (ascending id); `after` is the exclusive cursor.
struct ReviewQuery {
  std::optional<ReviewStatus> status;
  std::optional<UserId> assignee;  // only the reviews assigned to this reviewer
  std::optional<ReviewId> after;
  int limit = 20;
};

// One document's kept versions, newest first (descending version); `before` is the exclusive
// cursor.
struct VersionQuery {
  DocumentId document_id = 0;
  std::optional<std::int32_t> before;
  int limit = 20;
};

// One document's reviews, newest first (descending id); `before` is the exclusive cursor.
struct DocumentReviewQuery {
  DocumentId document_id = 0;
  std::optional<ReviewId> before;
  int limit = 20;
};

// One review's comments, oldest first (ascending id); `after` is the exclusive cursor.
struct CommentQuery {
  ReviewId review_id = 0;
  std::optional<std::int64_t> after;
  int limit = 20;
};

// A review of the queue with the current title of its document, read in the same statement.
struct QueuedReview {
  Review review;
  std::string title;

  bool operator==(const QueuedReview&) const = default;
};

// The system of record for documents, their content versions, reviews and the outbox.
// Thread-safe: any number of threads may call it; it bounds concurrency by its connection count
// and waits at most its configured timeout for a connection or a lock before throwing
// StorageUnavailable. Reads take no row locks.
class DocumentStore {
 public:
  virtual ~DocumentStore() = default;

  virtual std::unique_ptr<StoreTransaction> Begin() = 0;

  virtual std::optional<Document> FindDocument(DocumentId id) = 0;
  virtual std::optional<Review> FindReview(ReviewId id) = 0;
  virtual std::optional<std::string> FindContent(DocumentId id, std::int32_t version) = 0;
  // The document with the content of its current version, read as one snapshot: an edit that
  // commits meanwhile is seen whole or not at all (nullopt: no such document).
  virtual std::optional<DocumentWithContent> FindDocumentWithContent(DocumentId id) = 0;
  // FindDocument and FindContent(id, version) together for each (id, version) of `wanted`, in its
  // order (nullopt: no such document). A store may read them all in one round trip; this one
  // calls the two for each.
  virtual std::vector<std::optional<DocumentWithContent>> FindDocumentsWithContent(
      const std::vector<std::pair<DocumentId, std::int32_t>>& wanted);
  // One kept version, or nullopt when it does not exist or was dropped.
  virtual std::optional<DocumentVersion> FindVersion(DocumentId id, std::int32_t version) = 0;
  // At most query.limit kept versions of one document, each with its newest review.
  virtual std::vector<VersionSummary> ListVersions(const VersionQuery& query) = 0;
  // (version, editor) for each kept version of `id` from `from_version` to `to_version`, newest
  // version first: everyone who wrote it since the kept version before it (the drafts it replaced
  // included), each once, in the order they first wrote.
  virtual std::vector<std::pair<std::int32_t, UserId>> ListVersionEditors(
      DocumentId id, std::int32_t from_version, std::int32_t to_version) = 0;
  // At most query.limit rows.
  virtual std::vector<Document> ListDocuments(const DocumentQuery& query) = 0;
  // At most query.limit reviews, each with its document's title.
  virtual std::vector<QueuedReview> ListReviews(const ReviewQuery& query) = 0;
  // At most query.limit reviews of one document.
  virtual std::vector<Review> ListDocumentReviews(const DocumentReviewQuery& query) = 0;
  // At most query.limit comments of one review.
  virtual std::vector<ReviewComment> ListComments(const CommentQuery& query) = 0;

  // True when the database answers a trivial query (readiness).
  virtual bool Ping() = 0;
};

}  // namespace docgate
