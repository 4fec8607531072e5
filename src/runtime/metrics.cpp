#include "runtime/metrics.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace docgate {

HttpMetrics::HttpMetrics(MetricsRegistry& registry)
    : requests_(registry.AddCounterFamily("docgate_http_requests_total",
                                          "HTTP requests answered, by method, route template and "
                                          "status.",
                                          {"method", "route", "status"})),
      durations_(registry.AddHistogramFamily(
          "docgate_http_request_duration_seconds",
          "Time from a request's header to its response being ready, by method and route template.",
          {"method", "route"}, LatencyBuckets())),
      replays_(registry.AddCounter("docgate_idempotent_replays_total",
                                   "Responses replayed for a repeated Idempotency-Key.")),
      shed_(registry.AddCounterFamily("docgate_http_requests_shed_total",
                                      "Requests answered 503 to shed load instead of handled, by "
                                      "reason: connections, queue_full, queue_timeout.",
                                      {"reason"})) {
  for (const auto reason : {kShedConnections, kShedQueueFull, kShedQueueTimeout}) {
    shed_.WithLabels({reason});
  }
}

void HttpMetrics::OnRequest(const CompletedRequest& request) noexcept {
  const std::string status = std::to_string(request.response.result_int());
  const std::string_view route = request.trace.route;
  requests_.WithLabels({request.method, route, status}).Increment();
  durations_.WithLabels({request.method, route})
      .Observe(std::chrono::duration<double>(request.duration).count());
  const auto replayed = request.response.find("Idempotent-Replayed");
  if (replayed != request.response.end() && replayed->value() == "true") replays_.Increment();
  if (!request.trace.shed.empty()) shed_.WithLabels({request.trace.shed}).Increment();
}

void ExposeHttpServerMetrics(MetricsRegistry& registry, std::function<HttpServerStats()> stats) {
  auto read = std::make_shared<std::function<HttpServerStats()>>(std::move(stats));
  registry.AddGaugeCallback(
      "docgate_http_connections", "Open HTTP connections, spare ones included.",
      [read] { return std::optional<double>(static_cast<double>((*read)().connections)); });
  registry.AddGaugeCallback(
      "docgate_http_connections_waiting",
      "Open HTTP connections waiting for a request: idle, or its header arriving.",
      [read] { return std::optional<double>(static_cast<double>((*read)().waiting)); });
  registry.AddGaugeCallback("docgate_http_busy_workers", "HTTP workers running a request.", [read] {
    return std::optional<double>(static_cast<double>((*read)().busy_workers));
  });
  registry.AddGaugeCallback(
      "docgate_http_queued_requests", "HTTP requests waiting for a worker.",
      [read] { return std::optional<double>(static_cast<double>((*read)().queued)); });
  registry.AddCounterCallback(
      "docgate_http_connections_refused_total",
      "Connections closed as soon as accepted: past the connection limit and its spare ones.",
      [read] { return (*read)().refused_connections; });
  registry.AddCounterCallback(
      "docgate_http_connections_evicted_total",
      "Connections closed while waiting for a request, to make room for a new one at the limit.",
      [read] { return (*read)().evicted_connections; });
}

void ExposePoolMetrics(MetricsRegistry& registry, std::function<PoolStats()> stats) {
  auto read = std::make_shared<std::function<PoolStats()>>(std::move(stats));
  registry.AddGaugeCallback("docgate_db_pool_connections_in_use",
                            "Database connections lent out to a request or the relay.",
                            [read] { return std::optional<double>((*read)().in_use); });
  registry.AddGaugeCallback("docgate_db_pool_waiting",
                            "Callers waiting for a database connection.",
                            [read] { return std::optional<double>((*read)().waiting); });
  registry.AddGaugeCallback("docgate_db_pool_connections_max",
                            "The most database connections the pool holds.",
                            [read] { return std::optional<double>((*read)().size); });
}

