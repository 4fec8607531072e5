#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/clock.h"
#include "app/chunk_index.h"
#include "app/document_store.h"
#include "app/inbox_store.h"
#include "app/preview_store.h"

namespace docgate {

// The in-memory DocumentStore/OutboxStore, faithful to the SQLite one (the contract suite runs
// against both): Begin() takes the one writer slot for the transaction's lifetime (BEGIN
// IMMEDIATE), waiting at most `lock_timeout` before StorageUnavailable; the transaction works on a
// copy of the data that Commit swaps in, so a rolled-back transaction leaves nothing behind.
// Reads outside transactions see the last commit. The rules the database enforces are enforced
// here with StorageError: one pending review per document, reviews and content only for existing
// documents, content of a version written once, unique event ids, updates of existing rows only.
//
// The inbox, preview and chunk ports work the same way: BeginConsumer() (and Project, in one of its
// own) is a write transaction like Begin() (the same writer slot, the same copy-and-swap), so
// claims serialise as on SQLite; previews and chunks of a missing document are StorageError like
// the databases' foreign keys.
//
// Its full-text search is a stand-in for the engines' and differs from them: a word is a run of
// ASCII letters and digits and of non-ASCII code points outside U+2000..U+2BFF and below U+1F000
// (a crude "letter": no Unicode tables), compared lower-cased (ASCII only) after crude suffix
// stripping ("reviews",
// "reviewed", "reviewing" -> "review"; nothing like Porter's rules); every query word must occur
// in the chunk's title or content; the score is the number of occurrences, those in the title
// counted 2.5 times (no length normalisation, no rarity); the snippet is the content from a few
// words before the first match, at most about 240 bytes, plain text. There are no stop words, as
// on SQLite.
//
// Outbox claims are the databases': a claim lasts `claim_ttl` on `claim_clock` (the databases use
// their own clocks; a test moves this one by hand), and AnotherInstance() is a second relay's
// OutboxStore on the same data with claims of its own. Retry times stay on the system clock.
//
// Faults are injected through the interface: FailNextBegin/FailNextCommit throw
// StorageUnavailable once (BeginConsumer and the consumer transaction's Commit included);
// SetUnavailable(true) makes every call throw it (Ping answers false) until SetUnavailable(false).
// Thread-safe.
class FakeDocumentStore final : public DocumentStore,
                                public OutboxStore,
                                public IdempotencyStore,
                                public InboxStore,
                                public PreviewStore,
                                public ChunkIndex {
 public:
  class Instance;

  // Claims on the system clock.
  explicit FakeDocumentStore(std::chrono::milliseconds lock_timeout = std::chrono::seconds(5));
  // `claim_clock` must outlive the store.
  FakeDocumentStore(Clock& claim_clock, std::chrono::milliseconds claim_ttl);
  ~FakeDocumentStore() override;

  void FailNextBegin();
  void FailNextCommit();
  void SetUnavailable(bool unavailable);

  std::unique_ptr<StoreTransaction> Begin() override;
  std::optional<Document> FindDocument(DocumentId id) override;
  std::optional<Review> FindReview(ReviewId id) override;
  std::optional<std::string> FindContent(DocumentId id, std::int32_t version) override;
  std::vector<Document> ListDocuments(const DocumentQuery& query) override;
  std::vector<Review> ListReviews(const ReviewQuery& query) override;
  std::vector<Review> ListDocumentReviews(DocumentId id) override;
  bool Ping() override;

  // Like the databases': each waits for the writer slot; only rows this instance still claims are
  // deferred; an event already delivered keeps its first delivery time.
  std::vector<OutboxEvent> ClaimPending(int limit) override;
  void MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) override;
  void Defer(const std::vector<std::int64_t>& sequences, std::chrono::milliseconds delay,
             std::chrono::milliseconds max_delay, std::string_view reason) override;
  void ReleaseClaims() override;
  int RenewClaims() override;
  int PruneDelivered(TimePoint cutoff, int limit) override;
  OutboxBacklog Backlog() override;

