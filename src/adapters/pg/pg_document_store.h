#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/pg/pg_config.h"
#include "adapters/pg/pg_statements.h"
#include "app/chunk_index.h"
#include "app/document_store.h"
#include "app/inbox_store.h"
#include "app/pool_stats.h"
#include "app/preview_store.h"
#include "app/stores.h"

namespace docgate {

class PgChunkIndex;
class PgIdempotencyStore;
class PgInboxStore;
class PgOutboxStore;
class PgPreviewStore;
class PgSession;
class PgWork;

// DocumentStore, OutboxStore, IdempotencyStore, InboxStore, PreviewStore and ChunkIndex on PostgreSQL (libpqxx), schema in
// migrations/postgres.
//
// Transactions: Begin() takes a pooled connection and opens a READ COMMITTED transaction on it,
// held until Commit (which gives the connection back at once, whatever its outcome) or the
// transaction's destruction (which rolls back and never throws). LockReview/LockDocument are SELECT
// ... FOR UPDATE, so a second transaction locking the same row waits for the first to end and then
// sees its committed state; ReadDocument/ReadContent and every read outside a transaction take no
// row locks. Each statement, row-lock waits included, is bounded by statement_timeout; the wait for
// a pooled connection by pool_wait_timeout; opening one by connect_timeout.
//
// Outbox: PgOutboxStore (pg_outbox_store.h) on this store's session, which this class forwards to.
//
// Errors: StorageUnavailable when PostgreSQL cannot serve (unreachable within connect_timeout,
// connection lost, shutdown, too many connections, statement timeout, serialization failure or
// deadlock, a commit whose outcome is unknown, no free connection in time); StorageError for
// everything else (constraint violations: a second pending review for a document, a duplicate
// event_id, content for a version that already has it, a review or content of a missing document; a
// missing row to update; malformed rows; text containing NUL, which PostgreSQL cannot store; use of
// a transaction after Commit). A connection that broke is closed, never handed out again; the next
// call opens a fresh one, so the store recovers by itself when the server is back.
//
// Consumers: BeginConsumer() is a transaction like Begin(); its LockDocument is SELECT ... FOR
// UPDATE. Claim is INSERT ... ON CONFLICT on the inbox's primary key: a concurrent claim of the
// same (consumer, event_id) waits for the first transaction to end, then sees kDone if it
// committed, or claims the pair itself (kNew) if it rolled back. Requeue wakes the relays through
// the outbox's NOTIFY trigger, which fires for the upsert as for any insert. Previews and search:
// PgPreviewStore and PgChunkIndex, which this class forwards to.
//
// Thread-safe. The store must outlive every transaction it hands out.
class PgDocumentStore final : public DocumentStore,
                              public OutboxStore,
                              public IdempotencyStore,
                              public InboxStore,
                              public PreviewStore,
                              public ChunkIndex {
 public:
  // Applies pending migrations (see Migrate); pooled connections are opened on demand. Throws
  // StorageUnavailable for an invalid config or URL and when the server cannot be reached (the
  // message names host, port and database and libpq's reason, never the password), StorageError for
  // a schema it refuses (written by a newer docgate) or a migration that fails.
  explicit PgDocumentStore(PgConfig config);
  // On a session the database's other stores share (OpenPgStores); `session` must have prepared
  // PgStatementsOfEveryStore().
  explicit PgDocumentStore(std::shared_ptr<PgSession> session);
  PgDocumentStore(const PgDocumentStore&) = delete;
  PgDocumentStore& operator=(const PgDocumentStore&) = delete;
  ~PgDocumentStore() override;

  // The documents' part of a consumer transaction (PgInboxStore's), in its PgWork: the row locked
  // FOR UPDATE, a version's content, the ingest status (StorageError for a missing document).
  static std::optional<Document> LockDocumentIn(PgWork& work, DocumentId id);
  static std::optional<std::string> ReadContentIn(PgWork& work, DocumentId id,
                                                  std::int32_t version);
  static void SetIngestStatusIn(PgWork& work, DocumentId id, IngestStatus status);

  // The connection pool's occupancy, for metrics. Thread-safe, no I/O.
  PoolStats pool_stats() const;

  // `docgate migrate`: applies migrations/postgres in one transaction under a PostgreSQL advisory
  // lock, so that instances starting together migrate exactly once. Throws like the constructor.
  static void Migrate(const PgConfig& config);

  std::unique_ptr<StoreTransaction> Begin() override;
  std::optional<Document> FindDocument(DocumentId id) override;
  std::optional<Review> FindReview(ReviewId id) override;
  std::optional<std::string> FindContent(DocumentId id, std::int32_t version) override;
  std::vector<Document> ListDocuments(const DocumentQuery& query) override;
  std::vector<Review> ListReviews(const ReviewQuery& query) override;
  std::vector<Review> ListDocumentReviews(DocumentId id) override;
  // SELECT 1; false on any failure, never throws (DocumentStore's and PreviewStore's readiness). Waits for a pooled connection at most the shorter
  // of pool_wait_timeout and connect_timeout.
  bool Ping() override;

  std::vector<OutboxEvent> ClaimPending(int limit) override;
  // Unknown sequences are ignored; an event already delivered keeps its first delivery time.
  void MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) override;
  // Only rows this instance still claims are deferred.
  void Defer(const std::vector<std::int64_t>& sequences, std::chrono::milliseconds delay,
             std::chrono::milliseconds max_delay, std::string_view reason) override;
  void ReleaseClaims() override;
  int RenewClaims() override;
  int PruneDelivered(TimePoint cutoff, int limit) override;
  OutboxBacklog Backlog() override;

