#include "runtime/application.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "adapters/memory/disabled_lock_gate.h"
#include "adapters/pg/pg_document_store.h"
#include "adapters/redis/redis_lock_gate.h"

#include <utility>

namespace docgate {

SqliteConfig ToSqliteConfig(const Config& config) {
  SqliteConfig sqlite;
  sqlite.path = SqlitePath(config.database.url).value_or(std::string{});
  sqlite.pool_size = config.database.pool_size;
  sqlite.busy_timeout = config.database.busy_timeout;
  sqlite.outbox_claim_ttl = config.relay.claim_ttl;
  return sqlite;
}

PgConfig ToPgConfig(const Config& config) {
  PgConfig pg;
  pg.url = config.database.url;
  pg.pool_size = config.database.pool_size;
  pg.connect_timeout = config.database.connect_timeout;
  pg.statement_timeout = config.database.statement_timeout;
  pg.pool_wait_timeout = config.database.busy_timeout;
  pg.outbox_claim_ttl = config.relay.claim_ttl;
  return pg;
}

void ApplyMigrations(const Config& config) {
  ValidateConfig(config);
  if (IsPostgresUrl(config.database.url)) {
    PgDocumentStore::Migrate(ToPgConfig(config));
  } else {
    SqliteDocumentStore store(ToSqliteConfig(config));
  }
}

namespace {

template <typename Store, typename StoreConfig>
OpenedStore Open(StoreConfig store_config) {
  auto store = std::make_unique<Store>(std::move(store_config));
  OpenedStore opened;
  opened.outbox = store.get();
  opened.idempotency = store.get();
  opened.consumers = store.get();
  opened.pool_stats = [raw = store.get()] { return raw->pool_stats(); };
  opened.documents = std::move(store);
  return opened;
}

}  // namespace

OpenedStore OpenStore(const Config& config) {
  return IsPostgresUrl(config.database.url) ? Open<PgDocumentStore>(ToPgConfig(config))
                                            : Open<SqliteDocumentStore>(ToSqliteConfig(config));
}

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
  jwt_secret_ = ResolveJwtSecret(config_, *random_);
  OpenedStore opened = OpenStore(config_);
  store_ = std::move(opened.documents);
  outbox_ = opened.outbox;
  idempotency_store_ = opened.idempotency;
  consumer_store_ = opened.consumers;
  ExposePoolMetrics(*metrics_, std::move(opened.pool_stats));
  ExposeOutboxMetrics(*metrics_, *outbox_, *clock_);
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
  relay_ = std::make_unique<OutboxRelay>(*outbox_, *sink_, *clock_, config_.relay);
  ExposeRelayMetrics(*metrics_, relay_->counters());
  pipeline_ = std::make_unique<ConsumerPipeline>(
      config_, *consumer_store_, *store_, *clock_, relay_.get());
  if (broker_ == nullptr) consumers_->Register(pipeline_->runner());
  ExposeConsumerMetrics(*metrics_, pipeline_->runner().counters(), pipeline_->reconciler());
  service_ = std::make_unique<DocumentService>(*store_, *observed_gate_, *clock_, *random_,
                                               *relay_, ToServiceConfig(config_));
  reader_ = std::make_unique<ReaderService>(*store_, pipeline_->previews(), *consumer_store_,
                                            config_.consumers.reader);
  idempotency_ = std::make_unique<IdempotencyService>(*idempotency_store_, *clock_, *random_,
                                                      config_.idempotency);
  janitor_ = std::make_unique<Janitor>(*idempotency_, *consumer_store_, *clock_, config_.janitor);
  ExposeJanitorMetrics(*metrics_, janitor_->counters());
  verifier_ = std::make_unique<JwtVerifier>(jwt_secret_, *clock_);
  HealthChecks health;
  health.database = [store = store_.get()] { return store->Ping(); };
  if (!config_.gate.enabled) health.lock = [] { return std::string("disabled"); };
  if (redis_gate != nullptr) health.lock = [redis_gate] { return redis_gate->State(); };
  if (broker_ != nullptr) health.broker = [broker = broker_.get()] { return broker->State(); };
  health.metrics = [metrics = metrics_.get()] { return metrics->Expose(); };
  api_ = std::make_unique<RestApi>(*service_, *reader_, *idempotency_, *verifier_, std::move(health));

  auto stderr_sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  stderr_sink->set_formatter(RequestLog::MakeFormatter());
  request_log_sinks_ = std::make_shared<spdlog::sinks::dist_sink_mt>();
  request_log_sinks_->add_sink(std::move(stderr_sink));
  auto request_logger = std::make_shared<spdlog::logger>("request", request_log_sinks_);
  request_logger->set_level(spdlog::level::from_str(config_.log.level));
  request_log_ = std::make_unique<RequestLog>(std::move(request_logger));
  // docgate_idempotent_replays_total is counted in here too, from each response's
  // `Idempotent-Replayed: true`, so the idempotency code needs no handle on the registry.
  http_metrics_ = std::make_unique<HttpMetrics>(*metrics_);
  server_ = std::make_unique<HttpServer>(
      config_.http,
      [api = api_.get()](const HttpRequest& request, RequestTrace& trace) {
        return api->Handle(request, trace);
      },
      *random_, std::vector<RequestObserver*>{request_log_.get(), http_metrics_.get()});
  ExposeHttpServerMetrics(*metrics_, [server = server_.get()] { return server->stats(); });
}

void Application::AddRequestLogSink(std::shared_ptr<spdlog::sinks::sink> sink) {
  sink->set_formatter(RequestLog::MakeFormatter());
  request_log_sinks_->add_sink(std::move(sink));
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
  if (janitor_thread_.joinable()) {
    janitor_thread_.request_stop();
    janitor_thread_.join();
  }
  pipeline_->Stop();
  listener_.reset();
}

}  // namespace docgate
