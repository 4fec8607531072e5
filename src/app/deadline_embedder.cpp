#include "app/deadline_embedder.h"

#include <exception>
#include <utility>

namespace docgate {

DeadlineEmbedder::DeadlineEmbedder(Embedder& inner, std::chrono::milliseconds deadline,
                                   int concurrency)
    : inner_(inner), deadline_(deadline), concurrency_(concurrency) {
  threads_.reserve(static_cast<std::size_t>(concurrency));
  for (int i = 0; i < concurrency; ++i) threads_.emplace_back([this] { Serve(); });
}

DeadlineEmbedder::~DeadlineEmbedder() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

EmbeddedBatch DeadlineEmbedder::Embed(const std::vector<std::string>& inputs) {
  auto call = std::make_shared<Call>();
  call->inputs = inputs;
  std::future<EmbeddedBatch> answer = call->answer.get_future();
  {
    std::lock_guard lock(mutex_);
    // Never queue behind a slow provider: a searcher waiting its turn would wait past the
    // deadline too.
    if (stopping_ || busy_ >= concurrency_) {
      throw EmbeddingsUnavailable("every query embedding slot is busy", deadline_);
    }
    ++busy_;
    calls_.push_back(std::move(call));
  }
  wake_.notify_one();
  if (answer.wait_for(deadline_) != std::future_status::ready) {
    throw EmbeddingsUnavailable("the embeddings provider did not answer the query within " +
                                    std::to_string(deadline_.count()) + " ms",
                                deadline_);
  }
  return answer.get();
}

void DeadlineEmbedder::Serve() {
  for (;;) {
    std::shared_ptr<Call> call;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !calls_.empty(); });
      if (calls_.empty()) return;  // stopping, nothing left
      call = std::move(calls_.front());
      calls_.pop_front();
    }
    EmbeddedBatch batch;
    std::exception_ptr failure;
    try {
      batch = inner_.Embed(call->inputs);
    } catch (...) {
      // Handed to the caller, if it still waits: this is the boundary of the call's thread.
      failure = std::current_exception();
    }
    {
      // The slot is free before the caller hears: its next call finds it free.
      std::lock_guard lock(mutex_);
      --busy_;
    }
    if (failure) {
      call->answer.set_exception(failure);
    } else {
      call->answer.set_value(std::move(batch));
    }
  }
}

}  // namespace docgate
