#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace docgate {

// One nearest neighbour: the caller's id and its cosine similarity to the query (-1..1).
struct VectorHit {
  std::int64_t id = 0;
  float similarity = 0;
};

// Vectors under the caller's ids, searched by cosine similarity (issue 17): an instance's view of
// the embeddings its database holds. Vectors are unit length (Embedder's contract), so cosine
// similarity is their dot product.
//
// Thread-safe: searches run concurrently with each other; Add and Remove exclude them. Throws
// std::invalid_argument for a vector of the wrong size.
class VectorIndex {
 public:
  virtual ~VectorIndex() = default;
  virtual int dimensions() const = 0;
  // Live vectors (added and not removed).
  virtual std::size_t size() const = 0;
  // Adds `ids.size()` vectors, laid out one after another in `vectors` (dimensions() floats
  // each). An id already present gets the new vector.
  virtual void Add(const std::vector<std::int64_t>& ids, const std::vector<float>& vectors) = 0;
  // Removes the vectors of `ids`; ids not present are ignored.
  virtual void Remove(const std::vector<std::int64_t>& ids) = 0;
  // The `k` live vectors most similar to `query`, most similar first (ties by id), fewer when the
  // index holds fewer.
  virtual std::vector<VectorHit> Search(const std::vector<float>& query, int k) const = 0;
};

}  // namespace docgate