void ExposeOutboxMetrics(MetricsRegistry& registry, OutboxStore& outbox, Clock& clock) {
  struct Reading {
    std::optional<double> pending;
    std::optional<double> oldest_age_seconds;
  };
  auto reading = std::make_shared<Reading>();
  registry.OnScrape([reading, &outbox, &clock] {
    *reading = Reading{};
    try {
      const OutboxBacklog backlog = outbox.Backlog();
      reading->pending = static_cast<double>(backlog.pending);
      std::chrono::duration<double> age{0};
      if (backlog.oldest_occurred_at) age = clock.Now() - *backlog.oldest_occurred_at;
      reading->oldest_age_seconds = std::max(0.0, age.count());
    } catch (const std::exception& e) {
      // The database being down shows in /readyz and in every request's 503; a scrape just goes
      // without these two samples.
      spdlog::debug("metrics: outbox backlog unavailable: {}", e.what());
    }
  });
  registry.AddGaugeCallback("docgate_outbox_backlog_events", "Outbox events not yet delivered.",
                            [reading] { return reading->pending; });
  registry.AddGaugeCallback("docgate_outbox_oldest_pending_age_seconds",
                            "Age of the oldest undelivered outbox event; 0 when none is pending.",
                            [reading] { return reading->oldest_age_seconds; });
}

namespace {

void AddAtomicCounter(MetricsRegistry& registry, std::string name, std::string help,
                      const std::atomic<std::uint64_t>& counter) {
  registry.AddCounterCallback(std::move(name), std::move(help),
                              [&counter] { return counter.load(); });
}

}  // namespace

void ExposeConsumerMetrics(MetricsRegistry& registry, const ConsumerCounters& counters,
                           const Reconciler& reconciler) {
  AddAtomicCounter(registry, "docgate_consumer_events_processed_total",
                   "Events a built-in consumer processed (its effect committed).",
                   counters.processed);
  AddAtomicCounter(registry, "docgate_consumer_events_skipped_total",
                   "Redelivered events a consumer had already processed or parked.",
                   counters.skipped);
  AddAtomicCounter(registry, "docgate_consumer_events_failed_total",
                   "Failed consumer attempts; the event is retried with backoff.", counters.failed);
  AddAtomicCounter(registry, "docgate_consumer_events_parked_total",
                   "Events a consumer gave up on after its attempts (docgate events parked).",
                   counters.parked);
  registry.AddCounterCallback("docgate_reconciler_requeued_total",
                              "Approval events re-enqueued because their ingestion was stuck.",
                              [&reconciler] { return reconciler.requeued(); });
}

