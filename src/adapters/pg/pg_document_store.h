#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/ports/document_store.h"
#include "app/ports/store_transaction.h"

namespace docgate {

class PgSession;
class PgWork;

// DocumentStore on PostgreSQL (libpqxx): documents, reviews and every version's content, schema in
// migrations/postgres. Its transaction writes the outbox row and completes the Idempotency-Key
// through the outbox's and the idempotency store's writers (PgOutboxStore::Append,
// PgIdempotencyStore::Complete) in the same database transaction; it knows no table of theirs.
//
// Transactions: Begin() takes a pooled connection and opens a READ COMMITTED transaction on it,
// held until Commit (which gives the connection back at once, whatever its outcome) or the
// transaction's destruction (which rolls back and never throws). LockReview/LockDocument are SELECT
// ... FOR UPDATE, so a second transaction locking the same row waits for the first to end and then
// sees its committed state; ReadDocument/ReadContent and every read outside a transaction take no
// row locks. A review is read with its approvals and assignees in one statement (one snapshot),
// for a page of reviews as for one.
// Each statement, row-lock waits included, is bounded by statement_timeout; the wait for a pooled
// connection by pool_wait_timeout; opening one by connect_timeout.
//
// Errors: StorageUnavailable when PostgreSQL cannot serve (unreachable within connect_timeout,
// connection lost, shutdown, too many connections, statement timeout, serialization failure or
// deadlock, a commit whose outcome is unknown, no free connection in time); StorageError for
// everything else (constraint violations: a second pending review for a document, a duplicate
// event_id, content for a version that already has it, a review or content of a missing document,
// required_approvals outside 1..10, a second approval or assignment of a review by one reviewer, an
// approval, assignment or comment of a missing review, a reply to a missing comment; a missing row
// to update; malformed rows; text containing NUL, which PostgreSQL cannot store; use of a
// transaction after Commit). A connection that broke is closed, never handed out again; the next
// call opens a fresh one, so the store recovers by itself when the server is back.
//
// Built by OpenPgStores (pg_stores.h). Thread-safe. The store must outlive every transaction it
// hands out.
class PgDocumentStore final : public DocumentStore {
 public:
  // `session` must have prepared Statements() (OpenPgStores prepares every store's).
  explicit PgDocumentStore(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the shared session to prepare.
  static std::span<const pg_sql::Statement> Statements();

  // The documents' part of a consumer transaction (PgInboxStore's), in its PgWork: the row locked
  // FOR UPDATE, a version's content, the ingest status (StorageError for a missing document).
  static std::optional<Document> LockDocumentIn(PgWork& work, DocumentId id);
  static std::optional<std::string> ReadContentIn(PgWork& work, DocumentId id,
                                                  std::int32_t version);
  static std::optional<DocumentWithContent> LockDocumentWithContentIn(PgWork& work, DocumentId id,
                                                                      std::int32_t version);
  static void SetIngestStatusIn(PgWork& work, DocumentId id, IngestStatus status);

  std::unique_ptr<StoreTransaction> Begin() override;
  std::optional<Document> FindDocument(DocumentId id) override;
  std::optional<Review> FindReview(ReviewId id) override;
  std::optional<std::string> FindContent(DocumentId id, std::int32_t version) override;
  std::optional<DocumentWithContent> FindDocumentWithContent(DocumentId id) override;
  std::vector<std::optional<DocumentWithContent>> FindDocumentsWithContent(
      const std::vector<std::pair<DocumentId, std::int32_t>>& wanted) override;
  std::optional<DocumentVersion> FindVersion(DocumentId id, std::int32_t version) override;
  std::vector<VersionSummary> ListVersions(const VersionQuery& query) override;
  std::vector<std::pair<std::int32_t, UserId>> ListVersionEditors(DocumentId id,
                                                                  std::int32_t from_version,
                                                                  std::int32_t to_version) override;
  std::vector<Document> ListDocuments(const DocumentQuery& query) override;
  std::vector<QueuedReview> ListReviews(const ReviewQuery& query) override;
  std::vector<Review> ListDocumentReviews(const DocumentReviewQuery& query) override;
  std::vector<ReviewComment> ListComments(const CommentQuery& query) override;
  // SELECT 1; false on any failure, never throws. Waits for a pooled connection at most the
  // shorter of pool_wait_timeout and connect_timeout.
  bool Ping() override;

 private:
  std::shared_ptr<PgSession> session_;  // config, instance token, pool (pg_session.h)
};

}  // namespace docgate
