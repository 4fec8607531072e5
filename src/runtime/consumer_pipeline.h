#pragma once

#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "adapters/amqp/amqp_event_source.h"
#include "adapters/crypto/openssl_digest.h"
#include "adapters/openai/openai_embedder.h"
#include "app/consumer_runner.h"
#include "app/ingestion.h"
#include "app/ports/clock.h"
#include "app/preview_projection.h"
#include "runtime/config.h"
#include "runtime/open_stores.h"
#include "worker/embedding_worker.h"
#include "worker/event_worker.h"
#include "worker/reconciler.h"

namespace docgate {

// The consumers' side of a running docgate, wired from a Config: the preview store (MongoDB when
// DOCGATE_MONGODB_URI is set, else the database), the built-in consumers (preview projection,
// ingestion) behind a ConsumerRunner, the reconciler, with DOCGATE_AMQP_URL the worker that takes
// events from the broker's consumers queue, and with DOCGATE_EMBEDDINGS_URL the embedding workers,
// DOCGATE_EMBEDDINGS_CONCURRENCY of them, each a thread with requests of its own (ingestion then
// leaves versions pending until their vectors are stored, and wakes them). `docgate serve` and
// `docgate worker` build this.
//
// Lifecycle: construct -> Start -> Stop (also run by the destructor). Not thread-safe.
class ConsumerPipeline {
 public:
  // The stores (the database's; its previews unless MongoDB is configured) and `clock` must
  // outlive the pipeline; `wakeup` (the relay of this process, if any) is told when the
  // reconciler re-enqueued events. Throws ConfigError / StorageUnavailable when the preview store
  // cannot be set up.
  ConsumerPipeline(const Config& config, const Stores& stores, Clock& clock, OutboxWakeup* wakeup);
  ~ConsumerPipeline();
  ConsumerPipeline(const ConsumerPipeline&) = delete;
  ConsumerPipeline& operator=(const ConsumerPipeline&) = delete;

  // Starts the reconciler's thread, and with a broker the worker's thread
  // consuming its queue. Without a broker, events reach runner() through the
  // in-process EventSink instead.
  void Start();
  void Stop();

  ConsumerRunner& runner() { return *runner_; }
  PreviewStore& previews() { return *previews_; }
  Reconciler& reconciler() { return *reconciler_; }
  const Ingestion& ingestion() const { return *ingestion_; }
  // Null without a broker (or without a queue).
  EventWorker* worker() { return worker_.get(); }
  EventSource* source() { return source_.get(); }
  // Empty without DOCGATE_EMBEDDINGS_URL.
  std::span<const std::unique_ptr<EmbeddingWorker>> embedding_workers() const {
    return embedding_workers_;
  }
  OpenAiEmbedder* embedder() { return embedder_.get(); }

 private:
  std::unique_ptr<PreviewStore> mongo_previews_;  // DOCGATE_MONGODB_URI
  PreviewStore* previews_ = nullptr;              // mongo_previews_ or the database's
  std::unique_ptr<PreviewProjection> projection_;
  OpenSslDigest digest_;
  std::unique_ptr<Ingestion> ingestion_;
  std::unique_ptr<ConsumerRunner> runner_;
  std::unique_ptr<Reconciler> reconciler_;
  std::unique_ptr<AmqpEventSource> source_;
  std::unique_ptr<EventWorker> worker_;
  std::unique_ptr<OpenAiEmbedder> embedder_;
  std::vector<std::unique_ptr<EmbeddingWorker>> embedding_workers_;
  std::jthread worker_thread_;
  std::vector<std::jthread> embedding_threads_;
  std::jthread reconciler_thread_;
};

}  // namespace docgate
