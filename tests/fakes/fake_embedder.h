#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "app/ports/embedder.h"

namespace docgate {

// An Embedder that computes in memory: each text's vector is made from its bytes (so equal texts
// get equal vectors and different texts, almost surely, different ones), normalised. It counts
// every text it embedded, refuses texts that contain a marker, and can be made unavailable or run
// a hook during a call (to fail the database between the answer and the store). Thread-safe.
class FakeEmbedder final : public Embedder {
 public:
  explicit FakeEmbedder(int dimensions = 8, int max_batch = 4, std::string model = "fake-model")
      : model_(std::move(model)), dimensions_(dimensions), max_batch_(max_batch) {}

  const std::string& model() const override { return model_; }
  int dimensions() const override { return dimensions_; }
  int max_batch() const override { return max_batch_; }

  EmbeddedBatch Embed(const std::vector<std::string>& inputs) override {
    std::function<void()> during;
    {
      std::lock_guard lock(mutex_);
      ++calls_;
      if (unavailable_) {
        throw EmbeddingsUnavailable("fake provider: unavailable", std::chrono::milliseconds(250));
      }
      during = during_call_;
    }
    if (during) during();
    EmbeddedBatch batch;
    for (const std::string& input : inputs) {
      std::lock_guard lock(mutex_);
      if (!refuse_marker_.empty() && input.find(refuse_marker_) != std::string::npos) {
        batch.vectors.emplace_back();
        batch.rejections.push_back("fake provider: the input is too long");
        continue;
      }
      ++embedded_[input];
      batch.vectors.push_back(VectorOf(input));
      batch.rejections.emplace_back();
      batch.tokens += static_cast<std::int64_t>(input.size());
    }
    return batch;
  }

  // The vector Embed gives `text`.
  std::vector<float> VectorOf(const std::string& text) const {
    std::vector<float> vector(static_cast<std::size_t>(dimensions_), 0.0f);
    for (std::size_t i = 0; i < text.size(); ++i) {
      vector[(i * 31 + static_cast<unsigned char>(text[i])) % vector.size()] += 1.0f;
    }
    vector[0] += 1.0f;  // never all zeros, even for an empty text
    float norm = 0;
    for (const float v : vector) norm += v * v;
    for (float& v : vector) v /= std::sqrt(norm);
    return vector;
  }

  void SetUnavailable(bool unavailable) {
    std::lock_guard lock(mutex_);
    unavailable_ = unavailable;
  }
  // Texts containing `marker` are refused from now on ("" refuses none).
  void RefuseTextsContaining(std::string marker) {
    std::lock_guard lock(mutex_);
    refuse_marker_ = std::move(marker);
  }
  // Runs `hook` in every call, after deciding to answer and before computing.
  void DuringCall(std::function<void()> hook) {
    std::lock_guard lock(mutex_);
    during_call_ = std::move(hook);
  }

  // How many times each text was embedded.
  std::map<std::string, int> embedded() const {
    std::lock_guard lock(mutex_);
    return embedded_;
  }
  int total_embedded() const {
    std::lock_guard lock(mutex_);
    int total = 0;
    for (const auto& [text, times] : embedded_) total += times;
    return total;
  }
  int calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  const std::string model_;
  const int dimensions_;
  const int max_batch_;
  mutable std::mutex mutex_;
  bool unavailable_ = false;
  std::string refuse_marker_;
  std::function<void()> during_call_;
  std::map<std::string, int> embedded_;
  int calls_ = 0;
};

}  // namespace docgate
