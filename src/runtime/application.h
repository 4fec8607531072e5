#pragma once

#include <spdlog/logger.h>
#include <spdlog/sinks/dist_sink.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "adapters/amqp/amqp_event_sink.h"
#include "adapters/convert/process_converter.h"
#include "adapters/crypto/openssl_digest.h"
#include "adapters/crypto/openssl_random.h"
#include "adapters/faiss/faiss_vector_index.h"
#include "adapters/http/http_server.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/http/rest_api.h"
#include "adapters/in_process/in_process_lock_gate.h"
#include "adapters/oidc/oidc_sign_in.h"
#include "adapters/openai/openai_embedder.h"
#include "adapters/pg/pg_config.h"
#include "adapters/pg/pg_outbox_listener.h"
#include "adapters/prometheus/metrics_registry.h"
#include "adapters/prometheus/observed_lock_gate.h"
#include "app/console_sessions.h"
#include "app/deadline_embedder.h"
#include "app/document_import.h"
#include "app/document_service.h"
#include "app/idempotency.h"
#include "app/ports/clock.h"
#include "app/reader_service.h"
#include "app/semantic_search.h"
#include "app/system_clock.h"
#include "app/user_names.h"
#include "runtime/config.h"
#include "runtime/consumer_pipeline.h"
#include "runtime/log_line_formatter.h"
#include "runtime/metrics.h"
#include "runtime/open_stores.h"
#include "worker/in_process_event_sink.h"
#include "worker/janitor.h"
#include "worker/outbox_relay.h"

namespace docgate {

// One running docgate wired from a Config: the store its DOCGATE_DATABASE_URL names (SQLite or
// PostgreSQL), the Redis lock gate when DOCGATE_REDIS_URL is set, else the in-process one (or none,
// DOCGATE_LOCK_GATE=off), the outbox relay on its own thread delivering to RabbitMQ when
// DOCGATE_AMQP_URL is set, else in process (woken by PostgreSQL's NOTIFY as well as by this
// instance's commits), the janitor pruning expired Idempotency-Keys on its own thread, the
// consumers (ConsumerPipeline: in process, or from the broker's queue, unless
// DOCGATE_CONSUMERS=off), the use cases and the HTTP server. main.cpp and the end-to-end tests
// build exactly this.
//
// Observability: GET /metrics exposes `metrics()` (the gate through ObservedLockGate, the HTTP
// series, the pool, the outbox and the relay: runtime/metrics.h); every answered request writes one
// line to the request log (RequestLog), on stderr at config.log.level, a JSON object or text as
// config.log.format says. (The level and format of the other logs are main.cpp's business.)
//
// Lifecycle: construct (validates the config, resolves the JWT secret, opens the store and applies
// migrations) -> AddConsumer... -> Start -> Stop (also run by the destructor). Not thread-safe
// except where noted.
class Application {
 public:
  // Throws ConfigError for an invalid config or JWT secret, StorageUnavailable when the database
  // cannot be opened or migrated. `clock`, when given (tests), replaces the system clock and must
  // outlive the application.
  explicit Application(Config config, Clock* clock = nullptr);
  ~Application();
  Application(const Application&) = delete;
  Application& operator=(const Application&) = delete;

  // Registers an observer of the events delivered in process, outside the inbox (after the
  // built-in consumers, which run behind it); with a broker configured, events go to the broker
  // instead. Only before Start; `consumer` must outlive the application.
  void AddConsumer(EventConsumer& consumer);

  // Starts event delivery (undelivered events left by a previous run go first), the janitor and
  // the HTTP server; returns once the port is bound. Throws std::runtime_error when it cannot bind.
  void Start();
  // The bound HTTP port (the real one when the config says port 0). Thread-safe.
  std::uint16_t port() const;
  // Graceful: the HTTP server stops accepting and finishes in-flight requests, then event
  // delivery and the janitor stop. Idempotent.
  void Stop();

