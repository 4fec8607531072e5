#include "adapters/pg/pg_document_store.h"

#include <algorithm>
#include <array>
#include <pqxx/pqxx>
#include <string_view>
#include <utility>

#include "adapters/pg/pg_connection_pool.h"
#include "adapters/pg/pg_errors.h"
#include "adapters/pg/pg_migrations.h"
#include "adapters/pg/pg_statements.h"
#include "app/inbox_rows.h"
#include "core/error.h"
#include "core/instance_token.h"
#include "core/search_text.h"

namespace docgate {
namespace {

using namespace pg_sql; // the store's SQL, one named constant per statement

// Prepared when the connection opens (the schema exists by then), so that a
// statement's first use is never also its PREPARE round trip, possibly on a
// connection that has meanwhile died.
void PrepareStatements(pqxx::connection_base &connection) {
  for (const Statement &statement : kStatements) {
    connection.prepare(statement.name, statement.sql);
    connection.prepare_now(statement.name);
  }
}

std::int64_t Millis(TimePoint t) { return t.time_since_epoch().count(); }
TimePoint FromMillis(std::int64_t ms) {
  return TimePoint{std::chrono::milliseconds{ms}};
}

// libpqxx 6.4 takes no std::optional parameters: SQL NULL is a null `const
// char*`, so nullable values travel as optional text that lives until the
// statement has run.
std::optional<std::string> Text(const std::optional<std::int64_t> &v) {
  return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
}
std::optional<std::string> Text(const std::optional<std::int32_t> &v) {
  return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
}
std::optional<std::string> Text(const std::optional<TimePoint> &v) {
  return v ? std::optional<std::string>(std::to_string(Millis(*v)))
           : std::nullopt;
}
std::optional<std::string> Text(std::string_view v) { return std::string(v); }

// Text parameters end at the first NUL byte on their way through libpq, and
// PostgreSQL's text cannot hold one anyway: refuse instead of storing a
// silently truncated value.
const char *Checked(const std::string &value) {
  if (value.find('\0') != std::string::npos) {
    throw StorageError("postgres: text with a NUL character cannot be stored");
  }
  return value.c_str();
}
const char *Checked(const std::optional<std::string> &value) {
  return value ? Checked(*value) : nullptr;
}

template <typename T> std::optional<T> Nullable(const pqxx::field &field) {
  if (field.is_null())
    return std::nullopt;
  return field.as<T>();
}

template <typename E, typename Parse>
E Enum(const pqxx::field &field, Parse parse, const char *column) {
  const auto text = field.as<std::string>();
  const auto value = parse(text);
  if (!value)
    throw StorageError(std::string("postgres: unknown ") + column + " '" +
                       text + "'");
  return *value;
}

Document ToDocument(const pqxx::row &row) {
  Document doc;
  doc.id = row[0].as<std::int64_t>();
  doc.title = row[1].as<std::string>();
  doc.status =
      Enum<DocumentStatus>(row[2], ParseDocumentStatus, "document status");
  doc.version = row[3].as<std::int32_t>();
  doc.author_id = row[4].as<std::string>();
  doc.current_review_id = Nullable<std::int64_t>(row[5]);
  doc.approved_version = Nullable<std::int32_t>(row[6]);
  if (const auto at = Nullable<std::int64_t>(row[7]))
    doc.approved_at = FromMillis(*at);
  doc.ingest_status =
      Enum<IngestStatus>(row[8], ParseIngestStatus, "ingest status");
  doc.created_at = FromMillis(row[9].as<std::int64_t>());
  doc.updated_at = FromMillis(row[10].as<std::int64_t>());
  return doc;
}

Review ToReview(const pqxx::row &row) {
  Review review;
  review.id = row[0].as<std::int64_t>();
  review.document_id = row[1].as<std::int64_t>();
  review.document_version = row[2].as<std::int32_t>();
  review.status =
      Enum<ReviewStatus>(row[3], ParseReviewStatus, "review status");
  review.submitted_by = row[4].as<std::string>();
  review.submitted_at = FromMillis(row[5].as<std::int64_t>());
  review.decided_by = Nullable<std::string>(row[6]);
  if (const auto at = Nullable<std::int64_t>(row[7]))
    review.decided_at = FromMillis(*at);
  review.comment = Nullable<std::string>(row[8]);
  return review;
}

// The event's columns from `first` on: event_id, event_type, document_id,
// review_id, version, actor_id, occurred_at. The sequence is left 0.
OutboxEvent EventAt(const pqxx::row &row, int first) {
  OutboxEvent event;
  event.event_id = row[first].as<std::string>();
  event.type = Enum<EventType>(row[first + 1], ParseEventType, "event type");
  event.document_id = row[first + 2].as<std::int64_t>();
  event.review_id = row[first + 3].as<std::int64_t>();
  event.version = row[first + 4].as<std::int32_t>();
  event.actor_id = row[first + 5].as<std::string>();
  event.occurred_at = FromMillis(row[first + 6].as<std::int64_t>());
  return event;
}

OutboxEvent ToEvent(const pqxx::row &row) {
  OutboxEvent event = EventAt(row, 1);
  event.sequence = row[0].as<std::int64_t>();
  return event;
}

ParkedEvent ToParked(const pqxx::row &row) {
  ParkedEvent parked;
  parked.consumer = row[0].as<std::string>();
  parked.event = EventAt(row, 1);
  parked.attempts = row[8].as<int>();
  parked.last_error = Nullable<std::string>(row[9]).value_or("");
  parked.parked_at = FromMillis(row[10].as<std::int64_t>());
  return parked;
}

PreviewRecord ToPreview(const pqxx::row &row) {
  return PreviewRecord{row[0].as<DocumentId>(), row[1].as<std::int32_t>(),
                       row[2].as<std::string>(),
                       FromMillis(row[3].as<std::int64_t>())};
}

SearchHit ToHit(const pqxx::row &row) {
  return SearchHit{row[0].as<DocumentId>(), row[1].as<std::int32_t>(),
                   row[2].as<std::string>(), row[3].as<std::string>(),
                   row[4].as<double>()};
}

std::string ToText(const pqxx::row &row) { return row[0].as<std::string>(); }

template <typename T, typename Convert>
std::optional<T> First(const pqxx::result &result, Convert convert) {
  if (result.empty())
    return std::nullopt;
  return convert(result[0]);
}

template <typename T, typename Convert>
std::vector<T> All(const pqxx::result &result, Convert convert) {
  std::vector<T> rows;
  rows.reserve(result.size());
  for (const auto &row : result)
    rows.push_back(convert(row));
  return rows;
}

std::string Describe(const char *operation, std::int64_t id) {
  return std::string(operation) + " " + std::to_string(id);
}

std::string Name(std::string_view spelling) { return std::string(spelling); }

// Runs `fn` on a pooled connection in autocommit (one statement, no
// BEGIN/COMMIT round trips). A connection that served before may have died
// while idle without the pool's check seeing it yet; when the first attempt
// finds it gone, a second one runs on a fresh connection. libpq cannot tell a
// statement that never reached the server from one that committed and lost only
// its answer, so this is only for reads and for writes that may run twice: the
// second run changes nothing more (MarkDelivered, Defer and ReleaseClaims only
// touch rows still pending and claimed, Requeue and the idempotency-key writes
// set what they set before, the prunes delete what is left; a prune's count
// then misses the first run's rows, and CompleteIdempotentRequest may answer
// false for a record it did complete). Other writes go through Atomically.
template <typename Fn>
auto Autocommit(PgConnectionPool &pool, std::chrono::milliseconds wait,
                const std::string &operation, Fn &&fn) {
  for (bool retried = false;; retried = true) {
    PgConnectionPool::Lease lease = pool.Acquire(wait);
    try {
      pqxx::nontransaction tx(lease.connection());
      return fn(tx);
    } catch (const std::exception &) {
      const bool lost = HandlingConnectionLoss();
      if (lost)
        lease.Discard();
      if (lost && lease.reused() && !retried)
        continue;
      RethrowAsStorageFailure(operation);
    }
  }
}

// Runs `fn` in a transaction of its own on a pooled connection, for writes that
// must not take effect twice. A connection lost before COMMIT was sent leaves
// nothing behind (the server rolls back what it never saw committed), so then,
// on a connection that served before, `fn` runs once more on a fresh one, like
// Autocommit; a connection lost during COMMIT leaves the outcome unknown, and
// that is StorageUnavailable ("outcome unknown"), never a second run.
template <typename Fn>
auto Atomically(PgConnectionPool &pool, std::chrono::milliseconds wait,
                const std::string &operation, Fn &&fn) {
  for (bool retried = false;; retried = true) {
    PgConnectionPool::Lease lease = pool.Acquire(wait);
    bool committing = false;
    try {
      pqxx::work tx(lease.connection());
      auto result = fn(tx);
      committing = true;
      tx.commit();
      return result;
    } catch (const std::exception &) {
      const bool lost = HandlingConnectionLoss();
      if (lost)
        lease.Discard();
      if (lost && !committing && lease.reused() && !retried)
        continue;
      RethrowAsStorageFailure(operation);
    }
  }
}

// Refused like an unreachable server: the store cannot serve with it.
PgConfig Validated(PgConfig config) {
  const auto refuse = [](const std::string &why) {
    throw StorageUnavailable("postgres: invalid configuration: " + why);
  };
  if (config.url.empty())
    refuse("url is empty");
  if (config.pool_size < 1)
    refuse("pool_size must be at least 1");
  if (config.connect_timeout.count() < 1)
    refuse("connect_timeout must be positive");
  if (config.statement_timeout.count() < 1)
    refuse("statement_timeout must be positive");
  if (config.pool_wait_timeout.count() < 0)
    refuse("pool_wait_timeout must not be negative");
  if (config.outbox_claim_ttl.count() < 1)
    refuse("outbox_claim_ttl must be positive");
  return config;
}

// One transaction on a pooled connection: BEGIN at construction, then
// statements through Run until Commit, which gives the connection back at once
// whatever its outcome; destroyed before that, it rolls back (never throws).
class PgWork {
public:
  explicit PgWork(PgConnectionPool::Lease lease) : lease_(std::move(lease)) {
    work_.emplace(lease_->connection());
  }