void ExposeEmbeddingMetrics(MetricsRegistry& registry, const EmbedderCounters& client,
                            std::span<const std::unique_ptr<EmbeddingWorker>> workers,
                            const Ingestion& ingestion) {
  const auto add = [&registry](std::string name, std::string help,
                               const std::atomic<std::uint64_t>& counter) {
    AddAtomicCounter(registry, std::move(name), std::move(help), counter);
  };
  add("docgate_embedding_requests_total",
      "Requests sent to the embeddings provider, retries included.", client.requests);
  add("docgate_embedding_failed_requests_total",
      "Requests to the embeddings provider answered with no usable vectors.",
      client.failed_requests);
  add("docgate_embedding_inputs_total", "Texts the embeddings provider embedded.", client.inputs);
  add("docgate_embedding_refused_inputs_total",
      "Texts the embeddings provider refused for good (their versions' ingestion failed).",
      client.rejected_inputs);
  add("docgate_embedding_tokens_total", "Tokens the embeddings provider reported using.",
      client.tokens);
  registry.AddCounterCallback(
      "docgate_embedding_cache_hits_total",
      "Chunks ingested whose text had a stored vector already, so none was computed for them.",
      [&ingestion] { return ingestion.reused_vectors(); });
  using Counter = std::atomic<std::uint64_t> EmbeddingWorkerCounters::*;
  const auto add_summed = [&registry, workers](std::string name, std::string help,
                                               Counter counter) {
    registry.AddCounterCallback(std::move(name), std::move(help), [workers, counter] {
      std::uint64_t total = 0;
      for (const auto& worker : workers) total += (worker->counters().*counter).load();
      return total;
    });
  };
  add_summed("docgate_embedding_unavailable_total",
             "Embedding rounds the provider could not serve (retried after Retry-After).",
             &EmbeddingWorkerCounters::unavailable);
  add_summed("docgate_embedding_documents_done_total",
             "Approved versions whose ingestion the embeddings completed.",
             &EmbeddingWorkerCounters::documents_done);
  add_summed("docgate_embedding_documents_failed_total",
             "Approved versions whose ingestion failed on a refused text.",
             &EmbeddingWorkerCounters::documents_failed);
  add_summed("docgate_embedding_orphans_purged_total",
             "Stored vectors deleted after no chunk had their text for the grace period.",
             &EmbeddingWorkerCounters::purged);
  auto backlog = std::make_shared<std::optional<double>>();
  EmbeddingWorker& worker = *workers.front();  // the count is the database's, the same for all
  registry.OnScrape([backlog, &worker] {
    backlog->reset();
    try {
      *backlog = static_cast<double>(worker.Backlog());
    } catch (const std::exception& e) {
      spdlog::debug("metrics: embeddings backlog unavailable: {}", e.what());
    }
  });
  registry.AddGaugeCallback("docgate_embedding_backlog_texts",
                            "Distinct texts of approved versions without a vector yet.",
                            [backlog] { return *backlog; });
}

void ExposeJanitorMetrics(MetricsRegistry& registry, const JanitorCounters& counters) {
  AddAtomicCounter(registry, "docgate_inbox_rows_pruned_total",
                   "Done consumer inbox rows deleted after the inbox retention.",
                   counters.inbox_pruned);
}

void ExposeRelayMetrics(MetricsRegistry& registry, const RelayCounters& counters) {
  const auto add = [&registry](std::string name, std::string help,
                               const std::atomic<std::uint64_t>& counter) {
    AddAtomicCounter(registry, std::move(name), std::move(help), counter);
  };
  add("docgate_relay_events_published_total",
      "Outbox events delivered: acked by the broker, or handled by the in-process consumers.",
      counters.delivered);
  add("docgate_relay_events_returned_total",
      "Outbox events the broker returned as unroutable; they stay pending.", counters.returned);
  add("docgate_relay_events_nacked_total",
      "Outbox events the broker refused (nack); they stay pending.", counters.nacked);
  add("docgate_relay_events_failed_total",
      "Outbox events an in-process consumer failed on; they stay pending.", counters.failed);
  add("docgate_relay_events_pruned_total",
      "Delivered outbox events deleted after the retention.", counters.pruned);
  add("docgate_relay_errors_total",
      "Relay rounds that failed because the sink or the store was unreachable.", counters.errors);
  add("docgate_relay_claim_renewals_total",
      "Renewals of the outbox claims of a batch the sink was still delivering.", counters.renewals);
  add("docgate_relay_claim_renewal_errors_total",
      "Claim renewals that failed because the store was unreachable.", counters.renewal_errors);
  add("docgate_relay_claims_lost_total",
      "Events of a batch in flight that another instance claimed after this one's claims ran out; "
      "they may be delivered twice.",
      counters.claims_lost);
}

void ExposeIdentityMetrics(MetricsRegistry& registry, const OidcKeySet& keys) {
  registry.AddCounterCallback("docgate_oidc_key_fetches_total",
                              "Fetches of the OpenID issuer's key set begun (at start, every 10 "
                              "minutes, on an unknown kid at most once per interval).",
                              [&keys] { return keys.key_fetches(); });
  registry.AddGaugeCallback("docgate_oidc_keys_available",
                            "1 while the last fetch of the issuer's keys succeeded, else 0.",
                            [&keys] { return std::optional<double>(keys.healthy() ? 1 : 0); });
}

}  // namespace docgate