  const Config& config() const { return config_; }
  // The secret HS256 tokens are issued with (the first of DOCGATE_JWT_SECRET's).
  const std::string& jwt_secret() const { return jwt_secrets_.front(); }
  // What tests and benchmarks look at behind the HTTP API; docgate itself never uses it.
  struct Internals {
    Clock& clock;
    DocumentService& service;
    ReaderService& reader;
    ConsumerPipeline& pipeline;
    IdempotencyService& idempotency;
    LockGate& gate;
    const Stores& stores;  // the database's, one per port
    OutboxRelay& relay;
    MetricsRegistry& metrics;
  };
  Internals internals() {
    return {*clock_, *service_, *reader_, *pipeline_, *idempotency_,
            *gate_,  stores_,   *relay_,  *metrics_};
  }
  // Sends the request log to `sink` as well, in config.log.format's form (a JSON line is
  // RequestLog::MakeFormatter's), the secrets hidden. Thread-safe, at any time.
  void AddRequestLogSink(std::shared_ptr<spdlog::sinks::sink> sink);

 private:
  std::unique_ptr<spdlog::formatter> RequestLogFormatter() const;

  Config config_;
  std::unique_ptr<SystemClock> system_clock_;
  Clock* clock_;
  std::unique_ptr<OpenSslRandom> random_;
  std::unique_ptr<MetricsRegistry> metrics_;  // before everything it reads at a scrape
  std::vector<std::string> jwt_secrets_;
  Stores stores_;
  std::unique_ptr<LockGate> gate_;
  std::unique_ptr<ObservedLockGate> observed_gate_;  // gate_ as the use cases see it: counted
  std::unique_ptr<InProcessEventSink> consumers_;    // the in-process delivery, and AddConsumer's
  std::unique_ptr<AmqpEventSink> broker_;            // DOCGATE_AMQP_URL: events go to RabbitMQ
  EventSink* sink_ = nullptr;                        // the one of the two the relay delivers to
  std::unique_ptr<OutboxRelay> relay_;
  std::unique_ptr<PgOutboxListener> listener_;  // PostgreSQL only: NOTIFY -> relay_->Wake()
  std::unique_ptr<ConsumerPipeline> pipeline_;
  std::unique_ptr<DocumentService> service_;
  // DOCGATE_EMBEDDINGS_URL: search by meaning (ADR 0010), with an embedder of its own for
  // queries (one short attempt, waited for at most DOCGATE_EMBEDDINGS_QUERY_TIMEOUT_MS) and this
  // instance's index of the stored vectors.
  std::unique_ptr<OpenAiEmbedder> query_embedder_;
  std::unique_ptr<DeadlineEmbedder> query_deadline_;  // after query_embedder_: destroyed first
  std::unique_ptr<FaissVectorIndex> vector_index_;
  std::unique_ptr<SemanticSearch> semantic_;
  std::unique_ptr<ReaderService> reader_;
  std::unique_ptr<IdempotencyService> idempotency_;
  std::unique_ptr<Janitor> janitor_;
  std::unique_ptr<IdentityProvider> identity_;  // DOCGATE_OIDC_ISSUER's, or none
  std::unique_ptr<UserNames> user_names_;
  std::unique_ptr<JwtVerifier> verifier_;
  // The console's sign-in through the issuer (DOCGATE_OIDC_ISSUER and DOCGATE_PUBLIC_URL), or none.
  std::unique_ptr<OpenSslDigest> digest_;
  std::unique_ptr<ConsoleSessions> sessions_;
  std::unique_ptr<OidcSignIn> sign_in_;
  // POST /api/v1/documents/import: files converted by child processes (ADR 0016).
  std::unique_ptr<ProcessConverter> converter_;
  std::unique_ptr<DocumentImporter> importer_;
  std::unique_ptr<RestApi> api_;
  LogFormat log_format_ = LogFormat::kJson;
  std::shared_ptr<const SecretPieces> log_secrets_;  // the config's and the JWT secret
  std::shared_ptr<spdlog::sinks::dist_sink<std::mutex>> request_log_sinks_;
  std::unique_ptr<RequestLog> request_log_;
  std::unique_ptr<HttpMetrics> http_metrics_;
  std::unique_ptr<HttpServer> server_;
  std::jthread relay_thread_;
  std::jthread janitor_thread_;
  std::jthread index_loader_;  // the vector index's first load (SemanticSearch::Follow)
  bool started_ = false;
};

}  // namespace docgate