  // Runs fn(work), translating its failures; a connection that broke is
  // discarded. libpqxx 6.4 runs prepared statements on a committed transaction
  // and lets commit() be called twice, so the end of the transaction is tracked
  // here.
  template <typename Fn>
  auto Run(const char *operation, std::int64_t id, Fn &&fn)
      -> decltype(fn(std::declval<pqxx::work &>())) {
    const std::string what =
        id > 0 ? Describe(operation, id) : std::string(operation);
    if (!work_)
      throw StorageError("postgres: " + what +
                         ": the transaction has already ended");
    try {
      return fn(*work_);
    } catch (const std::exception &) {
      if (HandlingConnectionLoss())
        lease_->Discard();
      RethrowAsStorageFailure(what);
    }
  }

  // What both kinds of transaction do alike.
  std::optional<Document> LockDocument(DocumentId id) {
    return Run("lock document", id, [&](pqxx::work &w) {
      return First<Document>(w.exec_prepared(kLockDocument.name, id),
                             ToDocument);
    });
  }
  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) {
    return Run("read content of document", id, [&](pqxx::work &w) {
      return First<std::string>(
          w.exec_prepared(kSelectContent.name, id, version), ToText);
    });
  }

  void Commit() {
    try {
      Run("commit", 0, [](pqxx::work &work) { work.commit(); });
    } catch (const std::exception &) {
      End();
      throw;
    }
    End();
  }

private:
  void End() {
    work_.reset();
    lease_.reset();
  }