  // Writes like any other: each waits for the writer slot.
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
  ConsumerFailure RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                std::string_view error, int max_attempts, TimePoint at) override;
  std::vector<ParkedEvent> ListParked(int limit) override;
  std::vector<OutboxEvent> Unpark(const std::optional<std::string>& event_id) override;
  // Wakes nobody: the in-process caller wakes the relay, as with SQLite.
  void Requeue(const OutboxEvent& event) override;
  std::vector<OutboxEvent> FindStuckIngestions(TimePoint delivered_before, int limit) override;
  int PruneInbox(TimePoint cutoff, int limit) override;
  // A consumer transaction of its own (BeginConsumer) holding the version-guarded write.
  bool Project(const PreviewRecord& record) override;
  std::optional<PreviewRecord> Find(DocumentId id) override;
  std::vector<SearchHit> Search(const std::string& query, int limit) override;
  std::vector<std::string> ListChunks(DocumentId id) override;

  // Idempotency records stored, live or expired (for tests).
  std::size_t IdempotencyKeyCount();
  // Inbox rows stored, in any state (for tests).
  std::size_t InboxRowCount();

  // Every event ever appended and not pruned, delivered or not, in sequence order (for tests).
  std::vector<OutboxEvent> AllEvents();

  // Another relay's OutboxStore on this store's data, as a second process on the same database.
  // Must not outlive this store.
  std::unique_ptr<Instance> AnotherInstance();

 private:
  class Write;
  class Transaction;
  class ConsumerTx;

  // The tables: what a commit swaps in.
  struct Data {
    struct OutboxRow {
      OutboxEvent event;
      std::optional<TimePoint> delivered_at;
      int attempts = 0;
      std::chrono::system_clock::time_point next_attempt_at{};
      std::string last_error;
      std::string claimed_by;                  // an instance's token; empty: unclaimed
      std::optional<TimePoint> claimed_until;  // on the claim clock
    };
    std::map<DocumentId, Document> documents;
    std::map<ReviewId, Review> reviews;
    std::map<std::pair<DocumentId, std::int32_t>, std::string> contents;
    std::map<std::pair<DocumentId, std::int32_t>, UserId>
        editors; // who wrote each version
    std::map<std::int64_t, OutboxRow> outbox;
    struct IdempotencyRow {
      IdempotencyRecord record;
      std::string owner;
    };
    std::map<std::pair<std::string, std::string>, IdempotencyRow> idempotency;  // (caller, key)
    enum class InboxRowState { kFailing, kDone, kParked };
    struct InboxRow {
      InboxRowState state = InboxRowState::kDone;
      int attempts = 0;
      std::string last_error;
      TimePoint updated_at{};
      std::optional<OutboxEvent> event;  // kept by a failure; a claim alone knows none
    };
    std::map<std::pair<std::string, std::string>, InboxRow> inbox;  // (consumer, event_id)
    std::map<DocumentId, PreviewRecord> previews;
    struct Chunks {
      std::int32_t version = 0;
      std::string title;
      std::vector<std::string> contents;
    };
    std::map<DocumentId, Chunks> chunks;
    DocumentId last_document_id = 0;
    ReviewId last_review_id = 0;
    std::int64_t last_sequence = 0;
  };

  // The OutboxStore calls on behalf of the instance whose claims carry `token`; `cut_off` is that
  // instance's own outage switch (SetUnavailable of an Instance).
  std::vector<OutboxEvent> ClaimPendingFor(const std::string& token, int limit);
  void DeferFor(const std::string& token, const std::vector<std::int64_t>& sequences,
                std::chrono::milliseconds delay, std::chrono::milliseconds max_delay,
                std::string_view reason);
  void ReleaseClaimsOf(const std::string& token);
  int RenewClaimsOf(const std::string& token);

  // Require mutex_ held through `lock`.
  void ThrowIfUnavailable() const;
  void AwaitWriterSlot(std::unique_lock<std::mutex>& lock);
  // Begin/BeginConsumer: throws an injected failure, or takes the writer slot and returns the
  // copy of the data the transaction works on.
  Data StartWrite();
  // The approval event of a document's approved version whose ingestion is not done: kept by
  // PruneDelivered.
  static bool AwaitsIngestion(const Data& data, const OutboxEvent& event);
  // Called by the transaction: Commit throws an injected failure or swaps `data` in; EndWrite
  // ends the writer's turn (commit or rollback).
  void Commit(Data& data);
  void EndWrite();
  // Completes `owner`'s in-flight record in `data`; false when there is none.
  static bool CompleteIn(Data& data, const std::string& caller, const std::string& key,
                         const std::string& owner, const std::string& response,
                         TimePoint expires_at);

  const std::chrono::milliseconds lock_timeout_;
  std::unique_ptr<Clock> system_clock_;  // the claim clock unless one was given
  Clock& claim_clock_;
  const std::chrono::milliseconds claim_ttl_;
  const std::string token_ = "fake-instance-0";
  int instances_ = 0;  // guarded by mutex_
  std::mutex mutex_;
  std::condition_variable writer_done_;
  bool writer_active_ = false;
  bool fail_next_begin_ = false;
  bool fail_next_commit_ = false;
  bool unavailable_ = false;
  Data data_;
};

// A second relay's view of a FakeDocumentStore (AnotherInstance): the outbox with claims of its
// own. SetUnavailable(true) cuts this instance alone off (every call throws StorageUnavailable), as
// a killed or partitioned process, while the store and its other instances go on. Thread-safe.
class FakeDocumentStore::Instance final : public OutboxStore {
 public:
  Instance(FakeDocumentStore& store, std::string token) : store_(store), token_(std::move(token)) {}

  void SetUnavailable(bool unavailable) { cut_off_ = unavailable; }

  std::vector<OutboxEvent> ClaimPending(int limit) override;
  void MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) override;
  void Defer(const std::vector<std::int64_t>& sequences, std::chrono::milliseconds delay,
             std::chrono::milliseconds max_delay, std::string_view reason) override;
  void ReleaseClaims() override;
  int RenewClaims() override;
  int PruneDelivered(TimePoint cutoff, int limit) override;
  OutboxBacklog Backlog() override;
  void Requeue(const OutboxEvent& event) override;
  std::vector<OutboxEvent> FindStuckIngestions(TimePoint delivered_before, int limit) override;

 private:
  void ThrowIfCutOff() const;

  FakeDocumentStore& store_;
  const std::string token_;
  std::atomic<bool> cut_off_{false};
};

}  // namespace docgate
