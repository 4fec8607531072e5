#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model.h"

namespace docgate {

// One write transaction. Obtained from DocumentStore::Begin; rolled back by the destructor unless
// Commit succeeded. Not thread-safe: one request uses it at a time.
//
// Lock order, which every use case keeps so that concurrent transitions cannot deadlock: the review
// row first, then the document row. Lock* return the row as of the lock (SELECT ... FOR UPDATE on
// PostgreSQL; SQLite's BEGIN IMMEDIATE holds the whole database) or nullopt when it does not exist.
// Every method throws StorageUnavailable when the database cannot be reached and StorageError on
// anything else that went wrong below. After any throw the transaction is finished: the caller
// only destroys it (PostgreSQL aborts a transaction on a failed statement; SQLite would not, and
// the contract does not let callers tell the difference). Using it after Commit is a StorageError.
class StoreTransaction {
 public:
  virtual ~StoreTransaction() = default;

  virtual std::optional<Review> LockReview(ReviewId id) = 0;
  virtual std::optional<Document> LockDocument(DocumentId id) = 0;
  // Reads without locking: to learn which review to lock before locking the document.
  virtual std::optional<Document> ReadDocument(DocumentId id) = 0;
  // The working copy of `version`, or nullopt.
  virtual std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) = 0;

  // Inserts and returns the assigned id, greater than every id committed before; `doc.id` /
  // `review.id` are ignored.
  virtual DocumentId InsertDocument(const Document& doc) = 0;
  virtual ReviewId InsertReview(const Review& review) = 0;
  // Overwrites the mutable columns of an existing row identified by its id (StorageError if it
  // does not exist). A document's author_id and created_at never change; of a review only the
  // decision (status, decided_by, decided_at, comment) changes.
  virtual void UpdateDocument(const Document& doc) = 0;
  virtual void UpdateReview(const Review& review) = 0;
  // Stores one version (title and content as `version.edited_by` wrote them) and records its
  // editor as having written the document up to that version. Versions are never rewritten: a
  // version that is already stored is a StorageError.
  virtual void PutVersion(const DocumentVersion& version) = 0;
  // Deletes the stored `version` of `id` when no review was ever bound to it: a draft superseded
  // before it was submitted (API.md v1.1: storage grows with versions, not with edits). A
  // submitted, approved or rejected version is kept. Its editor stays recorded (ListEditors).
  // Returns whether it deleted one.
  virtual bool DropUnsubmittedVersion(DocumentId id, std::int32_t version) = 0;
  // Everyone who wrote a version of `id` after `after_version`, dropped versions included, each
  // once (in the database's collation order): at a decision (when the version under review is the
  // document's newest) these are the people four eyes keep from deciding it, with after_version the
  // approved one.
  virtual std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version) = 0;
  // Appends to the outbox; the event becomes visible to the relay at commit.
  virtual void AppendEvent(const OutboxEvent& event) = 0;
  // Completes the in-flight idempotency record of (caller, key) that reservation `owner` holds
  // (IdempotencyStore::ReserveIdempotencyKey) with `response`, kept until `expires_at`, as part of
  // this transaction: the record and the effect commit together or not at all. Throws StorageError
  // when no such in-flight record exists (its lease ran out and another request took the key over,
  // or it was released): the caller must then not commit the effect.
  virtual void CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                         const std::string& owner, const std::string& response,
                                         TimePoint expires_at) = 0;

  virtual void Commit() = 0;
};

struct OutboxBacklog {
  std::int64_t pending = 0;
  std::optional<TimePoint> oldest_occurred_at;
};

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
  std::optional<ReviewId> after;
  int limit = 20;
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
  // FindDocument and FindContent(id, version) together for each (id, version) of `wanted`, in its
  // order (nullopt: no such document). A store may read them all in one round trip; this one
  // calls the two for each.
  virtual std::vector<std::optional<DocumentWithContent>> FindDocumentsWithContent(
      const std::vector<std::pair<DocumentId, std::int32_t>>& wanted);
  // One kept version, or nullopt when it does not exist or was dropped.
  virtual std::optional<DocumentVersion> FindVersion(DocumentId id, std::int32_t version) = 0;
  // Every kept version of one document, newest first, each with its newest review.
  virtual std::vector<VersionSummary> ListVersions(DocumentId id) = 0;
  // At most query.limit rows.
  virtual std::vector<Document> ListDocuments(const DocumentQuery& query) = 0;
  virtual std::vector<Review> ListReviews(const ReviewQuery& query) = 0;
  // Every review of one document, newest first.
  virtual std::vector<Review> ListDocumentReviews(DocumentId id) = 0;

  // True when the database answers a trivial query (readiness).
  virtual bool Ping() = 0;
};

// A stored Idempotency-Key: what a request found under (caller, key).
struct IdempotencyRecord {
  std::string fingerprint;              // of the request that reserved the key
  std::optional<std::string> response;  // the stored response; nullopt while in flight
  TimePoint expires_at{};               // in flight: the lease's end; completed: created + TTL
};

