#include "adapters/faiss/faiss_vector_index.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/impl/HNSW.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>

namespace docgate {
namespace {

std::unique_ptr<faiss::Index> NewIndex(int dimensions, bool approximate,
                                       const VectorIndexConfig& config) {
  if (!approximate) return std::make_unique<faiss::IndexFlatIP>(dimensions);
  // For unit vectors |a - b|^2 = 2 - 2 a.b: the same order as the dot product, in the metric
  // HNSW's graph is designed for (the inner product is not a distance).
  auto hnsw =
      std::make_unique<faiss::IndexHNSWFlat>(dimensions, config.hnsw_links, faiss::METRIC_L2);
  hnsw->hnsw.efConstruction = config.hnsw_build_breadth;
  return hnsw;
}

void CheckSize(std::size_t floats, std::size_t expected, const char* what) {
  if (floats != expected) {
    throw std::invalid_argument(std::string(what) + " holds " + std::to_string(floats) +
                                " floats where " + std::to_string(expected) + " were expected");
  }
}

}  // namespace

FaissVectorIndex::FaissVectorIndex(int dimensions, VectorIndexConfig config)
    : dimensions_(dimensions), config_(config) {
  if (dimensions < 1 || dimensions > 65536) {
    throw std::invalid_argument("a vector index needs 1..65536 dimensions, got " +
                                std::to_string(dimensions));
  }
  index_ = NewIndex(dimensions_, false, config_);
}

FaissVectorIndex::~FaissVectorIndex() = default;

std::size_t FaissVectorIndex::size() const {
  std::shared_lock lock(mutex_);
  return labels_.size();
}

bool FaissVectorIndex::approximate() const {
  std::shared_lock lock(mutex_);
  return approximate_;
}

void FaissVectorIndex::Add(const std::vector<std::int64_t>& ids,
                           const std::vector<float>& vectors) {
  const auto d = static_cast<std::size_t>(dimensions_);
  CheckSize(vectors.size(), ids.size() * d, "the vectors to add");
  if (ids.empty()) return;
  std::unique_lock lock(mutex_);
  const auto first = static_cast<std::int64_t>(ids_.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    RemoveLocked(ids[i]);
    labels_[ids[i]] = first + static_cast<std::int64_t>(i);
    ids_.push_back(ids[i]);
  }
  index_->add(static_cast<faiss::Index::idx_t>(ids.size()), vectors.data());
  if (!approximate_ && labels_.size() > config_.approximate_from) {
    RebuildLocked();
  } else {
    CompactIfWorthIt();
  }
}

void FaissVectorIndex::Remove(const std::vector<std::int64_t>& ids) {
  std::unique_lock lock(mutex_);
  for (const std::int64_t id : ids) RemoveLocked(id);
  CompactIfWorthIt();
}

void FaissVectorIndex::RemoveLocked(std::int64_t id) {
  const auto found = labels_.find(id);
  if (found == labels_.end()) return;
  ids_[static_cast<std::size_t>(found->second)] = -1;
  labels_.erase(found);
}

void FaissVectorIndex::CompactIfWorthIt() {
  const std::size_t removed = ids_.size() - labels_.size();
  if (removed > 0 && removed * 4 >= ids_.size()) RebuildLocked();
}

void FaissVectorIndex::RebuildLocked() {
  const auto d = static_cast<std::size_t>(dimensions_);
  std::vector<std::int64_t> live_ids;
  std::vector<float> live_vectors;
  live_ids.reserve(labels_.size());
  live_vectors.resize(labels_.size() * d);
  for (std::size_t label = 0; label < ids_.size(); ++label) {
    if (ids_[label] < 0) continue;
    index_->reconstruct(static_cast<faiss::Index::idx_t>(label),
                        live_vectors.data() + live_ids.size() * d);
    live_ids.push_back(ids_[label]);
  }
  approximate_ = live_ids.size() > config_.approximate_from;
  auto rebuilt = NewIndex(dimensions_, approximate_, config_);
  if (!live_ids.empty()) {
    rebuilt->add(static_cast<faiss::Index::idx_t>(live_ids.size()), live_vectors.data());
  }
  index_ = std::move(rebuilt);
  ids_ = std::move(live_ids);
  labels_.clear();
  for (std::size_t label = 0; label < ids_.size(); ++label) {
    labels_[ids_[label]] = static_cast<std::int64_t>(label);
  }
}

std::vector<VectorHit> FaissVectorIndex::Search(const std::vector<float>& query, int k) const {
  CheckSize(query.size(), static_cast<std::size_t>(dimensions_), "the query vector");
  std::shared_lock lock(mutex_);
  if (k <= 0 || labels_.empty()) return {};
  // Removed vectors are still in FAISS's index: ask for as many more, so that k live ones come.
  const std::size_t removed = ids_.size() - labels_.size();
  const std::size_t wanted = std::min(ids_.size(), static_cast<std::size_t>(k) + removed);
  std::vector<float> similarities(wanted);
  std::vector<faiss::Index::idx_t> labels(wanted);
  const auto n = static_cast<faiss::Index::idx_t>(wanted);
  if (approximate_) {
    faiss::SearchParametersHNSW params;
    params.efSearch = std::max(config_.hnsw_search_breadth, static_cast<int>(wanted));
    index_->search(1, query.data(), n, similarities.data(), labels.data(), &params);
  } else {
    index_->search(1, query.data(), n, similarities.data(), labels.data());
  }
  std::vector<VectorHit> hits;
  for (std::size_t i = 0; i < wanted; ++i) {
    if (labels[i] < 0 || ids_[static_cast<std::size_t>(labels[i])] < 0) continue;
    // HNSW answered squared distances: back to the dot product.
    const float similarity = approximate_ ? 1.0F - similarities[i] / 2 : similarities[i];
    hits.push_back({ids_[static_cast<std::size_t>(labels[i])], similarity});
  }
  std::sort(hits.begin(), hits.end(), [](const VectorHit& a, const VectorHit& b) {
    return a.similarity != b.similarity ? a.similarity > b.similarity : a.id < b.id;
  });
  if (hits.size() > static_cast<std::size_t>(k)) hits.resize(static_cast<std::size_t>(k));
  return hits;
}

}  // namespace docgate