  // Forwarded to PgIdempotencyStore (pg_idempotency_store.h).
  std::optional<IdempotencyRecord> ReserveIdempotencyKey(const std::string& caller,
                                                         const std::string& key,
                                                         const std::string& fingerprint,
                                                         const std::string& owner, TimePoint now,
                                                         TimePoint lease_until) override;
  bool CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                 const std::string& owner, const std::string& response,
                                 TimePoint expires_at) override;
  void ReleaseIdempotencyKey(const std::string& caller, const std::string& key,
                             const std::string& owner) override;
  int PruneIdempotencyKeys(TimePoint now, int limit) override;

  std::unique_ptr<ConsumerTransaction> BeginConsumer() override;
  // RecordFailure is one upsert on the inbox's primary key, so concurrent failures of one pair each
  // count. RecordFailure and Unpark run in a transaction of their own, tried once more on a fresh
  // connection only when the connection broke before COMMIT (nothing was committed); a connection
  // lost during COMMIT is StorageUnavailable "outcome unknown", never a second run. The others are
  // autocommit statements, reads or writes that change nothing more when run twice, tried once
  // more on a fresh connection when a pooled one turns out dead.
  ConsumerFailure RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                std::string_view error, int max_attempts, TimePoint at) override;
  std::vector<ParkedEvent> ListParked(int limit) override;
  std::vector<OutboxEvent> Unpark(const std::optional<std::string>& event_id) override;
  void Requeue(const OutboxEvent& event) override;
  std::vector<OutboxEvent> FindStuckIngestions(TimePoint delivered_before, int limit) override;
  int PruneInbox(TimePoint cutoff, int limit) override;
  // A consumer transaction of its own (BeginConsumer) holding the version-guarded upsert.
  bool Project(const PreviewRecord& record) override;
  std::optional<PreviewRecord> Find(DocumentId id) override;
  std::vector<SearchHit> Search(const std::string& query, int limit) override;
  std::vector<std::string> ListChunks(DocumentId id) override;

 private:
  std::shared_ptr<PgSession> session_;  // config, instance token, pool (pg_session.h)
  std::unique_ptr<PgOutboxStore> outbox_;
  std::unique_ptr<PgIdempotencyStore> idempotency_;
  std::unique_ptr<PgPreviewStore> previews_;
  std::unique_ptr<PgChunkIndex> chunks_;
  std::unique_ptr<PgInboxStore> inbox_;
};

// Every statement the PostgreSQL stores run, for their shared PgSession to prepare.
std::vector<pg_sql::Statement> PgStatementsOfEveryStore();

// The Stores of a PostgreSQL database: one object per port (PgDocumentStore, PgOutboxStore,
// PgIdempotencyStore, PgInboxStore, PgPreviewStore, PgChunkIndex) on one PgSession, so one pool
// and one instance (outbox claims of its own). Throws like PgDocumentStore's constructor.
Stores OpenPgStores(PgConfig config);

}  // namespace docgate