// Idempotency keys per (caller, key), on the same database as the effects they guard, so that a
// request's record can be completed in the effect's own transaction
// (StoreTransaction::CompleteIdempotentRequest). A record is live while expires_at > now; an
// expired one counts as absent. Each reservation is identified by an `owner` token (random, from
// the caller), so that a request whose lease ran out can no longer complete or release a record
// another request has taken over. Times are the caller's clock (all instances on one database
// should have synchronised clocks; a skew shifts lease and TTL ends by as much).
// Thread-safe; several processes on one database may use it concurrently. Throws like
// DocumentStore (StorageUnavailable, StorageError).
class IdempotencyStore {
 public:
  virtual ~IdempotencyStore() = default;
  // Atomically: when (caller, key) has no live record, writes an in-flight one (fingerprint,
  // owner, expires_at = lease_until) and returns nullopt: the caller may proceed. Otherwise returns
  // the live record unchanged. Of concurrent reservations of one key, exactly one gets nullopt.
  virtual std::optional<IdempotencyRecord> ReserveIdempotencyKey(
      const std::string& caller, const std::string& key, const std::string& fingerprint,
      const std::string& owner, TimePoint now, TimePoint lease_until) = 0;
  // Completes `owner`'s in-flight record with `response`, kept until `expires_at`, outside any
  // transaction (for outcomes without an effect). False when there is no such in-flight record.
  virtual bool CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                         const std::string& owner, const std::string& response,
                                         TimePoint expires_at) = 0;
  // Deletes `owner`'s record while it is in flight, so that a retry may proceed at once; a
  // completed record, or one another reservation holds, is never deleted.
  virtual void ReleaseIdempotencyKey(const std::string& caller, const std::string& key,
                                     const std::string& owner) = 0;
  // Deletes up to `limit` records with expires_at <= now (completed or in flight), and returns how
  // many.
  virtual int PruneIdempotencyKeys(TimePoint now, int limit) = 0;
};

// The delivery side of the outbox. Thread-safe.
//
// Per document, events leave in transition order: ClaimPending returns only each document's oldest
// undelivered event (its head), so the next event of a document becomes claimable only once the
// one before it is delivered, whichever instance delivers it.
class OutboxStore {
 public:
  virtual ~OutboxStore() = default;
  // Up to `limit` head events in ascending sequence whose retry time has come, claimed for this
  // caller: until the claim expires (the store's claim TTL after the claim or its last renewal) or
  // they are marked delivered or deferred, no other OutboxStore instance on the same database
  // returns them (nor, being heads, any later event of their documents), so several docgate
  // processes can relay from one database. The same instance gets its own unexpired claims back (a
  // retry after a failed delivery).
  virtual std::vector<OutboxEvent> ClaimPending(int limit) = 0;
  // Extends every claim this instance holds on an undelivered row to the claim TTL from now, on the
  // same clock as ClaimPending, and returns how many rows that is. A claim is this instance's
  // until the row is delivered, deferred or released, or until another instance claims it after
  // it ran out; a claim that ran out and was not taken is renewed too, as nobody else can have
  // delivered the row meanwhile. A count below the rows the caller is delivering therefore means
  // another instance took some of them over (and may be delivering them too). A relay calls this
  // while a slow batch is in flight, so that its claims can be short and a killed instance's rows
  // are taken over soon.
  virtual int RenewClaims() = 0;
  // Marks the given events delivered; they are never returned by ClaimPending again.
  virtual void MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) = 0;
  // Puts events back for a later attempt after a delivery that did not succeed (unroutable,
  // refused, a consumer failed): their claim ends, their attempt count grows by one and records
  // `reason`, and ClaimPending skips them until delay * 2^(attempts - 1), capped at max_delay, has
  // passed. Their documents' later events wait behind them.
  virtual void Defer(const std::vector<std::int64_t>& sequences, std::chrono::milliseconds delay,
                     std::chrono::milliseconds max_delay, std::string_view reason) = 0;
  // Gives up this instance's claims on rows not yet delivered, so that any instance (a restarted
  // one included) can deliver them at once instead of after the claim expires. Called when the
  // relay stops; a crashed instance's claims simply expire.
  virtual void ReleaseClaims() = 0;
  // Deletes up to `limit` events delivered before `cutoff`, oldest first, and returns how many;
  // undelivered events are never deleted, nor is the document.approved event of a document's
  // approved_version while its ingest_status is not `done` (the reconciler replays it:
  // FindStuckIngestions).
  virtual int PruneDelivered(TimePoint cutoff, int limit) = 0;
  // Undelivered events and the oldest one's occurred_at (nullopt when none), for readiness and
  // metrics.
  virtual OutboxBacklog Backlog() = 0;

  // Puts `event` back into the outbox as undelivered (by event_id: the row is reset when it still
  // exists, written again when it was pruned), with no attempts and no claim, so the relay
  // delivers it again with the same event_id. Tells the relay through the usual wake-up.
  virtual void Requeue(const OutboxEvent& event) = 0;

  // The approval events of approved versions whose ingestion is missing or stuck: the document's
  // approved_version is set, its ingest_status is `pending` or `none`, and the document.approved
  // event of that version (the outbox's newest for it) was delivered before `delivered_before`.
  // Oldest delivery first, at most `limit`. Events still waiting in the outbox are not stuck,
  // `failed` means parked, which is for an operator, and a version whose chunks are written is
  // ingested: it is pending on its vectors, which the embedding worker keeps after (ADR 0010). The
  // outbox never prunes the approval event of a version whose ingestion is not done, so every such
  // version is found.
  virtual std::vector<OutboxEvent> FindStuckIngestions(TimePoint delivered_before, int limit) = 0;
};

}  // namespace docgate
