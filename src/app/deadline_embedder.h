#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/ports/embedder.h"

namespace docgate {

// An Embedder that answers within a deadline, for the queries of searchers (issue 34): an HTTP
// worker that searches by meaning waits for the provider at most `deadline`, and at most
// `concurrency` queries are with the provider at once.
//
// Each call runs on one of `concurrency` threads of its own. A call that finds every thread busy,
// or that the inner embedder has not answered within `deadline`, throws EmbeddingsUnavailable at
// once (the searcher falls back to keywords); the late call goes on on its thread until the inner
// embedder returns or gives up (its own request timeout), and its answer is dropped. So a slow
// provider costs each searcher at most the deadline and holds no more than `concurrency` threads,
// whatever the number of searchers. What the inner embedder throws is rethrown.
//
// Thread-safe. `inner` must outlive it; the destructor waits for the calls in progress (the inner
// embedder's timeouts, or its shutdown, bound that).
class DeadlineEmbedder final : public Embedder {
 public:
  DeadlineEmbedder(Embedder& inner, std::chrono::milliseconds deadline, int concurrency);
  ~DeadlineEmbedder() override;
  DeadlineEmbedder(const DeadlineEmbedder&) = delete;
  DeadlineEmbedder& operator=(const DeadlineEmbedder&) = delete;

  const std::string& model() const override { return inner_.model(); }
  int dimensions() const override { return inner_.dimensions(); }
  int max_batch() const override { return inner_.max_batch(); }
  EmbeddedBatch Embed(const std::vector<std::string>& inputs) override;

 private:
  struct Call {
    std::vector<std::string> inputs;
    std::promise<EmbeddedBatch> answer;
  };
  void Serve();

  Embedder& inner_;
  const std::chrono::milliseconds deadline_;
  const int concurrency_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Call>> calls_;  // guarded by mutex_
  int busy_ = 0;                             // calls queued or running; guarded by mutex_
  bool stopping_ = false;                    // guarded by mutex_
  std::vector<std::thread> threads_;
};

}  // namespace docgate
