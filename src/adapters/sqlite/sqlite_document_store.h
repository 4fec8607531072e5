#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/document_store.h"
#include "app/ports/store_transaction.h"

namespace docgate {

class SqliteSession;
class SqliteWork;

// DocumentStore on one SQLite file in WAL mode (readers never wait for the writer), over a
// SqliteSession shared with the file's other stores; its SQL is in sqlite_document_sql.h, its
// transaction in sqlite_store_transaction.cpp.
//
// Writes: one at a time, as SQLite allows. Begin() waits, in arrival order, for the process's
// writer slot and a pooled connection, then runs BEGIN IMMEDIATE, which holds the database's write
// lock until Commit or the transaction's destruction; Lock* and Read* are plain SELECTs under it.
// The transaction is composed of the ports' writers on that one SqliteWork: the documents' (here),
// SqliteOutboxStore::Append and SqliteIdempotencyStore::Complete. Reads outside a transaction run
// in autocommit on any pooled connection and see committed data; a review is read with a second
// statement for its approvals and assignees (one for a whole page), so an approval committed
// between the two may show beside the review row read before it. Each wait is bounded by
// busy_timeout; running out throws StorageUnavailable, as do I/O errors, a full disk and a file
// that cannot be opened. Constraint violations (a second pending review for a document, a duplicate
// event_id, content for a version that already has it, a row for a missing document or review,
// required_approvals outside 1..10, a second approval or assignment of a review by one reviewer, a
// reply to a missing comment) and unreadable rows throw StorageError.
//
// Thread-safe. The store must outlive every transaction it hands out.
class SqliteDocumentStore final : public DocumentStore {
 public:
  explicit SqliteDocumentStore(std::shared_ptr<SqliteSession> session);

  // The documents' part of a consumer transaction (SqliteInboxStore's), in its SqliteWork: the row
  // locked (BEGIN IMMEDIATE holds every row), a version's content, the ingest status (StorageError
  // for a missing document).
  static std::optional<Document> LockDocumentIn(SqliteWork& work, DocumentId id);
  static std::optional<std::string> ReadContentIn(SqliteWork& work, DocumentId id,
                                                  std::int32_t version);
  static void SetIngestStatusIn(SqliteWork& work, DocumentId id, IngestStatus status);

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
  bool Ping() override;  // the session's

 private:
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