  // Declared first, destroyed last: the transaction ends (rollback unless
  // committed) before the connection goes back to the pool. Both are empty once
  // the transaction has ended.
  std::optional<PgConnectionPool::Lease> lease_;
  std::optional<pqxx::work> work_;
};

class PgTransaction final : public StoreTransaction {
public:
  explicit PgTransaction(PgConnectionPool::Lease lease)
      : work_(std::move(lease)) {}

  std::optional<Review> LockReview(ReviewId id) override {
    return work_.Run("lock review", id, [&](pqxx::work &w) {
      return First<Review>(w.exec_prepared(kLockReview.name, id), ToReview);
    });
  }

  std::optional<Document> LockDocument(DocumentId id) override {
    return work_.LockDocument(id);
  }

  std::optional<Document> ReadDocument(DocumentId id) override {
    return work_.Run("read document", id, [&](pqxx::work &w) {
      return First<Document>(w.exec_prepared(kSelectDocument.name, id),
                             ToDocument);
    });
  }

  std::optional<std::string> ReadContent(DocumentId id,
                                         std::int32_t version) override {
    return work_.ReadContent(id, version);
  }

  DocumentId InsertDocument(const Document &doc) override {
    return work_.Run("insert document", 0, [&](pqxx::work &w) {
      return w
          .exec_prepared1(
              kInsertDocument.name, Checked(doc.title),
              Name(ToString(doc.status)), doc.version, Checked(doc.author_id),
              Checked(Text(doc.current_review_id)),
              Checked(Text(doc.approved_version)),
              Checked(Text(doc.approved_at)), Name(ToString(doc.ingest_status)),
              Millis(doc.created_at), Millis(doc.updated_at))[0]
          .as<DocumentId>();
    });
  }

