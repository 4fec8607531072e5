#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "app/ports/vector_index.h"

namespace faiss {
struct Index;
}

namespace docgate {

struct VectorIndexConfig {
  // Up to this many vectors the search is exact (faiss::IndexFlatIP, every vector compared);
  // beyond it the index becomes approximate (faiss::IndexHNSWFlat), whose search time grows
  // with the logarithm of the size. Exact by default at every size: with Debian's FAISS 1.7.3
  // (its generic build computes distances without SIMD) an HNSW graph of 100,000 vectors of 1,024
  // dimensions takes over ten minutes to build on two cores, under the index's lock, while an
  // exact search of them takes milliseconds (bench/vector_index_bench, docs/benchmarks.md).
  std::size_t approximate_from = std::numeric_limits<std::size_t>::max();
  int hnsw_links = 32;            // HNSW's M: links per vector
  int hnsw_build_breadth = 80;    // efConstruction
  int hnsw_search_breadth = 256;  // efSearch, at least k + the removed vectors still held
};

// The VectorIndex of FAISS (libfaiss). Removed and replaced vectors are only marked (HNSW cannot
// delete) and skipped by searches, which ask FAISS for as many more neighbours; once they are a
// quarter of what the index holds, the index is rebuilt from its live vectors.
class FaissVectorIndex final : public VectorIndex {
 public:
  // Throws std::invalid_argument unless dimensions is 1..65536.
  explicit FaissVectorIndex(int dimensions, VectorIndexConfig config = {});
  ~FaissVectorIndex() override;

  int dimensions() const override { return dimensions_; }
  std::size_t size() const override;
  void Add(const std::vector<std::int64_t>& ids, const std::vector<float>& vectors) override;
  void Remove(const std::vector<std::int64_t>& ids) override;
  std::vector<VectorHit> Search(const std::vector<float>& query, int k) const override;

  // True once the index is approximate (HNSW).
  bool approximate() const;

 private:
  void RemoveLocked(std::int64_t id);
  // A new index (exact or approximate by the live count) holding only the live vectors.
  void RebuildLocked();
  void CompactIfWorthIt();

  const int dimensions_;
  const VectorIndexConfig config_;
  mutable std::shared_mutex mutex_;
  std::unique_ptr<faiss::Index> index_;
  bool approximate_ = false;
  std::vector<std::int64_t> ids_;                          // FAISS's label -> id, -1 once removed
  std::unordered_map<std::int64_t, std::int64_t> labels_;  // id -> its live label
};

}  // namespace docgate
