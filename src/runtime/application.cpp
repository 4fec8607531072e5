#include "runtime/application.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "adapters/crypto/openssl_digest.h"
#include "adapters/http/sign_in_cookies.h"
#include "adapters/in_process/disabled_lock_gate.h"
#include "adapters/oidc/oidc_identity_provider.h"
#include "adapters/oidc/oidc_sign_in.h"
#include "adapters/redis/redis_lock_gate.h"
#include "app/console_sessions.h"
#include "runtime/log_redaction.h"

#include <algorithm>
#include <utility>

namespace docgate {

namespace {

// What an import's body may hold beyond its file: the multipart delimiters, the parts' headers
// and a title.
constexpr std::size_t kImportFramingBytes = 64 * 1024;

}  // namespace

namespace {

// Queries are embedded while a searcher waits: one attempt, at most 5 s, and the breaker opens at
// once so that hybrid searches fall back to keywords without waiting on a provider that is down.
// One attempt, bounded by the query's deadline: a searcher waits no longer than that
// (DeadlineEmbedder), and a request it gave up on frees its thread soon after.
EmbeddingsConfig QueryEmbeddingsConfig(EmbeddingsConfig config) {
  config.max_attempts = 1;
  config.concurrency = config.query_concurrency;
  config.request_timeout = std::min(config.request_timeout, config.query_timeout);
  config.connect_timeout = std::min(config.connect_timeout, config.query_timeout);
  return config;
}

}  // namespace

Application::Application(Config config, Clock* clock) : config_(std::move(config)) {
  ValidateConfig(config_);
  ReserveOpenFiles(config_);
  if (clock == nullptr) {
    system_clock_ = std::make_unique<SystemClock>();
    clock = system_clock_.get();
  }
  clock_ = clock;
  random_ = std::make_unique<OpenSslRandom>();
  metrics_ = std::make_unique<MetricsRegistry>();
  // Validated: a generated or filed secret is one, DOCGATE_JWT_SECRET may list several.
  jwt_secrets_ = *SplitJwtSecrets(ResolveJwtSecret(config_, *random_));
  stores_ = OpenStores(config_);
  ExposePoolMetrics(*metrics_, stores_.pool_stats);
  ExposeOutboxMetrics(*metrics_, *stores_.outbox, *clock_);
  RedisLockGate* redis_gate = nullptr;
  if (config_.gate.enabled && !config_.redis.url.empty()) {
    auto redis = std::make_unique<RedisLockGate>(config_.redis, *random_, config_.gate.key_prefix);
    redis_gate = redis.get();
    gate_ = std::move(redis);
  } else if (config_.gate.enabled) {
    gate_ = std::make_unique<InProcessLockGate>(*clock_, *random_, config_.gate.key_prefix);
  } else {
    gate_ = std::make_unique<DisabledLockGate>();
  }
  std::function<std::uint64_t()> lost_leases;  // the in-process gates: counted from releases
  if (redis_gate != nullptr) lost_leases = [redis_gate] { return redis_gate->lost_leases(); };
  observed_gate_ = std::make_unique<ObservedLockGate>(*gate_, *metrics_, std::move(lost_leases));
  consumers_ = std::make_unique<InProcessEventSink>();
  sink_ = consumers_.get();
  if (!config_.amqp.url.empty()) {
    broker_ = std::make_unique<AmqpEventSink>(config_.amqp);
    sink_ = broker_.get();
  }
  relay_ = std::make_unique<OutboxRelay>(*stores_.outbox, *sink_, *clock_, config_.relay);
  ExposeRelayMetrics(*metrics_, relay_->counters());
  pipeline_ = std::make_unique<ConsumerPipeline>(config_, stores_, *clock_, relay_.get());
  if (broker_ == nullptr) consumers_->Register(pipeline_->runner());
  ExposeConsumerMetrics(*metrics_, pipeline_->runner().counters(), pipeline_->reconciler());
  if (!pipeline_->embedding_workers().empty()) {
    ExposeEmbeddingMetrics(*metrics_, pipeline_->embedder()->counters(),
                           pipeline_->embedding_workers(), pipeline_->ingestion());
  }
  service_ = std::make_unique<DocumentService>(*stores_.documents, *observed_gate_, *clock_, *random_,
                                               *relay_, ToServiceConfig(config_));
  if (!config_.embeddings.url.empty()) {
    query_embedder_ = std::make_unique<OpenAiEmbedder>(QueryEmbeddingsConfig(config_.embeddings));
    query_deadline_ = std::make_unique<DeadlineEmbedder>(
        *query_embedder_, config_.embeddings.query_timeout, config_.embeddings.query_concurrency);
    vector_index_ = std::make_unique<FaissVectorIndex>(config_.embeddings.dimensions);
    semantic_ = std::make_unique<SemanticSearch>(*query_deadline_, *stores_.embeddings,
                                                 *vector_index_, *clock_);
  }
  reader_ =
      std::make_unique<ReaderService>(*stores_.documents, pipeline_->previews(), *stores_.chunks,
                                      config_.consumers.reader, semantic_.get());
  idempotency_ = std::make_unique<IdempotencyService>(*stores_.idempotency, *clock_, *random_,
                                                      config_.idempotency);
  janitor_ = std::make_unique<Janitor>(*idempotency_, *stores_.inbox, *clock_, config_.janitor);
  ExposeJanitorMetrics(*metrics_, janitor_->counters());
  if (!config_.oidc.issuer.empty()) {
    auto provider = std::make_unique<OidcIdentityProvider>(
        config_.oidc, *clock_, MakeWebFetcher(config_.oidc.ca_file, config_.oidc.timeout));
    provider->Start();
    provider->StartRefresher();
    ExposeIdentityMetrics(*metrics_, provider->keys());
    if (!config_.auth.public_url.empty()) {
      digest_ = std::make_unique<OpenSslDigest>();
      sessions_ = std::make_unique<ConsoleSessions>(*stores_.sessions, *digest_, *random_, *clock_,
                                                    config_.auth.session_ttl);
      sign_in_ = std::make_unique<OidcSignIn>(
          *provider, MakeWebFormPoster(config_.oidc.ca_file, config_.oidc.timeout));
    }
    identity_ = std::move(provider);
  }
  verifier_ = std::make_unique<JwtVerifier>(jwt_secrets_, *clock_, identity_.get());
  HealthChecks health;
  if (identity_ != nullptr)
    health.identity = [identity = identity_.get()] { return identity->State(); };
  health.database = [store = stores_.documents] { return store->Ping(); };
  if (!config_.gate.enabled) health.lock = [] { return std::string("disabled"); };
  if (redis_gate != nullptr) health.lock = [redis_gate] { return redis_gate->State(); };
  if (broker_ != nullptr) health.broker = [broker = broker_.get()] { return broker->State(); };
  if (OpenAiEmbedder* embedder = pipeline_->embedder(); embedder != nullptr) {
    health.embeddings = [embedder] {
      return std::string(embedder->available() ? "ok" : "degraded");
    };
  }
  health.metrics = [metrics = metrics_.get()] { return metrics->Expose(); };
  user_names_ = std::make_unique<UserNames>(*stores_.users, *clock_);
  ConsoleSignIn sign_in;
  if (sign_in_ != nullptr) {
    sign_in = ConsoleSignIn{sign_in_.get(),          sessions_.get(),
                            random_.get(),           clock_,
                            config_.auth.public_url, LoginStateKey(*digest_, jwt_secrets_.front())};
  }
  converter_ = std::make_unique<ProcessConverter>(config_.import);
  if (digest_ == nullptr) digest_ = std::make_unique<OpenSslDigest>();
  importer_ = std::make_unique<DocumentImporter>(*service_, *converter_, *digest_,
                                                 config_.import.max_bytes);
  api_ = std::make_unique<RestApi>(*service_, *reader_, *idempotency_, *user_names_, *verifier_,
                                   std::move(health), std::move(sign_in), importer_.get());
  // An import's body: the file and the multipart framing around it.
  config_.http.upload_path = "/api/v1/documents/import";
  config_.http.upload_body_limit = config_.import.max_bytes + kImportFramingBytes;

  log_format_ = LogFormatOf(config_.log.format);
  std::vector<std::string> secrets = SecretsOf(config_);
  // Generated or read from its file, or one of a list: in no variable as it is.
  secrets.insert(secrets.end(), jwt_secrets_.begin(), jwt_secrets_.end());
  log_secrets_ = std::make_shared<const SecretPieces>(std::move(secrets));
  auto stderr_sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  stderr_sink->set_formatter(RequestLogFormatter());
  request_log_sinks_ = std::make_shared<spdlog::sinks::dist_sink_mt>();
  request_log_sinks_->add_sink(std::move(stderr_sink));
  auto request_logger = std::make_shared<spdlog::logger>("request", request_log_sinks_);
  request_logger->set_level(spdlog::level::from_str(config_.log.level));
  request_log_ = std::make_unique<RequestLog>(
      std::move(request_logger),
      log_format_ == LogFormat::kJson ? RequestLog::Form::kJson : RequestLog::Form::kText);
  // docgate_idempotent_replays_total is counted in here too, from each response's
  // `Idempotent-Replayed: true`, so the idempotency code needs no handle on the registry.
  http_metrics_ = std::make_unique<HttpMetrics>(*metrics_);
  server_ = std::make_unique<HttpServer>(
      config_.http,
      [api = api_.get()](const HttpRequest& request, RequestTrace& trace) {
        return api->Handle(request, trace);
      },
      *random_, std::vector<RequestObserver*>{request_log_.get(), http_metrics_.get()},
      [api = api_.get()](const HttpRequestHeader& header, RequestTrace& trace) {
        return api->Screen(header, trace);
      });
  ExposeHttpServerMetrics(*metrics_, [server = server_.get()] { return server->stats(); });
}

void Application::AddRequestLogSink(std::shared_ptr<spdlog::sinks::sink> sink) {
  sink->set_formatter(RequestLogFormatter());
  request_log_sinks_->add_sink(std::move(sink));
}

// A JSON request line is RequestLog's own object; a text one reads like every other text line.
std::unique_ptr<spdlog::formatter> Application::RequestLogFormatter() const {
  if (log_format_ == LogFormat::kText) {
    return std::make_unique<LogLineFormatter>(LogFormat::kText, log_secrets_);
  }
  return std::make_unique<RedactingFormatter>(RequestLog::MakeFormatter(), log_secrets_);
}

Application::~Application() { Stop(); }

void Application::AddConsumer(EventConsumer& consumer) { consumers_->Register(consumer); }

void Application::Start() {
  if (IsPostgresUrl(config_.database.url)) {
    listener_ = std::make_unique<PgOutboxListener>(ToPgConfig(config_), *relay_);
  }
  relay_thread_ =
      std::jthread([relay = relay_.get()](std::stop_token stop) { relay->Run(stop); });
  janitor_thread_ =
      std::jthread([janitor = janitor_.get()](std::stop_token stop) { janitor->Run(stop); });
  if (config_.consumers.in_serve) pipeline_->Start();
  if (semantic_ != nullptr) {
    // The stored vectors, loaded before the first search needs them (seconds at 100,000); until
    // then semantic and hybrid searches answer by keywords.
    index_loader_ = std::jthread([semantic = semantic_.get()](std::stop_token stop) {
      try {
        semantic->Follow(stop);
      } catch (const std::exception& e) {
        spdlog::warn("vector index: the first load failed, the next search retries: {}", e.what());
      }
    });
  }
  started_ = true;
  server_->Start();
}

std::uint16_t Application::port() const { return server_->port(); }

void Application::Stop() {
  if (!started_) return;
  started_ = false;
  server_->Stop();
  if (relay_thread_.joinable()) {
    relay_thread_.request_stop();
    relay_thread_.join();
  }
  for (std::jthread* thread : {&janitor_thread_, &index_loader_}) {
    if (!thread->joinable()) continue;
    thread->request_stop();
    thread->join();
  }
  pipeline_->Stop();
  if (query_embedder_ != nullptr) query_embedder_->Shutdown();
  listener_.reset();
}

}  // namespace docgate
