#pragma once

#include <chrono>
#include <filesystem>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/chunk_index.h"
#include "app/document_store.h"
#include "app/inbox_store.h"
#include "app/pool_stats.h"
#include "app/preview_store.h"
#include "app/stores.h"

namespace docgate {

class SqliteConnectionPool;

// Below this much free space on the database's file system, the store reports itself not ready.
inline constexpr std::uintmax_t kMinFreeDiskBytes = 4 * 1024 * 1024;

struct SqliteConfig {
  std::string path = "./data/docgate.db";        // file; its directory is created if missing
  int pool_size = 4;                             // connections; bounds concurrency
  std::chrono::milliseconds busy_timeout{5000};  // sqlite3_busy_timeout and the wait for a free
                                                 // pooled connection (and for the writer slot)
  // How long claimed outbox rows stay claimed after ClaimPending or RenewClaims.
  std::chrono::milliseconds outbox_claim_ttl{3000};
};

// DocumentStore, OutboxStore, IdempotencyStore, InboxStore, PreviewStore and ChunkIndex on one
// SQLite file in WAL mode
// (readers never wait for the writer).
//
// Writes: one at a time, as SQLite allows. Begin() waits, in arrival order, for the process's
// writer slot and a pooled connection, then runs BEGIN IMMEDIATE, which holds the database's write
// lock until Commit or the transaction's destruction; Lock* and Read* are plain SELECTs under it.
// Reads outside a transaction run in autocommit on any pooled connection and see committed data.
// Each wait is bounded by busy_timeout; running out throws StorageUnavailable, as do I/O errors,
// a full disk and a file that cannot be opened. Constraint violations (a second pending review
// for a document, a duplicate event_id, content for a version that already has it, a row for a
// missing document) and unreadable rows throw StorageError.
//
// Consumers: BeginConsumer() is a write transaction like Begin() (the writer slot, then BEGIN
// IMMEDIATE until Commit or destruction), so concurrent claims of one (consumer, event_id) run one
// after the other and the second sees the first's outcome. Full-text search is FTS5 over the
// chunks' title and content (external content, porter stemming on unicode61 words). The user's
// text is never FTS5 syntax: each of its words (SearchWords) becomes a quoted phrase, `"` doubled,
// and the phrases are ANDed, so operators, column filters, `*`, `^` and parentheses are matched as
// the words they contain and no input raises a syntax error; a word that holds no letter or digit
// matches anything. Hits are ranked by bm25 with the title weighted 2.5 times the content (the
// ratio of PostgreSQL's weights A and B), best first; the snippet is FTS5's snippet() of the
// chunk's content, up to 32 words around the matches, as plain text: no markers around the
// matched words and no ellipsis. Unlike PostgreSQL, stop words ("the", "and") are indexed and
// must match.
//
// Thread-safe. The store must outlive every transaction it hands out.
class SqliteDocumentStore final : public DocumentStore,
                                  public OutboxStore,
                                  public IdempotencyStore,
                                  public InboxStore,
                                  public PreviewStore,
                                  public ChunkIndex {
 public:
  // Opens the pool, turns on WAL, the busy timeout and foreign keys, and applies pending
  // migrations (recorded in schema_migrations). Throws StorageUnavailable with a message naming
  // the file and the cause when it cannot: unopenable path, not a database, not docgate's
  // database, or a schema written by a newer docgate.
  explicit SqliteDocumentStore(SqliteConfig config);
  SqliteDocumentStore(const SqliteDocumentStore&) = delete;
  SqliteDocumentStore& operator=(const SqliteDocumentStore&) = delete;
  ~SqliteDocumentStore() override;

  // The connection pool's occupancy, for metrics. Thread-safe, no I/O.
  PoolStats pool_stats() const;

  std::unique_ptr<StoreTransaction> Begin() override;
  std::optional<Document> FindDocument(DocumentId id) override;
  std::optional<Review> FindReview(ReviewId id) override;
  std::optional<std::string> FindContent(DocumentId id, std::int32_t version) override;
  std::vector<Document> ListDocuments(const DocumentQuery& query) override;
  std::vector<Review> ListReviews(const ReviewQuery& query) override;
  std::vector<Review> ListDocumentReviews(DocumentId id) override;
  // True when a query answers and the database's file system has at least kMinFreeDiskBytes free:
  // a full disk still serves reads but fails every write.
  bool Ping() override;

  // Claims, renewals, deferrals and releases take the writer slot and BEGIN IMMEDIATE, which
  // serialises them with every other writer, other processes on the same file included; their times
  // are on SQLite's clock.
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

  // Each takes the writer slot (a reservation with BEGIN IMMEDIATE), like every other write.
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
  // RecordFailure, Unpark and Requeue take the writer slot and BEGIN IMMEDIATE. Requeue wakes no
  // relay by itself: SQLite has no notifications, so the caller wakes the in-process relay as it
  // does after its own commits. Nothing is ever run twice: the file has no connection to lose, and
  // a busy database is waited for (busy_timeout) before a statement runs, not after.
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
  std::string instance_token_;  // claimed_by of this instance's outbox claims
  std::filesystem::path directory_;  // where the database file lives, for the free-space check
  std::chrono::milliseconds claim_ttl_;
  std::unique_ptr<SqliteConnectionPool> pool_;
};

// The Stores of one SQLite file (one instance: outbox claims of its own). Throws like
// SqliteDocumentStore's constructor.
Stores OpenSqliteStores(SqliteConfig config);

}  // namespace docgate