  ReviewId InsertReview(const Review &review) override {
    return work_.Run(
        "insert review of document", review.document_id, [&](pqxx::work &w) {
          return w
              .exec_prepared1(
                  kInsertReview.name, review.document_id,
                  review.document_version, Name(ToString(review.status)),
                  Checked(review.submitted_by), Millis(review.submitted_at),
                  Checked(review.decided_by), Checked(Text(review.decided_at)),
                  Checked(review.comment))[0]
              .as<ReviewId>();
        });
  }

  void UpdateDocument(const Document &doc) override {
    work_.Run("update document", doc.id, [&](pqxx::work &w) {
      const auto result = w.exec_prepared(
          kUpdateDocument.name, doc.id, Checked(doc.title),
          Name(ToString(doc.status)), doc.version,
          Checked(Text(doc.current_review_id)),
          Checked(Text(doc.approved_version)), Checked(Text(doc.approved_at)),
          Name(ToString(doc.ingest_status)), Millis(doc.updated_at));
      ExpectOneRow(result, "document", doc.id);
    });
  }

  void UpdateReview(const Review &review) override {
    work_.Run("update review", review.id, [&](pqxx::work &w) {
      const auto result = w.exec_prepared(
          kUpdateReview.name, review.id, Name(ToString(review.status)),
          Checked(review.decided_by), Checked(Text(review.decided_at)),
          Checked(review.comment));
      ExpectOneRow(result, "review", review.id);
    });
  }

  void PutContent(DocumentId id, std::int32_t version,
                  const std::string &content, const UserId &edited_by,
                  TimePoint at) override {
    work_.Run("put content of document", id, [&](pqxx::work &w) {
      w.exec_prepared(kInsertContent.name, id, version, Checked(content),
                      Checked(edited_by), Millis(at));
    });
  }

  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version,
                                  std::int32_t up_to_version) override {
    return work_.Run("list editors of document", id, [&](pqxx::work &w) {
      return All<UserId>(w.exec_prepared(kSelectEditors.name, id, after_version,
                                         up_to_version),
                         ToText);
    });
  }

  void AppendEvent(const OutboxEvent &event) override {
    work_.Run(
        "append event of document", event.document_id, [&](pqxx::work &w) {
          w.exec_prepared(kInsertEvent.name, Checked(event.event_id),
                          Name(ToString(event.type)), event.document_id,
                          event.review_id, event.version,
                          Checked(event.actor_id), Millis(event.occurred_at));
        });
  }

  void CompleteIdempotentRequest(const std::string &caller,
                                 const std::string &key,
                                 const std::string &owner,
                                 const std::string &response,
                                 TimePoint expires_at) override {
    const auto result =
        work_.Run("complete idempotency key", 0, [&](pqxx::work &w) {
          return w.exec_prepared(kCompleteIdempotencyKey.name, Checked(caller),
                                 Checked(key), Checked(owner),
                                 Checked(response), Millis(expires_at));
        });
    if (result.affected_rows() != 1) {
      throw StorageError("postgres: idempotency key '" + key + "' of " +
                         caller + " is no longer reserved by this request");
    }
  }

  void Commit() override { work_.Commit(); }

private:
  static void ExpectOneRow(const pqxx::result &result, const char *table,
                           std::int64_t id) {
    if (result.affected_rows() != 1) {
      throw StorageError("postgres: no " + std::string(table) + " " +
                         std::to_string(id) + " to update");
    }
  }

  PgWork work_;
};

class PgConsumerTransaction final : public ConsumerTransaction {
public:
  explicit PgConsumerTransaction(PgConnectionPool::Lease lease)
      : work_(std::move(lease)) {}

  InboxState Claim(std::string_view consumer, std::string_view event_id,
                   TimePoint at) override {
    const std::string name(consumer);
    const std::string event(event_id);
    return work_.Run("claim inbox", 0, [&](pqxx::work &w) {
      // The row the claim found may be deleted (un-parked) before it is read;
      // then the pair is free again and the claim is repeated.
      for (int attempt = 0; attempt < 3; ++attempt) {
        if (!w.exec_prepared(kClaimInbox.name, Checked(name), Checked(event),
                             Millis(at))
                 .empty()) {
          return InboxState::kNew;
        }
        const pqxx::result found =
            w.exec_prepared(kSelectInbox.name, name, event);
        if (!found.empty())
          return ParseClaimedState(found[0][0].as<std::string>(), "postgres");
      }
      throw StorageUnavailable("postgres: inbox row of " + event +
                               " kept changing under concurrent claims");
    });
  }

  std::optional<Document> LockDocument(DocumentId id) override {
    return work_.LockDocument(id);
  }

  std::optional<std::string> ReadContent(DocumentId id,
                                         std::int32_t version) override {
    return work_.ReadContent(id, version);
  }

