#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/embedding_store.h"
#include "core/model.h"

namespace docgate {

// What the inbox holds for one (consumer, event_id) when a consumer transaction claims it.
enum class InboxState {
  kNew,     // never processed (or only failed so far): the claim recorded it as done, pending commit
  kDone,    // processed before: the consumer must do nothing
  kParked,  // given up on after too many failures: the consumer must do nothing until replayed
};

// A failed attempt, as RecordFailure counted it.
struct ConsumerFailure {
  int attempts = 0;     // failed attempts of this (consumer, event_id) so far, this one included
  bool parked = false;  // attempts reached the limit: the event is parked for this consumer
};

// An event a consumer gave up on, kept with the event so that it can be replayed.
struct ParkedEvent {
  std::string consumer;
  OutboxEvent event;  // sequence is 0: the outbox row may be gone
  int attempts = 0;
  std::string last_error;
  TimePoint parked_at{};
};

// One consumer's unit of work: the inbox row and the consumer's effect commit together or not at
// all, so a redelivered event changes nothing. Obtained from InboxStore::BeginConsumer; rolled
// back by the destructor unless Commit succeeded. Not thread-safe. Throws like StoreTransaction
// (StorageUnavailable, StorageError), after which the transaction is finished.
//
// On SQLite it holds the database's write lock from Begin to Commit; on PostgreSQL, LockDocument
// takes the document row's lock (the lock order of transitions: review, then document; consumers
// lock no review).
class ConsumerTransaction {
 public:
  virtual ~ConsumerTransaction() = default;
  // Claims (consumer, event_id) in the inbox. kNew: it is now recorded as done as part of this
  // transaction, and the consumer goes on. kDone / kParked: nothing was written; the caller does
  // nothing else and destroys the transaction. Of concurrent claims of one pair, at most one
  // commits with kNew; the other waits for it and then sees kDone.
  virtual InboxState Claim(std::string_view consumer, std::string_view event_id, TimePoint at) = 0;
  // Claims (consumer, id) for every id of `event_ids` (a batch, ConsumerRunner::RunBatch) as
  // Claim would one after another, in their order, and returns their states in that order: an id
  // repeated is claimed once, its later places kDone when the first was kNew and the first's
  // state otherwise. A store may do it in fewer round trips; this one calls Claim for each.
  virtual std::vector<InboxState> ClaimAll(std::string_view consumer,
                                           const std::vector<std::string>& event_ids, TimePoint at);
  virtual std::optional<Document> LockDocument(DocumentId id) = 0;
  virtual std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) = 0;
  // LockDocument and ReadContent(id, version) together; nullopt when there is no such document. A
  // store may do both in one round trip; this one calls the two.
  virtual std::optional<DocumentWithContent> LockDocumentWithContent(DocumentId id,
                                                                     std::int32_t version);
  // Replaces every chunk of `id` (of any version) with `chunks`, in order, indexed for full-text
  // search under `title`. Never appends: afterwards the document has exactly these chunks.
  // `text_keys` has each chunk's key (EmbeddingTextKey, app/digest.h), or is empty: the chunks
  // then have none until the embedding worker keys them. Embeddings whose key no chunk has any
  // more become orphans; those whose key is back are orphans no longer (app/embedding_store.h).
  virtual void ReplaceChunks(DocumentId id, std::int32_t version, const std::string& title,
                             const std::vector<std::string>& chunks,
                             const std::vector<std::string>& text_keys) = 0;
  // How many of `text_keys` (counted with their repeats) have a vector of `model` stored: the
  // chunks whose vector costs nothing (an embedding cache hit).
  virtual std::size_t CountStoredVectors(const EmbeddingModel& model,
                                         const std::vector<std::string>& text_keys) = 0;
  // Sets the document's ingest_status (and updated_at is left alone: ingestion is not an edit).
  virtual void SetIngestStatus(DocumentId id, IngestStatus status) = 0;
  virtual void Commit() = 0;

  // `action` runs once the transaction has committed, never when it rolls back: what a consumer
  // does outside the database because of its effect (counting it). The ConsumerRunner runs them
  // after Commit returned (RunAfterCommit).
  void AfterCommit(std::function<void()> action) { after_commit_.push_back(std::move(action)); }
  void RunAfterCommit() {
    for (const std::function<void()>& action : after_commit_) action();
    after_commit_.clear();
  }

 private:
  std::vector<std::function<void()>> after_commit_;
};

// The inbox of the built-in consumers (ADR 0004): the consumer transactions that claim an event
// for a consumer, the failures counted and the events parked. Thread-safe; several processes on
// one database may use it at once. Throws StorageUnavailable / StorageError like DocumentStore.
//
// Writes whose effect is not idempotent (RecordFailure, Unpark) take effect at most once per call:
// a store tries one again only when it knows the first try did not commit. StorageUnavailable from
// one of them means "not done" or, when the commit's outcome was lost with the connection, maybe
// "done, answer lost"; see each method for what the caller does then.
class InboxStore {
 public:
  virtual ~InboxStore() = default;
  virtual std::unique_ptr<ConsumerTransaction> BeginConsumer() = 0;

  // Records a failed attempt of (consumer, event.event_id) in its own transaction: the attempt
  // count grows by one and `error` is kept; when it reaches `max_attempts` the event is parked for
  // this consumer (kept whole, with `at`). A pair already done or parked is left alone and
  // reported as it is. A StorageUnavailable leaves the attempt counted or not; the caller retries
  // the delivery, whose next failure is a new attempt, so no attempt is ever counted twice.
  virtual ConsumerFailure RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                        std::string_view error, int max_attempts,
                                        TimePoint at) = 0;
  // Parked events, oldest parked first, at most `limit`.
  virtual std::vector<ParkedEvent> ListParked(int limit) = 0;
  // Un-parks the parked pairs of `event_id` (every parked event when nullopt): their inbox rows
  // are deleted, so the consumers run again on the next delivery. Returns the events un-parked,
  // each once even when several consumers had parked it. A StorageUnavailable whose message says
  // "outcome unknown" (the connection broke during the commit) may have deleted the rows; the
  // events are then no longer listed as parked and must be put back by hand (docs/runbook.md).
  virtual std::vector<OutboxEvent> Unpark(const std::optional<std::string>& event_id) = 0;
  // Deletes up to `limit` `done` inbox rows last written before `cutoff` whose event is no longer
  // in the outbox; returns how many. A `done` row is what makes a redelivery a no-op, so the
  // caller's cutoff must lie behind every redelivery still possible: at least the outbox retention
  // (OutboxStore::PruneDelivered), after which the relay and the reconciler cannot send the event
  // again; an event still in the outbox (pending, or an approval kept for its ingestion) keeps its
  // rows at any age. `failing` and `parked` rows are never deleted: they are the operators' to
  // replay.
  virtual int PruneInbox(TimePoint cutoff, int limit) = 0;

};

}  // namespace docgate
