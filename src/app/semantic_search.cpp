#include "app/semantic_search.h"

#include <algorithm>
#include <map>
#include <utility>

namespace docgate {
namespace {

constexpr int kFollowBatch = 1000;
// Vectors looked up per hit asked for: some stand for chunks that are gone.
constexpr int kCandidatesPerHit = 3;

}  // namespace

SemanticSearch::SemanticSearch(Embedder& query_embedder, EmbeddingStore& store, VectorIndex& index,
                               Clock& clock, std::chrono::milliseconds resync_interval)
    : embedder_(query_embedder),
      store_(store),
      index_(index),
      clock_(clock),
      resync_interval_(resync_interval),
      model_{query_embedder.model(), query_embedder.dimensions()} {}

void SemanticSearch::Follow(std::stop_token stop) {
  std::lock_guard follow(follow_mutex_);
  FollowLocked(stop);
}

void SemanticSearch::FollowLocked(std::stop_token stop) {
  if (const TimePoint now = clock_.Now(); now >= next_resync_) {
    // The first Follow has nothing to remove; it only starts the interval.
    if (last_id_ > 0) Resync();
    next_resync_ = now + resync_interval_;
  }
  for (;;) {
    const std::vector<StoredVector> batch = store_.VectorsAfter(model_, last_id_, kFollowBatch);
    if (batch.empty()) return;
    std::vector<std::int64_t> ids;
    std::vector<float> vectors;
    ids.reserve(batch.size());
    vectors.reserve(batch.size() * static_cast<std::size_t>(model_.dimensions));
    for (const StoredVector& stored : batch) {
      ids.push_back(stored.id);
      vectors.insert(vectors.end(), stored.vector.begin(), stored.vector.end());
    }
    {
      std::unique_lock keys(keys_mutex_);
      for (const StoredVector& stored : batch) keys_.emplace(stored.id, stored.text_key);
    }
    index_.Add(ids, vectors);
    last_id_ = batch.back().id;
    if (std::ssize(batch) < kFollowBatch) break;
    if (stop.stop_requested()) return;
  }
  loaded_ = true;
}

void SemanticSearch::Resync() {
  const std::vector<std::int64_t> stored = store_.VectorIds(model_);  // ascending
  std::vector<std::int64_t> gone;
  {
    std::unique_lock keys(keys_mutex_);
    for (auto it = keys_.begin(); it != keys_.end();) {
      // Ids above last_id_ are not indexed yet; the others must still be stored.
      if (it->first <= last_id_ && !std::ranges::binary_search(stored, it->first)) {
        gone.push_back(it->first);
        it = keys_.erase(it);
      } else {
        ++it;
      }
    }
  }
  if (!gone.empty()) index_.Remove(gone);
}

std::vector<SemanticHit> SemanticSearch::Search(const std::string& query, int limit) {
  if (limit <= 0) return {};
  if (loaded_) {
    Follow();
  } else {
    std::unique_lock follow(follow_mutex_, std::try_to_lock);
    if (!follow.owns_lock()) {
      throw EmbeddingsUnavailable("the vector index is still loading", std::chrono::seconds(1));
    }
    FollowLocked({});
  }
  EmbeddedBatch embedded = embedder_.Embed({query});
  if (embedded.vectors.empty() || embedded.vectors[0].empty()) return {};
  const std::vector<VectorHit> nearest =
      index_.Search(embedded.vectors[0], limit * kCandidatesPerHit);

  std::vector<std::pair<std::string, float>> ranked;  // (text key, similarity), best first
  {
    std::shared_lock lock(keys_mutex_);
    for (const VectorHit& hit : nearest) {
      if (const auto found = keys_.find(hit.id); found != keys_.end()) {
        ranked.emplace_back(found->second, hit.similarity);
      }
    }
  }
  std::vector<std::string> keys;
  for (const auto& [key, similarity] : ranked) keys.push_back(key);
  std::map<std::string, std::vector<KeyedChunk>> chunks_of;
  for (KeyedChunk& chunk : store_.ApprovedChunksWithKeys(keys)) {
    chunks_of[chunk.text_key].push_back(std::move(chunk));
  }
  std::vector<SemanticHit> hits;
  for (const auto& [key, similarity] : ranked) {
    const auto chunks = chunks_of.find(key);
    if (chunks == chunks_of.end()) continue;
    for (KeyedChunk& chunk : chunks->second) {
      if (std::ssize(hits) == limit) return hits;
      hits.push_back({std::move(chunk), similarity});
    }
    chunks_of.erase(chunks);  // a key comes once
  }
  return hits;
}

}  // namespace docgate
