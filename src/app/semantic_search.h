#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <stop_token>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/ports/clock.h"
#include "app/ports/embedder.h"
#include "app/ports/embedding_store.h"
#include "app/ports/vector_index.h"

namespace docgate {

// A chunk found by meaning, and how close it is to the query (cosine similarity, -1..1).
struct SemanticHit {
  KeyedChunk chunk;
  float similarity = 0;
};

// Search by meaning over the approved versions' chunks (ADR 0010, point 5): the query is embedded
// with the model the chunks were embedded with, and the nearest stored vectors are looked up in
// this instance's VectorIndex, which follows the database's vectors by id (EmbeddingStore::
// VectorsAfter, read before every search, so a vector stored by any instance is found by the next
// search on every instance). Vectors deleted from the database (orphans purged by a worker) are
// removed from the index at the first Follow after every resync interval (EmbeddingStore::
// VectorIds). A vector's chunks are those of approved versions with its text key:
// one vector may stand for several chunks (a shared paragraph), and a vector whose chunks are
// gone (replaced, purged) finds nothing and is skipped.
//
// Thread-safe; the references must outlive it.
class SemanticSearch {
 public:
  // `query_embedder` embeds queries (one short attempt is best: a searcher waits for it); its
  // model and dimensions must be those of the stored vectors and of `index`.
  SemanticSearch(Embedder& query_embedder, EmbeddingStore& store, VectorIndex& index, Clock& clock,
                 std::chrono::milliseconds resync_interval = std::chrono::minutes(10));

  // Adds the vectors stored since the last call to the index, in batches, and, once per resync
  // interval, removes those no longer in the database. The first call loads every stored vector
  // (an instance calls it as it starts: Application::Start); `stop` ends it between batches.
  // Throws what the store throws (what was added stays).
  void Follow(std::stop_token stop = {});
  // The approved versions' chunks nearest `query` by meaning, most similar first (ties in
  // (document, ordinal) order), at most `limit`. Nothing when the provider refuses the query.
  // Throws EmbeddingsUnavailable when the query cannot be embedded now, or while another thread is
  // making the first load of the index (the searcher gets the keyword ranking instead of waiting
  // seconds for it), and what the store throws.
  std::vector<SemanticHit> Search(const std::string& query, int limit);

  // Vectors in the index.
  std::size_t indexed() const { return index_.size(); }

 private:
  Embedder& embedder_;
  EmbeddingStore& store_;
  VectorIndex& index_;
  void FollowLocked(std::stop_token stop);
  void Resync();

  Clock& clock_;
  const std::chrono::milliseconds resync_interval_;
  const EmbeddingModel model_;
  std::mutex follow_mutex_;
  std::int64_t last_id_ = 0;         // guarded by follow_mutex_
  TimePoint next_resync_{};          // guarded by follow_mutex_; on clock_
  std::atomic<bool> loaded_{false};  // a Follow has read every stored vector once
  mutable std::shared_mutex keys_mutex_;
  std::unordered_map<std::int64_t, std::string> keys_;  // vector id -> text key
};

}  // namespace docgate