  // PreviewStore::Project's statement (not part of ConsumerTransaction).
  bool UpsertPreview(const PreviewRecord &record) {
    return work_.Run(
        "write preview of document", record.document_id, [&](pqxx::work &w) {
          return w.exec_prepared(kUpsertPreview.name, record.document_id,
                                 record.version, Checked(record.content),
                                 Millis(record.approved_at))
                     .affected_rows() == 1;
        });
  }

  void ReplaceChunks(DocumentId id, std::int32_t version,
                     const std::string &title,
                     const std::vector<std::string> &chunks) override {
    work_.Run("replace chunks of document", id, [&](pqxx::work &w) {
      w.exec_prepared(kDeleteChunks.name, id);
      for (std::size_t i = 0; i < chunks.size(); ++i) {
        w.exec_prepared(kInsertChunk.name, id, static_cast<std::int32_t>(i),
                        version, Checked(title), Checked(chunks[i]));
      }
    });
  }

  void SetIngestStatus(DocumentId id, IngestStatus status) override {
    work_.Run("set ingest status of document", id, [&](pqxx::work &w) {
      if (w.exec_prepared(kSetIngestStatus.name, id, Name(ToString(status)))
              .affected_rows() != 1) {
        throw StorageError("postgres: no document " + std::to_string(id) +
                           " to update");
      }
    });
  }

  void Commit() override { work_.Commit(); }

private:
  PgWork work_;
};

// Begin() and BeginConsumer(): BEGIN is the first statement on the connection;
// if it finds a reused connection dead, nothing has happened yet and a fresh
// connection may simply be tried once.
template <typename Tx> std::unique_ptr<Tx> BeginOn(PgConnectionPool &pool) {
  for (bool retried = false;; retried = true) {
    PgConnectionPool::Lease lease = pool.Acquire();
    const bool may_retry = lease.reused() && !retried;
    try {
      return std::make_unique<Tx>(std::move(lease));
    } catch (const std::exception &) {
      if (may_retry && HandlingConnectionLoss())
        continue;
      RethrowAsStorageFailure("begin transaction");
    }
  }
}

} // namespace

PgDocumentStore::PgDocumentStore(PgConfig config)
    : config_(Validated(std::move(config))),
      instance_token_(NewInstanceToken()) {
  Migrate(config_);
  pool_ = std::make_unique<PgConnectionPool>(config_, PrepareStatements);
}

PgDocumentStore::~PgDocumentStore() = default;

Stores OpenPgStores(PgConfig config) {
  return StoresOf(std::make_shared<PgDocumentStore>(std::move(config)));
}

PoolStats PgDocumentStore::pool_stats() const { return pool_->Stats(); }

void PgDocumentStore::Migrate(const PgConfig &config) {
  PgConfig single = Validated(config);
  single.pool_size = 1;
  PgConnectionPool pool(single, nullptr);
  PgConnectionPool::Lease lease = pool.Acquire();
  try {
    ApplyPostgresMigrations(lease.connection(), kPostgresMigrations);
  } catch (const std::exception &) {
    RethrowAsStorageFailure("migrate " + pool.description());
  }
}

std::unique_ptr<StoreTransaction> PgDocumentStore::Begin() {
  return BeginOn<PgTransaction>(*pool_);
}

std::optional<Document> PgDocumentStore::FindDocument(DocumentId id) {
  return Autocommit(
      *pool_, config_.pool_wait_timeout, Describe("find document", id),
      [&](pqxx::transaction_base &tx) {
        return First<Document>(tx.exec_prepared(kSelectDocument.name, id),
                               ToDocument);
      });
}

std::optional<Review> PgDocumentStore::FindReview(ReviewId id) {
  return Autocommit(*pool_, config_.pool_wait_timeout,
                    Describe("find review", id),
                    [&](pqxx::transaction_base &tx) {
                      return First<Review>(
                          tx.exec_prepared(kSelectReview.name, id), ToReview);
                    });
}

std::optional<std::string> PgDocumentStore::FindContent(DocumentId id,
                                                        std::int32_t version) {
  return Autocommit(*pool_, config_.pool_wait_timeout,
                    Describe("find content of document", id),
                    [&](pqxx::transaction_base &tx) {
                      return First<std::string>(
                          tx.exec_prepared(kSelectContent.name, id, version),
                          ToText);
                    });
}

std::vector<Document>
PgDocumentStore::ListDocuments(const DocumentQuery &query) {
  if (query.limit <= 0)
    return {};
  const std::optional<std::string> status =
      query.status ? Text(ToString(*query.status)) : std::nullopt;
  return Autocommit(*pool_, config_.pool_wait_timeout, "list documents",
                    [&](pqxx::transaction_base &tx) {
                      return All<Document>(
                          tx.exec_params(kListDocuments, Checked(status),
                                         Checked(query.author_id),
                                         Checked(Text(query.before)),
                                         query.limit),
                          ToDocument);
                    });
}

