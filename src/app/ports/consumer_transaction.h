#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/ports/embedding_store.h"
#include "core/model.h"

namespace docgate {

// What the inbox holds for one (consumer, event_id) when a consumer transaction claims it.
enum class InboxState {
  kNew,   // never processed (or only failed so far): the claim recorded it as done, pending commit
  kDone,  // processed before: the consumer must do nothing
  kParked,  // given up on after too many failures: the consumer must do nothing until replayed
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
  // `sections` has each chunk's heading path (ChunkHit::section), or is empty: every chunk's is "".
  // `text_keys` has each chunk's key (EmbeddingTextKey, app/embedding_text_key.h), or is empty: the
  // chunks then have none until the embedding worker keys them. Embeddings whose key no chunk has
  // any more become orphans; those whose key is back are orphans no longer
  // (app/ports/embedding_store.h).
  virtual void ReplaceChunks(DocumentId id, std::int32_t version, const std::string& title,
                             const std::vector<std::string>& chunks,
                             const std::vector<std::string>& sections,
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

}  // namespace docgate
