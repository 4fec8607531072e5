#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model.h"

namespace docgate {

// The model whose vectors are meant: with a chunk's text key, the key of an embedding. Another
// name or another number of dimensions is another model, whose vectors are computed anew.
struct EmbeddingModel {
  std::string name;
  int dimensions = 0;
};

// Which approved versions' chunks a claim looks at.
enum class ClaimScope {
  // Versions whose ingestion is pending, the oldest document first: what ingestion leaves for the
  // worker. The cost of a claim grows with the pending versions looked through, not with the
  // database.
  kPending,
  // Every approved version: texts of versions already done or failed that lack a vector of this
  // model (a new model, chunks keyed after their ingestion). The cost grows with every approved
  // chunk.
  kAll,
};

// A text to embed, claimed for its key: one of the chunks' texts that have that key.
struct TextToEmbed {
  std::string text_key;
  std::string text;
};

// What the provider answered for one claimed key: a vector, or why it refused the text for good.
struct EmbeddingResult {
  std::string text_key;
  std::vector<float> vector;  // `dimensions` floats; empty when refused
  std::string refusal;        // empty when embedded
};

// A chunk written before chunks had keys (migration 0010), for the worker to key.
struct UnkeyedChunk {
  DocumentId document_id = 0;
  std::int32_t ordinal = 0;
  std::string content;
};

struct ChunkKey {
  DocumentId document_id = 0;
  std::int32_t ordinal = 0;
  std::string text_key;
};

// Why `result` cannot be stored for `model` (a vector that is not model.dimensions floats), or
// empty when it can: the stores' check before they write anything of a Store call.
inline std::string MisfitResult(const EmbeddingModel& model, const EmbeddingResult& result) {
  if (!result.refusal.empty() || std::ssize(result.vector) == model.dimensions) return {};
  return "a vector of " + std::to_string(result.vector.size()) + " floats for " + model.name +
         " of " + std::to_string(model.dimensions) + " dimensions";
}

// An approved version whose ingestion the embeddings finished: done, or failed because the
// provider refused one of its chunks.
struct SettledDocument {
  DocumentId id = 0;
  IngestStatus status = IngestStatus::kDone;
};

// A stored vector, for an index that follows the database (search).
struct StoredVector {
  std::int64_t id = 0;  // increasing in commit order
  std::string text_key;
  std::vector<float> vector;
};

// A chunk of an approved version with its text key (semantic search maps vectors to chunks).
struct KeyedChunk {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::int32_t ordinal = 0;
  std::string title;
  std::string content;
  std::string text_key;
  std::string section;  // its heading path (ChunkHit::section)
};

// The vectors of the chunks' texts (ADR 0010), stored once per (model, text key): a chunk's key is
// the SHA-256 of its NFC-normalised text (EmbeddingTextKey, app/embedding_text_key.h), written with the chunk
// by ingestion (ConsumerTransaction::ReplaceChunks). A vector no chunk refers to any more is an
// orphan, marked when its last chunk goes and purged after a grace period, so that a text that
// comes back soon (a re-approval, an edit undone) is not embedded again.
//
// Only the chunks of documents' approved versions are embedded. A key is claimed by one owner (an
// embedding worker) until an expiry, so that several workers on one database never send one text
// twice; a claim that expires (its owner died) may be taken by another.
//
// Times are on the caller's clock (the worker's Clock), except orphaned_at, which is the
// database's: ReplaceChunks has no clock.
//
// Thread-safe. Throws StorageUnavailable / StorageError like DocumentStore.
class EmbeddingStore {
 public:
  virtual ~EmbeddingStore() = default;

  // At most `limit` chunks without a key, in (document, ordinal) order.
  virtual std::vector<UnkeyedChunk> ChunksWithoutKey(int limit) = 0;
  // Sets the keys of those chunks that still have none: a chunk that is gone, or was replaced
  // meanwhile by one written with its key, is skipped.
  virtual void SetKeys(const std::vector<ChunkKey>& keys) = 0;

  // Claims, for `owner` until `until`, at most `limit` keys of approved versions' chunks (in
  // `scope`) that have no embedding of `model` (stored or refused) and no claim that is live at
  // `now` (its expiry after `now`); an expired claim is taken over. Each claimed key comes with
  // one of its texts. Under concurrent claims (several workers, several databases' clients), a
  // key is claimed by one of them only, and never once its embedding is stored.
  virtual std::vector<TextToEmbed> Claim(const EmbeddingModel& model, const std::string& owner,
                                         TimePoint now, TimePoint until, int limit,
                                         ClaimScope scope) = 0;
  // Stores the results of `model` (a key already stored keeps what it has: the first answer
  // wins), and drops `owner`'s claims of their keys, in one transaction. A vector whose key no
  // chunk has any more is stored as an orphan. Each vector has model.dimensions floats
  // (StorageError otherwise).
  virtual void Store(const EmbeddingModel& model, const std::vector<EmbeddingResult>& results,
                     const std::string& owner) = 0;
  // Drops `owner`'s claims of `keys` (the provider could not embed them now).
  virtual void Release(const EmbeddingModel& model, const std::string& owner,
                       const std::vector<std::string>& keys) = 0;
  // Sets the ingest_status of at most `limit` documents that are pending and whose approved
  // version's chunks all have an embedding of `model`: done, or failed when one of them was
  // refused. Documents whose chunks are of another version (an approval still to be ingested)
  // stay pending. Returns what it settled.
  virtual std::vector<SettledDocument> SettleDocuments(const EmbeddingModel& model, int limit) = 0;
  // How many distinct keys of approved versions' chunks have no embedding of `model` yet.
  virtual std::int64_t CountMissing(const EmbeddingModel& model) = 0;
  // Deletes at most `limit` embeddings (of any model) that became orphans before `before` and
  // still are; returns how many.
  virtual int PurgeOrphans(TimePoint before, int limit) = 0;
  // At most `limit` stored vectors of `model` (refusals left out) with an id above `after`, in id
  // order.
  virtual std::vector<StoredVector> VectorsAfter(const EmbeddingModel& model, std::int64_t after,
                                                 int limit) = 0;
  // The ids of every stored vector of `model` (refusals left out), ascending: what an index that
  // follows VectorsAfter should still hold (the others were purged).
  virtual std::vector<std::int64_t> VectorIds(const EmbeddingModel& model) = 0;
  // The chunks of approved versions whose key is one of `keys`, in (document, ordinal) order.
  virtual std::vector<KeyedChunk> ApprovedChunksWithKeys(const std::vector<std::string>& keys) = 0;
};

}  // namespace docgate