std::vector<Review> PgDocumentStore::ListReviews(const ReviewQuery &query) {
  if (query.limit <= 0)
    return {};
  const std::optional<std::string> status =
      query.status ? Text(ToString(*query.status)) : std::nullopt;
  return Autocommit(*pool_, config_.pool_wait_timeout, "list reviews",
                    [&](pqxx::transaction_base &tx) {
                      return All<Review>(
                          tx.exec_params(kListReviews, Checked(status),
                                         Checked(Text(query.after)),
                                         query.limit),
                          ToReview);
                    });
}

std::vector<Review> PgDocumentStore::ListDocumentReviews(DocumentId id) {
  return Autocommit(*pool_, config_.pool_wait_timeout,
                    Describe("list reviews of document", id),
                    [&](pqxx::transaction_base &tx) {
                      return All<Review>(
                          tx.exec_prepared(kSelectDocumentReviews.name, id),
                          ToReview);
                    });
}

bool PgDocumentStore::Ping() {
  try {
    const auto wait =
        std::min(config_.pool_wait_timeout, config_.connect_timeout);
    return Autocommit(*pool_, wait, "ping", [](pqxx::transaction_base &tx) {
      return !tx.exec_prepared(kPing.name).empty();
    });
  } catch (const std::exception &) {
    // Readiness needs only the answer; reporting the cause is the next real
    // call's job.
    return false;
  }
}

std::vector<OutboxEvent> PgDocumentStore::ClaimPending(int limit) {
  if (limit <= 0)
    return {};
  auto events = Autocommit(
      *pool_, config_.pool_wait_timeout, "claim outbox events",
      [&](pqxx::transaction_base &tx) {
        return All<OutboxEvent>(
            tx.exec_prepared(
                kClaimEvents.name, limit, instance_token_,
                static_cast<std::int64_t>(config_.outbox_claim_ttl.count())),
            ToEvent);
      });
  std::sort(events.begin(), events.end(),
            [](const OutboxEvent &a, const OutboxEvent &b) {
              return a.sequence < b.sequence;
            });
  return events;
}

namespace {

// A PostgreSQL array literal of ids: {1,2,3}.
std::string IdArray(const std::vector<std::int64_t> &ids) {
  std::string array = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0)
      array += ',';
    array += std::to_string(ids[i]);
  }
  array += '}';
  return array;
}

} // namespace

void PgDocumentStore::MarkDelivered(const std::vector<std::int64_t> &sequences,
                                    TimePoint at) {
  if (sequences.empty())
    return;
  Autocommit(*pool_, config_.pool_wait_timeout, "mark outbox events delivered",
             [&](pqxx::transaction_base &tx) {
               tx.exec_prepared(kMarkDelivered.name, IdArray(sequences),
                                Millis(at));
             });
}

void PgDocumentStore::Defer(const std::vector<std::int64_t> &sequences,
                            std::chrono::milliseconds delay,
                            std::chrono::milliseconds max_delay,
                            std::string_view reason) {
  if (sequences.empty())
    return;
  Autocommit(*pool_, config_.pool_wait_timeout, "defer outbox events",
             [&](pqxx::transaction_base &tx) {
               tx.exec_prepared(kDeferEvents.name, IdArray(sequences),
                                static_cast<std::int64_t>(delay.count()),
                                static_cast<std::int64_t>(max_delay.count()),
                                Checked(std::string(reason)), instance_token_);
             });
}

void PgDocumentStore::ReleaseClaims() {
  Autocommit(*pool_, config_.pool_wait_timeout, "release outbox claims",
             [&](pqxx::transaction_base &tx) {
               tx.exec_prepared(kReleaseClaims.name, instance_token_);
             });
}

int PgDocumentStore::RenewClaims() {
  return Autocommit(
      *pool_, config_.pool_wait_timeout, "renew outbox claims",
      [&](pqxx::transaction_base &tx) {
        return static_cast<int>(
            tx.exec_prepared(
                  kRenewClaims.name, instance_token_,
                  static_cast<std::int64_t>(config_.outbox_claim_ttl.count()))
                .affected_rows());
      });
}

int PgDocumentStore::PruneDelivered(TimePoint cutoff, int limit) {
  if (limit <= 0)
    return 0;
  return Autocommit(
      *pool_, config_.pool_wait_timeout, "prune delivered outbox events",
      [&](pqxx::transaction_base &tx) {
        return static_cast<int>(
            tx.exec_prepared(kPruneDelivered.name, Millis(cutoff), limit)
                .affected_rows());
      });
}

