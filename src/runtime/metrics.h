#pragma once

// The docgate_* metrics of a running docgate, apart from the gate's (ObservedLockGate): the HTTP
// series recorded per request, and the series read from the pool, the outbox and the relay at
// scrape time. Names, labels and units follow Prometheus' conventions (base units, `_total` for
// counters); README.md lists them.

#include <functional>
#include <memory>
#include <span>

#include "adapters/http/http_server.h"
#include "adapters/http/request_trace.h"
#include "adapters/oidc/oidc_key_set.h"
#include "adapters/openai/openai_embedder.h"
#include "adapters/prometheus/metrics_registry.h"
#include "app/consumer_runner.h"
#include "app/ingestion.h"
#include "app/pool_stats.h"
#include "app/ports/clock.h"
#include "app/ports/outbox_store.h"
#include "worker/embedding_worker.h"
#include "worker/janitor.h"
#include "worker/outbox_relay.h"
#include "worker/reconciler.h"

namespace docgate {

// Per answered request (an HttpServer observer):
//   docgate_http_requests_total{method,route,status}
//   docgate_http_request_duration_seconds{method,route}   histogram, LatencyBuckets()
//   docgate_http_requests_shed_total{reason}             503s the server answered instead of
//       handling the request (RequestTrace::shed: connections, queue_full, queue_timeout)
//   docgate_idempotent_replays_total                     responses carrying
//       `Idempotent-Replayed: true` (shared/API.md "Idempotency"): a replay is counted here, where
//       every response passes, and nowhere else
// `route` is the route template or "unmatched" (RequestTrace), `method` a MethodLabel, so every
// label is of bounded variety. Thread-safe; `registry` must outlive it.
class HttpMetrics final : public RequestObserver {
 public:
  explicit HttpMetrics(MetricsRegistry& registry);
  void OnRequest(const CompletedRequest& request) noexcept override;

 private:
  CounterFamily& requests_;
  HistogramFamily& durations_;
  Counter& replays_;
  CounterFamily& shed_;
};

// docgate_http_connections, docgate_http_connections_waiting, docgate_http_busy_workers,
// docgate_http_queued_requests, docgate_http_connections_refused_total and
// docgate_http_connections_evicted_total, from `stats` (HttpServer::stats) at every scrape.
void ExposeHttpServerMetrics(MetricsRegistry& registry, std::function<HttpServerStats()> stats);

// docgate_db_pool_connections_in_use, docgate_db_pool_waiting and docgate_db_pool_connections_max,
// from `stats` at every scrape. `stats` must be cheap and not throw.
void ExposePoolMetrics(MetricsRegistry& registry, std::function<PoolStats()> stats);

// docgate_outbox_backlog_events and docgate_outbox_oldest_pending_age_seconds (0 when nothing is
// pending; ages on `clock`), from one OutboxStore::Backlog() query per scrape. While the store
// throws (database down) both samples are left out of the scrape. `outbox` and `clock` must
// outlive the registry's scrapes.
void ExposeOutboxMetrics(MetricsRegistry& registry, OutboxStore& outbox, Clock& clock);

// From the relay's counters: docgate_relay_events_published_total (delivered: acked by the broker,
// or handled by the in-process consumers), docgate_relay_events_returned_total (unroutable),
// docgate_relay_events_nacked_total (refused by the broker), docgate_relay_events_failed_total (a
// consumer failed), docgate_relay_events_pruned_total, docgate_relay_errors_total (rounds that
// failed: sink or store unreachable), docgate_relay_claim_renewals_total,
// docgate_relay_claim_renewal_errors_total and docgate_relay_claims_lost_total (events of a batch
// in flight another instance took over). `counters` must outlive the registry's scrapes.
void ExposeRelayMetrics(MetricsRegistry& registry, const RelayCounters& counters);

// From the janitor's counters: docgate_inbox_rows_pruned_total (`done` consumer inbox rows deleted
// after the inbox retention). `counters` must outlive the registry's scrapes.
void ExposeJanitorMetrics(MetricsRegistry& registry, const JanitorCounters& counters);

// The consumers (ConsumerRunner's counters, per consumer and event) and the reconciler's
// re-enqueued approvals. Both must outlive the registry's scrapes.
void ExposeConsumerMetrics(MetricsRegistry& registry, const ConsumerCounters& counters,
                           const Reconciler& reconciler);

// The embeddings (ADR 0010), from the client's counters (docgate_embedding_requests_total,
// _failed_requests_total, _inputs_total, _refused_inputs_total, _tokens_total) and the workers'
// (summed)
// (docgate_embedding_unavailable_total, _documents_done_total, _documents_failed_total,
// _orphans_purged_total), ingestion's docgate_embedding_cache_hits_total, and
// docgate_embedding_backlog_texts (texts of approved versions without a vector: one query per
// scrape, left out while the database is down). All must outlive the registry's scrapes.
void ExposeEmbeddingMetrics(MetricsRegistry& registry, const EmbedderCounters& client,
                            std::span<const std::unique_ptr<EmbeddingWorker>> workers,
                            const Ingestion& ingestion);

// The OpenID issuer's side: docgate_oidc_key_fetches_total (fetches of its key set begun) and
// docgate_oidc_keys_available (1 while the last fetch succeeded). `keys` must outlive the
// registry's scrapes.
void ExposeIdentityMetrics(MetricsRegistry& registry, const OidcKeySet& keys);

}  // namespace docgate
