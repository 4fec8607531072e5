#include "runtime/consumer_pipeline.h"

#include <algorithm>

#include "adapters/crypto/openssl_random.h"
#include "adapters/mongo/mongo_preview_store.h"

namespace docgate {
namespace {

// The longest an embedder's call may take: every attempt timing out, with the longest waits
// between them, and a margin.
std::chrono::milliseconds LongestCall(const EmbeddingsConfig& config) {
  const auto attempts = config.max_attempts;
  return (config.connect_timeout + config.request_timeout) * attempts +
         config.retry_max * (attempts - 1) + std::chrono::minutes(1);
}

}  // namespace

ConsumerPipeline::ConsumerPipeline(const Config& config, const Stores& stores, Clock& clock,
                                   OutboxWakeup* wakeup) {
  previews_ = stores.previews.get();
  if (!config.mongo.uri.empty()) {
    mongo_previews_ = std::make_unique<MongoPreviewStore>(config.mongo);
    previews_ = mongo_previews_.get();
  }
  projection_ = std::make_unique<PreviewProjection>(*previews_, *stores.documents);
  std::optional<EmbeddingModel> model;  // set when DOCGATE_EMBEDDINGS_URL is
  if (!config.embeddings.url.empty()) {
    model = EmbeddingModel{config.embeddings.model, config.embeddings.dimensions};
  }
  ingestion_ = std::make_unique<Ingestion>(*stores.inbox, config.consumers.chunker, digest_, model);
  runner_ = std::make_unique<ConsumerRunner>(*stores.inbox, clock, config.consumers.runner);
  runner_->Register(*projection_);
  runner_->Register(*ingestion_);
  reconciler_ = std::make_unique<Reconciler>(*stores.outbox, clock, wakeup, config.consumers.reconciler);
  // Without a queue (a serve that leaves consuming to workers may have none) there is nothing to
  // take events from.
  if (!config.amqp.url.empty() && !config.amqp.queue.empty()) {
    source_ = std::make_unique<AmqpEventSource>(config.amqp);
    worker_ = std::make_unique<EventWorker>(*source_, *runner_, config.consumers.worker);
  }
  if (model) {
    embedder_ = std::make_unique<OpenAiEmbedder>(config.embeddings);
    EmbeddingWorkerConfig worker_config;
    worker_config.claim_ttl = std::max(worker_config.claim_ttl, LongestCall(config.embeddings));
    const std::string owner = "embedder-" + OpenSslRandom().Token128();
    for (int i = 0; i < config.embeddings.concurrency; ++i) {
      worker_config.upkeep = i == 0;  // the database's upkeep once per instance, not per worker
      embedding_workers_.push_back(
          std::make_unique<EmbeddingWorker>(*stores.embeddings, *embedder_, digest_, clock,
                                            owner + "-" + std::to_string(i), worker_config));
    }
    // A version ingested here is embedded at once; one ingested by another instance waits for
    // these workers' next poll.
    ingestion_->OnVectorsWanted([this] {
      for (const auto& worker : embedding_workers_) worker->Wake();
    });
  }
}

ConsumerPipeline::~ConsumerPipeline() { Stop(); }

void ConsumerPipeline::Start() {
  reconciler_thread_ = std::jthread(
      [reconciler = reconciler_.get()](std::stop_token stop) { reconciler->Run(stop); });
  if (worker_ != nullptr) {
    worker_thread_ =
        std::jthread([worker = worker_.get()](std::stop_token stop) { worker->Run(stop); });
  }
  for (const auto& embedding_worker : embedding_workers_) {
    embedding_threads_.emplace_back(
        [worker = embedding_worker.get()](std::stop_token stop) { worker->Run(stop); });
  }
}

void ConsumerPipeline::Stop() {
  if (embedder_ != nullptr) embedder_->Shutdown();  // ends a wait between attempts at once
  for (std::jthread& thread : embedding_threads_) thread.request_stop();
  embedding_threads_.clear();  // joins
  for (std::jthread* thread : {&worker_thread_, &reconciler_thread_}) {
    if (!thread->joinable()) continue;
    thread->request_stop();
    thread->join();
  }
}

}  // namespace docgate