std::optional<IdempotencyRecord> PgDocumentStore::ReserveIdempotencyKey(
    const std::string &caller, const std::string &key,
    const std::string &fingerprint, const std::string &owner, TimePoint now,
    TimePoint lease_until) {
  // The live row may vanish between the two statements (released after a
  // failure, or pruned): then the key is free and the reservation is tried
  // again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const bool reserved = Autocommit(
        *pool_, config_.pool_wait_timeout, "reserve idempotency key",
        [&](pqxx::transaction_base &tx) {
          return !tx.exec_prepared(kReserveIdempotencyKey.name, Checked(caller),
                                   Checked(key), Checked(owner),
                                   Checked(fingerprint), Millis(now),
                                   Millis(lease_until))
                      .empty();
        });
    if (reserved)
      return std::nullopt;
    const auto row = Autocommit(
        *pool_, config_.pool_wait_timeout, "read idempotency key",
        [&](pqxx::transaction_base &tx) {
          return First<std::pair<IdempotencyRecord, std::string>>(
              tx.exec_prepared(kSelectIdempotencyKey.name, Checked(caller),
                               Checked(key)),
              [](const pqxx::row &r) {
                return std::pair{
                    IdempotencyRecord{r[0].as<std::string>(),
                                      Nullable<std::string>(r[1]),
                                      FromMillis(r[2].as<std::int64_t>())},
                    r[3].as<std::string>()};
              });
        });
    if (!row)
      continue;
    // Our own row: the insert committed, but its answer was lost with the
    // connection and the retried statement found the row live.
    if (row->second == owner)
      return std::nullopt;
    return row->first;
  }
  throw StorageUnavailable("postgres: idempotency key '" + key + "' of " +
                           caller + " kept changing under concurrent requests");
}

bool PgDocumentStore::CompleteIdempotentRequest(const std::string &caller,
                                                const std::string &key,
                                                const std::string &owner,
                                                const std::string &response,
                                                TimePoint expires_at) {
  return Autocommit(
      *pool_, config_.pool_wait_timeout, "complete idempotency key",
      [&](pqxx::transaction_base &tx) {
        return tx.exec_prepared(kCompleteIdempotencyKey.name, Checked(caller),
                                Checked(key), Checked(owner), Checked(response),
                                Millis(expires_at))
                   .affected_rows() == 1;
      });
}

void PgDocumentStore::ReleaseIdempotencyKey(const std::string &caller,
                                            const std::string &key,
                                            const std::string &owner) {
  Autocommit(*pool_, config_.pool_wait_timeout, "release idempotency key",
             [&](pqxx::transaction_base &tx) {
               tx.exec_prepared(kReleaseIdempotencyKey.name, Checked(caller),
                                Checked(key), Checked(owner));
             });
}

int PgDocumentStore::PruneIdempotencyKeys(TimePoint now, int limit) {
  if (limit <= 0)
    return 0;
  return Autocommit(
      *pool_, config_.pool_wait_timeout, "prune idempotency keys",
      [&](pqxx::transaction_base &tx) {
        return static_cast<int>(
            tx.exec_prepared(kPruneIdempotencyKeys.name, Millis(now), limit)
                .affected_rows());
      });
}

OutboxBacklog PgDocumentStore::Backlog() {
  return Autocommit(
      *pool_, config_.pool_wait_timeout, "count pending outbox events",
      [&](pqxx::transaction_base &tx) {
        const pqxx::result result = tx.exec_prepared(kBacklog.name);
        OutboxBacklog backlog;
        backlog.pending = result[0][0].as<std::int64_t>();
        if (const auto oldest = Nullable<std::int64_t>(result[0][1])) {
          backlog.oldest_occurred_at = FromMillis(*oldest);
        }
        return backlog;
      });
}

std::unique_ptr<ConsumerTransaction> PgDocumentStore::BeginConsumer() {
  return BeginOn<PgConsumerTransaction>(*pool_);
}

