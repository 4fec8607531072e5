#include "runtime/config_table.h"

#include <algorithm>
#include <array>

#include "core/chunker.h"
#include "runtime/config_rows.h"

namespace docgate {
namespace {

using enum ConfigComponent;
using namespace config_rows;

constexpr std::string_view kWithEmbeddings = "checked with `DOCGATE_EMBEDDINGS_URL` only";
constexpr std::string_view kWithIssuer = "needs `DOCGATE_OIDC_ISSUER`";

// The bounds are the validators' (ValidateHttpConfig, ValidateRedisConfig, ...): a unit test
// proves each one against ValidateConfig.
constexpr std::array kVariables{
    Listen(
        "DOCGATE_LISTEN", kHttp,
        "address and port to serve on (`--listen` wins); port 0 picks a free one",
        [](Config& c) -> auto& { return c.http; }),
    Integer(
        "DOCGATE_HTTP_IO_THREADS", kHttp, 1, 256,
        "threads that read and write the sockets (handlers run on the workers)",
        [](Config& c) -> auto& { return c.http.io_threads; }),
    Integer(
        "DOCGATE_HTTP_WORKERS", kHttp, 1, 1024,
        "threads that run the request handlers (blocking database work)",
        [](Config& c) -> auto& { return c.http.worker_threads; })
        .DefaultFrom("DOCGATE_DB_POOL_SIZE"),
    Millis(
        "DOCGATE_HTTP_READ_TIMEOUT_MS", kHttp, 1,
        "how long a connection may take to deliver a request's body (or stay idle between "
        "keep-alive requests) and to accept a response",
        [](Config& c) -> auto& { return c.http.read_timeout; }),
    Millis(
        "DOCGATE_HTTP_HEADER_TIMEOUT_MS", kHttp, 1,
        "how long a request's header may take to arrive, from the connection's accept or the "
        "first byte of a later request; a connection that is slower is closed",
        [](Config& c) -> auto& { return c.http.header_timeout; }),
    Integer(
        "DOCGATE_HTTP_BODY_LIMIT", kHttp, 1, std::int64_t{1} << 30,
        "largest request body in bytes; a larger one is `413 PAYLOAD_TOO_LARGE`",
        [](Config& c) -> auto& { return c.http.body_limit; }),
    Integer(
        "DOCGATE_HTTP_MAX_CONNECTIONS", kHttp, 1, 1000000,
        "connections served at once; a few more are accepted to answer one request each "
        "(`503 UNAVAILABLE`, or a probe) and close. At start the open-file limit is raised "
        "to fit them beside the pools, or docgate refuses to start",
        [](Config& c) -> auto& { return c.http.max_connections; }),
    Integer(
        "DOCGATE_HTTP_QUEUE_LIMIT", kHttp, 1, 1000000,
        "requests waiting for a busy worker; one more is `503 UNAVAILABLE` with "
        "`Retry-After: 1`",
        [](Config& c) -> auto& { return c.http.queue_limit; }),
    Millis(
        "DOCGATE_HTTP_QUEUE_TIMEOUT_MS", kHttp, 1,
        "a request still waiting for a worker after this long is `503 UNAVAILABLE` with "
        "`Retry-After: 1`",
        [](Config& c) -> auto& { return c.http.queue_timeout; }),
    Millis(
        "DOCGATE_SHUTDOWN_GRACE_MS", kHttp, 0,
        "on SIGTERM, how long in-flight requests may finish before their connections are "
        "closed",
        [](Config& c) -> auto& { return c.http.shutdown_grace; }),

    Text(
        "DOCGATE_DATABASE_URL", kDatabase, ConfigType::kUrl,
        "`sqlite://PATH` or `postgresql://user:pass@host:port/db?sslmode=...` "
        "(`--database-url` wins)",
        [](Config& c) -> auto& { return c.database.url; }),
    Integer(
        "DOCGATE_DB_POOL_SIZE", kDatabase, 1, 1024,
        "database connections per process; also the default number of HTTP workers",
        [](Config& c) -> auto& { return c.database.pool_size; }),
    Millis(
        "DOCGATE_DB_BUSY_TIMEOUT_MS", kDatabase, 1,
        "longest wait for a free connection (or SQLite's write lock) before `503`",
        [](Config& c) -> auto& { return c.database.busy_timeout; }),
    Millis(
        "DOCGATE_DB_CONNECT_TIMEOUT_MS", kDatabase, 1,
        "PostgreSQL's connect timeout (applied in whole seconds, at least 1)",
        [](Config& c) -> auto& { return c.database.connect_timeout; }),
    Millis(
        "DOCGATE_DB_STATEMENT_TIMEOUT_MS", kDatabase, 1,
        "PostgreSQL's statement timeout, row-lock waits included",
        [](Config& c) -> auto& { return c.database.statement_timeout; }),

    Text(
        "DOCGATE_JWT_SECRET", kAuth, ConfigType::kSecret,
        "the HS256 secret tokens are signed and verified with, or several separated by commas "
        "while they rotate (issued with the first, accepted with any); unset on SQLite, one is "
        "generated into `DOCGATE_JWT_SECRET_FILE`",
        [](Config& c) -> auto& { return c.auth.jwt_secret; })
        .Rule("required unless the database is SQLite"),
    Text(
        "DOCGATE_JWT_SECRET_FILE", kAuth, ConfigType::kPath,
        "where the generated secret is kept while `DOCGATE_JWT_SECRET` is unset (SQLite only); "
        "unset: `jwt_secret` beside the SQLite file",
        [](Config& c) -> auto& { return c.auth.secret_file; }),
    Text(
        "DOCGATE_OIDC_ISSUER", kAuth, ConfigType::kUrl,
        "an OpenID Connect issuer (`https://`; `http://` only to this machine) whose RS256 and "
        "ES256 tokens are accepted too: `iss` exactly this, keys from its discovery document",
        [](Config& c) -> auto& { return c.oidc.issuer; }),
    Text(
        "DOCGATE_OIDC_CLIENT_ID", kAuth, ConfigType::kString,
        "docgate's client id at the issuer; the audience unless `DOCGATE_OIDC_AUDIENCE` is set",
        [](Config& c) -> auto& { return c.oidc.client_id; })
        .Rule(kWithIssuer),
    Text(
        "DOCGATE_OIDC_CLIENT_SECRET", kAuth, ConfigType::kSecret,
        "docgate's client secret at the issuer, sent to its token endpoint at a console sign-in "
        "(`client_secret_basic`); unset: a public client (PKCE alone)",
        [](Config& c) -> auto& { return c.oidc.client_secret; })
        .Rule(kWithIssuer),
    Text(
        "DOCGATE_OIDC_SCOPES", kAuth, ConfigType::kString,
        "the scopes a console sign-in asks for, space-separated, `openid` among them; the ID "
        "token must carry the roles claim (add the scope that gives it)",
        [](Config& c) -> auto& { return c.oidc.scopes; }),
    Text(
        "DOCGATE_PUBLIC_URL", kAuth, ConfigType::kUrl,
        "where browsers reach docgate (`https://kb.example.com`); with `DOCGATE_OIDC_ISSUER` the "
        "console signs people in through the issuer, redirect URI `<this>/auth/callback`",
        [](Config& c) -> auto& { return c.auth.public_url; }),
    Hours(
        "DOCGATE_SESSION_TTL_HOURS", kAuth, 1, 24 * 30,
        "how long a console session lasts after its sign-in",
        [](Config& c) -> auto& { return c.auth.session_ttl; }),
    Text(
        "DOCGATE_OIDC_AUDIENCE", kAuth, ConfigType::kString,
        "what an issuer's token's `aud` (a string or a list) must contain; unset: "
        "`DOCGATE_OIDC_CLIENT_ID`",
        [](Config& c) -> auto& { return c.oidc.audience; })
        .Rule(kWithIssuer),
    Text(
        "DOCGATE_OIDC_ROLES_CLAIM", kAuth, ConfigType::kString,
        "the claim holding the caller's groups (a list, or one space-separated string), or a "
        "dotted path to it (`realm_access.roles`)",
        [](Config& c) -> auto& { return c.oidc.roles_claim; }),
    Text(
        "DOCGATE_OIDC_ROLE_MAP", kAuth, ConfigType::kString,
        "`group=role,...`: the groups that give each role (`author`, `reviewer`, `admin`); "
        "other groups are ignored. Unset: values named like a role give that role",
        [](Config& c) -> auto& { return c.oidc.role_map; })
        .Rule(kWithIssuer),
    Text(
        "DOCGATE_OIDC_CA_FILE", kAuth, ConfigType::kPath,
        "PEM certificates an `https://` issuer is verified against; unset: the system's trust "
        "store",
        [](Config& c) -> auto& { return c.oidc.ca_file; })
        .Rule(kWithIssuer),
    Millis(
        "DOCGATE_OIDC_TIMEOUT_MS", kAuth, 1,
        "one fetch of the issuer's discovery document or keys, connect included",
        [](Config& c) -> auto& { return c.oidc.timeout; }),
    Millis(
        "DOCGATE_OIDC_KEYS_REFRESH_MS", kAuth, 1,
        "a token signed with a key not seen before refetches the issuer's keys at most once per "
        "this interval",
        [](Config& c) -> auto& { return c.oidc.keys_refresh; }),

    Integer(
        "DOCGATE_REVIEW_QUORUM", kReviews, 1, 10,
        "the distinct approvals a review needs; a submission may ask for more "
        "(`required_approvals`), never fewer",
        [](Config& c) -> auto& { return c.reviews.quorum; }),

    OnOff(
        "DOCGATE_LOCK_GATE", kGate,
        "`off` drops the outer lock gate; the database's row locks alone decide",
        [](Config& c) -> auto& { return c.gate.enabled; }),
    Text(
        "DOCGATE_LOCK_PREFIX", kGate, ConfigType::kString,
        "prefix of the gate's keys (`lock:doc:submit:{id}`, `lock:doc:review:{id}`)",
        [](Config& c) -> auto& { return c.gate.key_prefix; }),

    Text(
        "DOCGATE_REDIS_URL", kRedis, ConfigType::kUrl,
        "`redis://[user:pass@]host[:port][/db]`, `rediss://` (TLS), or "
        "`redis+sentinel://[user:pass@]s1:26379,s2:26379/master[/db]` to follow a Sentinel-managed "
        "master (`rediss+sentinel://`: TLS to the Sentinels and the master; the userinfo is the "
        "master's; `?sentinel_password=...[&sentinel_username=...]` authenticate to the "
        "Sentinels): the shared lock gate; unset: the in-process gate",
        [](Config& c) -> auto& { return c.redis.url; }),
    Text(
        "DOCGATE_REDIS_CA_FILE", kRedis, ConfigType::kPath,
        "PEM certificates `rediss://` servers (and `rediss+sentinel://` Sentinels) are verified "
        "against; unset: the system's trust store",
        [](Config& c) -> auto& { return c.redis.ca_file; }),
    Millis(
        "DOCGATE_REDIS_CONNECT_TIMEOUT_MS", kRedis, 1,
        "TCP connect + TLS handshake + AUTH/SELECT; also bounds the PING at start",
        [](Config& c) -> auto& { return c.redis.connect_timeout; }),
    Millis(
        "DOCGATE_REDIS_TIMEOUT_MS", kRedis, 1,
        "one gate command's round trip; a slower Redis is taken out of the path by the breaker",
        [](Config& c) -> auto& { return c.redis.command_timeout; }),
    Integer(
        "DOCGATE_REDIS_POOL_SIZE", kRedis, 1, 1024, "idle Redis connections kept for reuse",
        [](Config& c) -> auto& { return c.redis.pool_size; }),
    Millis(
        "DOCGATE_REDIS_BREAKER_MAX_MS", kRedis, 250,
        "longest pause of the circuit breaker after Redis failures (250 ms, doubling)",
        [](Config& c) -> auto& { return c.redis.breaker_max; }),
    Millis(
        "DOCGATE_REDIS_LEASE_MAX_HOLD_MS", kRedis, 1,
        "a slow holder's lock is renewed every TTL/3, but never held longer than this",
        [](Config& c) -> auto& { return c.redis.lease_max_hold; }),

    Text(
        "DOCGATE_AMQP_URL", kAmqp, ConfigType::kUrl,
        "`amqp://user:pass@host:port/vhost?heartbeat=30` or `amqps://` (TLS): the relay "
        "publishes every event to RabbitMQ; unset: events are delivered in process",
        [](Config& c) -> auto& { return c.amqp.url; }),
    Text(
        "DOCGATE_AMQP_CA_FILE", kAmqp, ConfigType::kPath,
        "PEM certificates `amqps://` servers are verified against; unset: the system's trust "
        "store",
        [](Config& c) -> auto& { return c.amqp.ca_file; }),
    Text(
        "DOCGATE_AMQP_EXCHANGE", kAmqp, ConfigType::kString,
        "the durable topic exchange events are published to",
        [](Config& c) -> auto& { return c.amqp.exchange; })
        .Rule("not empty with `DOCGATE_AMQP_URL`"),
    Text(
        "DOCGATE_AMQP_QUEUE", kAmqp, ConfigType::kString,
        "the durable queue docgate declares, binds with `document.#` and `review.#` and consumes "
        "(with "
        "`<queue>.retry` and `<queue>.parked`)",
        [](Config& c) -> auto& { return c.amqp.queue; })
        .Rule("not empty while `docgate serve` consumes from the broker"),
    Millis(
        "DOCGATE_AMQP_CONNECT_TIMEOUT_MS", kAmqp, 1,
        "TCP connect + TLS handshake + login + declarations",
        [](Config& c) -> auto& { return c.amqp.connect_timeout; }),
    Millis(
        "DOCGATE_AMQP_CONFIRM_TIMEOUT_MS", kAmqp, 1,
        "longest wait for the broker to confirm a published batch; the batch is then sent "
        "again later",
        [](Config& c) -> auto& { return c.amqp.confirm_timeout; }),
    Integer(
        "DOCGATE_AMQP_PREFETCH", kAmqp, 1, 65535,
        "unacknowledged messages a consumer (`serve` or `worker`) holds at a time",
        [](Config& c) -> auto& { return c.amqp.prefetch; }),
    Millis(
        "DOCGATE_AMQP_REQUEST_TIMEOUT_MS", kAmqp, 1,
        "longest wait for the broker's answer to one request of the consumer side (get, "
        "queue count) and for the rest of a message",
        [](Config& c) -> auto& { return c.amqp.request_timeout; }),

    Integer(
        "DOCGATE_OUTBOX_BATCH_SIZE", kOutbox, 1, 10000,
        "events per claim, and per batch the broker confirms",
        [](Config& c) -> auto& { return c.relay.batch_size; }),
    Millis(
        "DOCGATE_OUTBOX_POLL_MS", kOutbox, 1,
        "the relay's fallback poll when no wake-up comes; also how often an idle relay keeps "
        "its broker connection alive",
        [](Config& c) -> auto& { return c.relay.idle_poll; }),
    Millis(
        "DOCGATE_OUTBOX_RETRY_MAX_MS", kOutbox, 1000,
        "longest pause before retrying an event the broker returned or refused (1 s, "
        "doubling); its document's later events wait behind it",
        [](Config& c) -> auto& { return c.relay.max_retry_delay; }),
    Millis(
        "DOCGATE_OUTBOX_CLAIM_TTL_MS", kOutbox, 1000,
        "how long a claim on outbox rows holds without renewal: what a killed instance had "
        "claimed is taken over at most this long after its last renewal",
        [](Config& c) -> auto& { return c.relay.claim_ttl; }),
    Hours(
        "DOCGATE_OUTBOX_RETENTION_HOURS", kOutbox, 1, 24 * 365 * 10,
        "delivered outbox rows are deleted after this long",
        [](Config& c) -> auto& { return c.relay.retention; }),

    Hours(
        "DOCGATE_IDEMPOTENCY_TTL_HOURS", kIdempotency, 1, 24 * 365,
        "how long the first answer to an `Idempotency-Key` is kept and replayed",
        [](Config& c) -> auto& { return c.idempotency.ttl; }),

    OnOff(
        "DOCGATE_CONSUMERS", kConsumers,
        "`off`: `docgate serve` leaves the consumers to `docgate worker` processes",
        [](Config& c) -> auto& { return c.consumers.in_serve; })
        .Rule("`off` needs `DOCGATE_AMQP_URL`"),
    Integer(
        "DOCGATE_CONSUMER_MAX_ATTEMPTS", kConsumers, 1, 1000,
        "failed attempts of a consumer on one event before the event is parked",
        [](Config& c) -> auto& { return c.consumers.runner.max_attempts; }),
    Millis(
        "DOCGATE_CONSUMER_RETRY_MAX_MS", kConsumers, 1000,
        "longest pause before a queue worker retries a failed event (1 s, doubling)",
        [](Config& c) -> auto& { return c.consumers.worker.max_retry_delay; }),
    Integer(
        "DOCGATE_CONSUMER_BATCH", kConsumers, 1, 1000,
        "events a queue worker runs together, one transaction per consumer per batch (at "
        "most `DOCGATE_AMQP_PREFETCH` arrive at once)",
        [](Config& c) -> auto& { return c.consumers.worker.batch_size; }),
    Hours(
        "DOCGATE_INBOX_RETENTION_HOURS", kConsumers, 1, 24 * 365 * 10,
        "`done` rows of the consumer inbox are deleted after this long; `failing` and `parked` "
        "rows are kept",
        [](Config& c) -> auto& { return c.janitor.inbox_retention; })
        .DefaultFrom("DOCGATE_OUTBOX_RETENTION_HOURS")
        .Rule("at least `DOCGATE_OUTBOX_RETENTION_HOURS`"),
    Integer(
        "DOCGATE_CHUNK_MAX_BYTES", kConsumers, kMinChunkBytes, std::nullopt,
        "upper bound of an ingested chunk, in bytes of UTF-8",
        [](Config& c) -> auto& { return c.consumers.chunker.max_bytes; }),
    Integer(
        "DOCGATE_CHUNK_OVERLAP_BYTES", kConsumers, 0, std::nullopt,
        "how much of a chunk's end the next chunk of a long paragraph repeats, in bytes",
        [](Config& c) -> auto& { return c.consumers.chunker.overlap_bytes; })
        .Rule("less than `DOCGATE_CHUNK_MAX_BYTES`"),
    Millis(
        "DOCGATE_RECONCILE_INTERVAL_MS", kConsumers, 1,
        "how often the reconciler looks for missing or stuck ingestions",
        [](Config& c) -> auto& { return c.consumers.reconciler.interval; }),
    Millis(
        "DOCGATE_RECONCILE_STUCK_AFTER_MS", kConsumers, 1,
        "an approval delivered this long ago and still not ingested is re-enqueued",
        [](Config& c) -> auto& { return c.consumers.reconciler.stuck_after; }),

    Text(
        "DOCGATE_MONGODB_URI", kMongoDb, ConfigType::kUrl,
        "`mongodb://...` or `mongodb+srv://...`: the preview projection lives in MongoDB (the "
        "URI's database, else `docgate`); unset: in the database",
        [](Config& c) -> auto& { return c.mongo.uri; }),
    Millis(
        "DOCGATE_MONGODB_CONNECT_TIMEOUT_MS", kMongoDb, 1,
        "connect + TLS + handshake, and an operation's wait for a usable server (replaces the "
        "URI's own)",
        [](Config& c) -> auto& { return c.mongo.connect_timeout; }),
    Millis(
        "DOCGATE_MONGODB_TIMEOUT_MS", kMongoDb, 1,
        "one operation's round trip, and the wait for a free pooled connection (replaces the "
        "URI's own)",
        [](Config& c) -> auto& { return c.mongo.operation_timeout; }),

    Text(
        "DOCGATE_EMBEDDINGS_URL", kEmbeddings, ConfigType::kUrl,
        "`http(s)://host:port/v1`, the base of an OpenAI-style embeddings API: approved "
        "versions' chunks are embedded for search by meaning; unset: keyword search only",
        [](Config& c) -> auto& { return c.embeddings.url; }),
    Text(
        "DOCGATE_EMBEDDINGS_MODEL", kEmbeddings, ConfigType::kString,
        "the model's name as the server knows it (e.g. `BAAI/bge-m3`)",
        [](Config& c) -> auto& { return c.embeddings.model; })
        .Rule("required with `DOCGATE_EMBEDDINGS_URL`"),
    Text(
        "DOCGATE_EMBEDDINGS_API_KEY", kEmbeddings, ConfigType::kSecret,
        "sent as `Authorization: Bearer`; never logged, whole or any 8 bytes of it",
        [](Config& c) -> auto& { return c.embeddings.api_key; })
        .Rule("with an `http://` URL only to localhost, 127.0.0.0/8 or ::1"),
    Integer(
        "DOCGATE_EMBEDDINGS_DIMENSIONS", kEmbeddings, 1, 65536,
        "the model's vector size; an answer of another size is refused",
        [](Config& c) -> auto& { return c.embeddings.dimensions; })
        .Rule("required with `DOCGATE_EMBEDDINGS_URL`"),
    Integer(
        "DOCGATE_EMBEDDINGS_BATCH", kEmbeddings, 1, 2048, "texts per request",
        [](Config& c) -> auto& { return c.embeddings.batch; })
        .Rule(kWithEmbeddings),
    Integer(
        "DOCGATE_EMBEDDINGS_CONCURRENCY", kEmbeddings, 1, 64,
        "embedding workers per instance, each with one request in flight",
        [](Config& c) -> auto& { return c.embeddings.concurrency; })
        .Rule(kWithEmbeddings),
    Text(
        "DOCGATE_EMBEDDINGS_CA_FILE", kEmbeddings, ConfigType::kPath,
        "PEM certificates an `https://` server is verified against; unset: the system's trust "
        "store",
        [](Config& c) -> auto& { return c.embeddings.ca_file; }),
    Millis(
        "DOCGATE_EMBEDDINGS_CONNECT_TIMEOUT_MS", kEmbeddings, 1, "TCP connect and TLS handshake",
        [](Config& c) -> auto& { return c.embeddings.connect_timeout; })
        .Rule(kWithEmbeddings),
    Millis(
        "DOCGATE_EMBEDDINGS_TIMEOUT_MS", kEmbeddings, 1,
        "one request, from sending it to the end of the answer",
        [](Config& c) -> auto& { return c.embeddings.request_timeout; })
        .Rule(kWithEmbeddings),
    Millis(
        "DOCGATE_EMBEDDINGS_QUERY_TIMEOUT_MS", kEmbeddings, 1,
        "the longest a `semantic` or `hybrid` search waits for its query's vector before it "
        "answers by keywords",
        [](Config& c) -> auto& { return c.embeddings.query_timeout; })
        .Rule(kWithEmbeddings),
    Integer(
        "DOCGATE_EMBEDDINGS_QUERY_CONCURRENCY", kEmbeddings, 1, 64,
        "queries with the provider at once per instance; a search finding them all busy "
        "answers by keywords at once",
        [](Config& c) -> auto& { return c.embeddings.query_concurrency; })
        .Rule(kWithEmbeddings),
    Integer(
        "DOCGATE_EMBEDDINGS_MAX_ATTEMPTS", kEmbeddings, 1, 100,
        "tries of a request answered 408, 409, 429, 5xx, late or malformed",
        [](Config& c) -> auto& { return c.embeddings.max_attempts; })
        .Rule(kWithEmbeddings),
    Millis(
        "DOCGATE_EMBEDDINGS_RETRY_MAX_MS", kEmbeddings, 200,
        "longest wait between tries (`Retry-After` honoured; else 200 ms, doubling)",
        [](Config& c) -> auto& { return c.embeddings.retry_max; })
        .Rule(kWithEmbeddings),
    Millis(
        "DOCGATE_EMBEDDINGS_BREAKER_MAX_MS", kEmbeddings, 1000,
        "longest the circuit breaker holds calls off after failures (1 s, doubling)",
        [](Config& c) -> auto& { return c.embeddings.breaker_max; })
        .Rule(kWithEmbeddings),

    Integer(
        "DOCGATE_IMPORT_MAX_BYTES", kImport, 1, std::int64_t{1} << 30,
        "largest file `POST /api/v1/documents/import` takes, in bytes; a larger one is "
        "`413 PAYLOAD_TOO_LARGE`, refused before its body is read when it says its length",
        [](Config& c) -> auto& { return c.import.max_bytes; }),
    Millis(
        "DOCGATE_IMPORT_TIMEOUT_MS", kImport, 1,
        "how long a converter (pandoc, pdftotext) may run; a slower one is killed and the "
        "import is `422 UNPROCESSABLE_DOCUMENT`",
        [](Config& c) -> auto& { return c.import.timeout; }),
    Integer(
        "DOCGATE_IMPORT_MEMORY_BYTES", kImport, std::int64_t{64} << 20, std::int64_t{1} << 40,
        "a converter's address space (RLIMIT_AS), in bytes",
        [](Config& c) -> auto& { return c.import.memory_bytes; }),
    Integer(
        "DOCGATE_IMPORT_MAX_OUTPUT_BYTES", kImport, 1024, std::int64_t{1} << 30,
        "the most Markdown a conversion may write, in bytes (RLIMIT_FSIZE)",
        [](Config& c) -> auto& { return c.import.max_output_bytes; }),
    Text(
        "DOCGATE_IMPORT_PANDOC", kImport, ConfigType::kPath,
        "pandoc, which converts HTML, Word and OpenDocument files (a name is looked up on "
        "`PATH`); missing: those imports are `415 UNSUPPORTED_MEDIA_TYPE`",
        [](Config& c) -> auto& { return c.import.pandoc; }),
    Text(
        "DOCGATE_IMPORT_PDFTOTEXT", kImport, ConfigType::kPath,
        "poppler's pdftotext, which converts PDF files (a name is looked up on `PATH`)",
        [](Config& c) -> auto& { return c.import.pdftotext; }),

    Enum(
        "DOCGATE_LOG_LEVEL", kLogging, kLogLevels, kLogLevelSpellings,
        "the least severe level logged (5xx answers are `warn`)",
        [](Config& c) -> auto& { return c.log.level; }),
    Enum(
        "DOCGATE_LOG_FORMAT", kLogging, kLogFormats, {},
        "how every line of the log is written: `json`, one JSON object a line with `time` (UTC, "
        "ms), `level` and `message` (a request's line: its fields instead of `message`), or "
        "`text`; unset: `text` when stderr is a terminal, `json` otherwise",
        [](Config& c) -> auto& { return c.log.format; }),
};

constexpr bool GroupedByComponent() {
  return std::is_sorted(
      kVariables.begin(), kVariables.end(),
      [](const ConfigVariable& a, const ConfigVariable& b) { return a.component < b.component; });
}
static_assert(GroupedByComponent(), "the reference lists the components in their order");

}  // namespace

std::span<const ConfigVariable> ConfigVariables() { return kVariables; }

const ConfigVariable* FindConfigVariable(std::string_view name) {
  for (const ConfigVariable& variable : kVariables) {
    if (variable.name == name) return &variable;
  }
  return nullptr;
}

std::string ValuesText(const ConfigVariable& variable) {
  std::string text;
  for (std::size_t i = 0; i < variable.values.size(); ++i) {
    if (i > 0) text += i + 1 == variable.values.size() ? " or " : ", ";
    text += variable.values[i];
  }
  return text;
}

std::optional<std::string> ValueProblem(const ConfigVariable& variable, std::string_view text) {
  const auto is = [text](std::string_view value) { return value == text; };
  if (std::ranges::any_of(variable.values, is) || std::ranges::any_of(variable.also_accepted, is)) {
    return std::nullopt;
  }
  return std::string(variable.name) + " must be " + ValuesText(variable) + ", got '" +
         std::string(text) + "'";
}

}  // namespace docgate
