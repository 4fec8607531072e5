#pragma once

// The VectorIndex of the tests: every vector compared with the query, exactly (the reference the
// FAISS index is checked against).

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "app/ports/vector_index.h"

namespace docgate {

class FakeVectorIndex final : public VectorIndex {
 public:
  explicit FakeVectorIndex(int dimensions) : dimensions_(dimensions) {}

  int dimensions() const override { return dimensions_; }
  std::size_t size() const override {
    std::lock_guard lock(mutex_);
    return vectors_.size();
  }
  // Runs `hook` at the start of every Add (to hold a load in progress); empty: nothing.
  void DuringAdd(std::function<void()> hook) { during_add_ = std::move(hook); }

  void Add(const std::vector<std::int64_t>& ids, const std::vector<float>& vectors) override {
    if (during_add_) during_add_();
    const auto d = static_cast<std::size_t>(dimensions_);
    if (vectors.size() != ids.size() * d) throw std::invalid_argument("wrong size");
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      vectors_[ids[i]].assign(vectors.begin() + static_cast<std::ptrdiff_t>(i * d),
                              vectors.begin() + static_cast<std::ptrdiff_t>((i + 1) * d));
    }
  }
  void Remove(const std::vector<std::int64_t>& ids) override {
    std::lock_guard lock(mutex_);
    for (const std::int64_t id : ids) vectors_.erase(id);
  }
  std::vector<VectorHit> Search(const std::vector<float>& query, int k) const override {
    if (query.size() != static_cast<std::size_t>(dimensions_)) {
      throw std::invalid_argument("wrong size");
    }
    std::lock_guard lock(mutex_);
    std::vector<VectorHit> hits;
    for (const auto& [id, vector] : vectors_) {
      double dot = 0;
      for (std::size_t i = 0; i < vector.size(); ++i)
        dot += static_cast<double>(vector[i]) * query[i];
      hits.push_back({id, static_cast<float>(dot)});
    }
    std::sort(hits.begin(), hits.end(), [](const VectorHit& a, const VectorHit& b) {
      return a.similarity != b.similarity ? a.similarity > b.similarity : a.id < b.id;
    });
    if (hits.size() > static_cast<std::size_t>(std::max(k, 0)))
      hits.resize(static_cast<std::size_t>(std::max(k, 0)));
    return hits;
  }

 private:
  const int dimensions_;
  std::function<void()> during_add_;
  mutable std::mutex mutex_;
  std::map<std::int64_t, std::vector<float>> vectors_;
};

}  // namespace docgate