ConsumerFailure PgDocumentStore::RecordFailure(std::string_view consumer,
                                               const OutboxEvent &event,
                                               std::string_view error,
                                               int max_attempts, TimePoint at) {
  const std::string name(consumer);
  const std::string message(error);
  return Atomically(
      *pool_, config_.pool_wait_timeout, "record failure of " + event.event_id,
      [&](pqxx::transaction_base &tx) {
        pqxx::result row = tx.exec_prepared(
            kRecordFailure.name, Checked(name), Checked(event.event_id),
            max_attempts, Checked(message), Millis(at),
            Name(ToString(event.type)), event.document_id, event.review_id,
            event.version, Checked(event.actor_id), Millis(event.occurred_at));
        // Done or parked: left alone, reported as it is.
        if (row.empty())
          row = tx.exec_prepared(kSelectInbox.name, name, event.event_id);
        if (row.empty()) {
          throw StorageError("postgres: inbox row of " + event.event_id +
                             " vanished");
        }
        return ConsumerFailure{row[0][1].as<int>(),
                               row[0][0].as<std::string>() == "parked"};
      });
}

std::vector<ParkedEvent> PgDocumentStore::ListParked(int limit) {
  if (limit <= 0)
    return {};
  return Autocommit(*pool_, config_.pool_wait_timeout, "list parked events",
                    [&](pqxx::transaction_base &tx) {
                      return All<ParkedEvent>(
                          tx.exec_prepared(kListParked.name, limit), ToParked);
                    });
}

std::vector<OutboxEvent>
PgDocumentStore::Unpark(const std::optional<std::string> &event_id) {
  auto deleted =
      Atomically(*pool_, config_.pool_wait_timeout, "unpark events",
                 [&](pqxx::transaction_base &tx) {
                   return All<std::pair<TimePoint, OutboxEvent>>(
                       tx.exec_prepared(kUnpark.name, Checked(event_id)),
                       [](const pqxx::row &row) {
                         return std::pair{FromMillis(row[0].as<std::int64_t>()),
                                          EventAt(row, 1)};
                       });
                 });
  return OldestParkedFirstOnce(std::move(deleted));
}

void PgDocumentStore::Requeue(const OutboxEvent &event) {
  Autocommit(
      *pool_, config_.pool_wait_timeout, "requeue event " + event.event_id,
      [&](pqxx::transaction_base &tx) {
        tx.exec_prepared(kRequeueEvent.name, Checked(event.event_id),
                         Name(ToString(event.type)), event.document_id,
                         event.review_id, event.version,
                         Checked(event.actor_id), Millis(event.occurred_at));
      });
}

std::vector<OutboxEvent>
PgDocumentStore::FindStuckIngestions(TimePoint delivered_before, int limit) {
  if (limit <= 0)
    return {};
  return Autocommit(*pool_, config_.pool_wait_timeout, "find stuck ingestions",
                    [&](pqxx::transaction_base &tx) {
                      return All<OutboxEvent>(
                          tx.exec_prepared(kFindStuckIngestions.name,
                                           Millis(delivered_before), limit),
                          ToEvent);
                    });
}

int PgDocumentStore::PruneInbox(TimePoint cutoff, int limit) {
  if (limit <= 0)
    return 0;
  return Autocommit(*pool_, config_.pool_wait_timeout, "prune inbox",
                    [&](pqxx::transaction_base &tx) {
                      return static_cast<int>(tx.exec_prepared(kPruneInbox.name,
                                                               Millis(cutoff),
                                                               limit)
                                                  .affected_rows());
                    });
}

bool PgDocumentStore::Project(const PreviewRecord &record) {
  auto tx = BeginOn<PgConsumerTransaction>(*pool_);
  const bool wrote = tx->UpsertPreview(record);
  tx->Commit();
  return wrote;
}

std::optional<PreviewRecord> PgDocumentStore::Find(DocumentId id) {
  return Autocommit(*pool_, config_.pool_wait_timeout,
                    Describe("find preview of document", id),
                    [&](pqxx::transaction_base &tx) {
                      return First<PreviewRecord>(
                          tx.exec_prepared(kSelectPreview.name, id), ToPreview);
                    });
}

std::vector<SearchHit> PgDocumentStore::Search(const std::string &query,
                                               int limit) {
  const std::vector<std::string> words = SearchWords(query);
  if (words.empty() || limit <= 0)
    return {};
  std::string text;
  for (const std::string &word : words)
    text += (text.empty() ? "" : " ") + word;
  return Autocommit(*pool_, config_.pool_wait_timeout, "search",
                    [&](pqxx::transaction_base &tx) {
                      return All<SearchHit>(
                          tx.exec_prepared(kSearch.name, text, limit), ToHit);
                    });
}

std::vector<std::string> PgDocumentStore::ListChunks(DocumentId id) {
  return Autocommit(
      *pool_, config_.pool_wait_timeout,
      Describe("list chunks of document", id), [&](pqxx::transaction_base &tx) {
        return All<std::string>(tx.exec_prepared(kListChunks.name, id), ToText);
      });
}

} // namespace docgate
