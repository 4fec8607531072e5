#include "runtime/consumer_pipeline.h"

#include "adapters/mongo/mongo_preview_store.h"

namespace docgate {

ConsumerPipeline::ConsumerPipeline(const Config& config, const Stores& stores, Clock& clock,
                                   OutboxWakeup* wakeup) {
  previews_ = stores.previews.get();
  if (!config.mongo.uri.empty()) {
    mongo_previews_ = std::make_unique<MongoPreviewStore>(config.mongo);
    previews_ = mongo_previews_.get();
  }
  projection_ = std::make_unique<PreviewProjection>(*previews_, *stores.documents);
  ingestion_ = std::make_unique<Ingestion>(*stores.inbox, config.consumers.chunker);
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
}

ConsumerPipeline::~ConsumerPipeline() { Stop(); }

void ConsumerPipeline::Start() {
  reconciler_thread_ = std::jthread(
      [reconciler = reconciler_.get()](std::stop_token stop) { reconciler->Run(stop); });
  if (worker_ != nullptr) {
    worker_thread_ =
        std::jthread([worker = worker_.get()](std::stop_token stop) { worker->Run(stop); });
  }
}

void ConsumerPipeline::Stop() {
  for (std::jthread* thread : {&worker_thread_, &reconciler_thread_}) {
    if (!thread->joinable()) continue;
    thread->request_stop();
    thread->join();
  }
}

}  // namespace docgate
