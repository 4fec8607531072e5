#include "adapters/sqlite/sqlite_document_store.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "adapters/sqlite/sqlite_connection.h"
#include "adapters/sqlite/sqlite_connection_pool.h"
#include "adapters/sqlite/sqlite_fts_query.h"
#include "adapters/sqlite/sqlite_migrations.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_statements.h"
#include "app/inbox_rows.h"
#include "core/error.h"
#include "core/instance_token.h"
#include "core/search_text.h"

namespace docgate {
namespace {

using namespace sqlite_sql; // the store's SQL, one named constant per statement
using namespace sqlite_rows; // rows, binders and shared reads (sqlite_rows.h)

// A write transaction's hold on the writer slot and its connection, under BEGIN
// IMMEDIATE from construction to Commit; the destructor rolls back unless
// Commit succeeded.
class SqliteWriteScope {
public:
  explicit SqliteWriteScope(SqliteConnectionPool::Lease lease)
      : lease_(std::move(lease)) {
    tx_.emplace(**lease_);
  }

  // The connection, as long as the transaction is still open.
  SqliteConnection &Open() {
    if (!tx_)
      throw StorageError("sqlite: the transaction is already committed");
    return **lease_;
  }

  // Gives the connection and the writer slot back at once, not when the
  // transaction object goes.
  void Commit() {
    Open();
    tx_->Commit();
    tx_.reset();
    lease_.reset();
  }

private:
  std::optional<SqliteConnectionPool::Lease> lease_;
  // After lease_: rolled back before the connection goes back.
  std::optional<SqliteWriteTransaction> tx_;
};

class SqliteStoreTransaction final : public StoreTransaction {
public:
  explicit SqliteStoreTransaction(SqliteConnectionPool::Lease lease)
      : scope_(std::move(lease)) {}

  std::optional<Review> LockReview(ReviewId id) override {
    return SelectReview(Open(), id);
  }
  std::optional<Document> LockDocument(DocumentId id) override {
    return SelectDocument(Open(), id);
  }
  std::optional<Document> ReadDocument(DocumentId id) override {
    return SelectDocument(Open(), id);
  }
  std::optional<std::string> ReadContent(DocumentId id,
                                         std::int32_t version) override {
    return SelectContent(Open(), id, version);
  }

  DocumentId InsertDocument(const Document &doc) override {
    auto stmt = Open().Prepare(kInsertDocument);
    BindDocument(stmt, doc);
    return ReturnedId(stmt);
  }

  ReviewId InsertReview(const Review &review) override {
    auto stmt = Open().Prepare(kInsertReview);
    BindReview(stmt, review);
    return ReturnedId(stmt);
  }

  void UpdateDocument(const Document &doc) override {
    auto stmt = Open().Prepare(kUpdateDocument);
    BindDocument(stmt, doc);
    stmt.Bind(11, doc.id).Run();
    ExpectOneRowChanged(Open(), "document", doc.id);
  }

  void UpdateReview(const Review &review) override {
    auto stmt = Open().Prepare(kUpdateReview);
    BindReview(stmt, review);
    stmt.Bind(9, review.id).Run();
    ExpectOneRowChanged(Open(), "review", review.id);
  }

  void PutContent(DocumentId id, std::int32_t version,
                  const std::string &content, const UserId &edited_by,
                  TimePoint at) override {
    Open()
        .Prepare(kInsertContent)
        .Bind(1, id)
        .Bind(2, version)
        .Bind(3, content)
        .Bind(4, edited_by)
        .Bind(5, at)
        .Run();
  }

  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version,
                                  std::int32_t up_to_version) override {
    auto stmt = Open().Prepare(kSelectEditors);
    stmt.Bind(1, id).Bind(2, after_version).Bind(3, up_to_version);
    return AllRows(stmt, &TextFromRow);
  }

  void AppendEvent(const OutboxEvent &event) override {
    auto stmt = Open().Prepare(kInsertEvent);
    BindEvent(stmt, event, 1).Run();
  }

  void CompleteIdempotentRequest(const std::string &caller,
                                 const std::string &key,
                                 const std::string &owner,
                                 const std::string &response,
                                 TimePoint expires_at) override {
    if (!CompleteIdempotencyKey(Open(), caller, key, owner, response,
                                expires_at)) {
      throw StorageError("sqlite: idempotency key '" + key + "' of " + caller +
                         " is no longer reserved by this request");
    }
  }

  void Commit() override { scope_.Commit(); }

private:
  SqliteConnection &Open() { return scope_.Open(); }

  SqliteWriteScope scope_;
};

class SqliteConsumerTransaction final : public ConsumerTransaction {
public:
  explicit SqliteConsumerTransaction(SqliteConnectionPool::Lease lease)
      : scope_(std::move(lease)) {}

  // Under BEGIN IMMEDIATE no other writer runs, so the claim and the read of
  // what it found are one step.
  InboxState Claim(std::string_view consumer, std::string_view event_id,
                   TimePoint at) override {
    SqliteConnection &connection = scope_.Open();
    connection.Prepare(kClaimInbox)
        .Bind(1, consumer)
        .Bind(2, event_id)
        .Bind(3, at)
        .Run();
    if (connection.Changes() == 1)
      return InboxState::kNew;
    return ParseClaimedState(ReadInbox(connection, consumer, event_id).state,
                             "sqlite");
  }

  std::optional<Document> LockDocument(DocumentId id) override {
    return SelectDocument(scope_.Open(), id);
  }

  std::optional<std::string> ReadContent(DocumentId id,
                                         std::int32_t version) override {
    return SelectContent(scope_.Open(), id, version);
  }

  // PreviewStore::Project's statement (not part of ConsumerTransaction).
  bool UpsertPreview(const PreviewRecord &record) {
    SqliteConnection &connection = scope_.Open();
    connection.Prepare(kUpsertPreview)
        .Bind(1, record.document_id)
        .Bind(2, record.version)
        .Bind(3, record.content)
        .Bind(4, record.approved_at)
        .Run();
    return connection.Changes() == 1;
  }

  void ReplaceChunks(DocumentId id, std::int32_t version,
                     const std::string &title,
                     const std::vector<std::string> &chunks) override {
    SqliteConnection &connection = scope_.Open();
    connection.Prepare(kDeleteChunks).Bind(1, id).Run();
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      connection.Prepare(kInsertChunk)
          .Bind(1, id)
          .Bind(2, static_cast<std::int64_t>(i))
          .Bind(3, version)
          .Bind(4, title)
          .Bind(5, chunks[i])
          .Run();
    }
  }

  void SetIngestStatus(DocumentId id, IngestStatus status) override {
    SqliteConnection &connection = scope_.Open();
    connection.Prepare(kSetIngestStatus)
        .Bind(1, id)
        .Bind(2, ToString(status))
        .Run();
    ExpectOneRowChanged(connection, "document", id);
  }

  void Commit() override { scope_.Commit(); }

private:
  SqliteWriteScope scope_;
};

void EnableWal(SqliteConnection &connection) {
  auto stmt = connection.Prepare(kEnableWal);
  const std::string mode = stmt.Step() ? stmt.Text(0) : std::string();
  if (mode != "wal")
    throw StorageError("cannot switch to WAL (journal mode is '" + mode + "')");
}

std::unique_ptr<SqliteConnectionPool> OpenPool(const SqliteConfig &config) {
  if (config.path.empty() || config.path == ":memory:" ||
      config.path.starts_with("file:")) {
    throw StorageError(
        "path must name a database file (WAL and a pool need one)");
  }
  if (config.pool_size < 1) {
    throw StorageError("pool_size must be at least 1, not " +
                       std::to_string(config.pool_size));
  }
  if (config.busy_timeout.count() < 0 ||
      config.busy_timeout.count() > std::numeric_limits<int>::max()) {
    throw StorageError("busy_timeout must be 0.." +
                       std::to_string(std::numeric_limits<int>::max()) + " ms");
  }
  const std::filesystem::path parent =
      std::filesystem::path(config.path).parent_path();
  if (!parent.empty())
    std::filesystem::create_directories(parent);

  std::vector<std::unique_ptr<SqliteConnection>> connections;
  connections.push_back(
      std::make_unique<SqliteConnection>(config.path, config.busy_timeout));
  EnableWal(*connections.front());
  ApplySqliteMigrations(*connections.front(), kSqliteMigrations);
  while (connections.size() < static_cast<std::size_t>(config.pool_size)) {
    connections.push_back(
        std::make_unique<SqliteConnection>(config.path, config.busy_timeout));
  }
  return std::make_unique<SqliteConnectionPool>(std::move(connections),
                                                config.busy_timeout);
}

} // namespace

SqliteDocumentStore::SqliteDocumentStore(SqliteConfig config)
    : instance_token_(NewInstanceToken()),
      directory_(std::filesystem::absolute(config.path).parent_path()),
      claim_ttl_(config.outbox_claim_ttl) {
  try {
    pool_ = OpenPool(config);
  } catch (const std::runtime_error &e) {
    // Nothing can be served without the file and its schema, so at start every
    // cause (a bad path, a foreign or newer database, a malformed migration)
    // means the store is unavailable.
    throw StorageUnavailable("sqlite database " + config.path + ": " +
                             e.what());
  }
}

SqliteDocumentStore::~SqliteDocumentStore() = default;

Stores OpenSqliteStores(SqliteConfig config) {
  return StoresOf(std::make_shared<SqliteDocumentStore>(std::move(config)));
}

PoolStats SqliteDocumentStore::pool_stats() const { return pool_->Stats(); }

std::unique_ptr<StoreTransaction> SqliteDocumentStore::Begin() {
  return std::make_unique<SqliteStoreTransaction>(pool_->AcquireWriter());
}

std::optional<Document> SqliteDocumentStore::FindDocument(DocumentId id) {
  auto lease = pool_->Acquire();
  return SelectDocument(*lease, id);
}

std::optional<Review> SqliteDocumentStore::FindReview(ReviewId id) {
  auto lease = pool_->Acquire();
  return SelectReview(*lease, id);
}

std::optional<std::string>
SqliteDocumentStore::FindContent(DocumentId id, std::int32_t version) {
  auto lease = pool_->Acquire();
  return SelectContent(*lease, id, version);
}

std::vector<Document>
SqliteDocumentStore::ListDocuments(const DocumentQuery &query) {
  auto lease = pool_->Acquire();
  auto stmt = lease->Prepare(DocumentListSql(query));
  if (query.status)
    stmt.Bind(1, ToString(*query.status));
  stmt.Bind(2, query.author_id)
      .Bind(3, query.before.value_or(std::numeric_limits<DocumentId>::max()))
      .Bind(4, NonNegative(query.limit));
  return AllRows(stmt, &DocumentFromRow);
}

std::vector<Review> SqliteDocumentStore::ListReviews(const ReviewQuery &query) {
  auto lease = pool_->Acquire();
  auto stmt =
      lease->Prepare(query.status ? std::string_view(kListReviewsByStatus)
                                  : std::string_view(kListReviews));
  if (query.status)
    stmt.Bind(1, ToString(*query.status));
  stmt.Bind(2, query.after.value_or(std::numeric_limits<ReviewId>::min()))
      .Bind(3, NonNegative(query.limit));
  return AllRows(stmt, &ReviewFromRow);
}

std::vector<Review> SqliteDocumentStore::ListDocumentReviews(DocumentId id) {
  auto lease = pool_->Acquire();
  auto stmt = lease->Prepare(kListDocumentReviews);
  stmt.Bind(1, id);
  return AllRows(stmt, &ReviewFromRow);
}

bool SqliteDocumentStore::Ping() {
  try {
    auto lease = pool_->Acquire();
    auto stmt = lease->Prepare(kPing);
    if (!stmt.Step() || stmt.Int64(0) != 1)
      return false;
  } catch (const std::runtime_error &) {
    return false; // readiness reports the failure instead of propagating it
  }
  // A full disk answers reads and fails every write: not ready for what docgate
  // is for.
  std::error_code error;
  const auto space = std::filesystem::space(directory_, error);
  return !error && space.available >= kMinFreeDiskBytes;
}

std::vector<OutboxEvent> SqliteDocumentStore::ClaimPending(int limit) {
  if (limit <= 0)
    return {};
  {
    auto reader = pool_->Acquire();
    if (!reader->Prepare(kAnyPending).Step())
      return {};
  }
  auto lease = pool_->AcquireWriter();
  SqliteWriteTransaction tx(*lease);
  auto stmt = lease->Prepare(kClaimEvents);
  stmt.Bind(1, NonNegative(limit))
      .Bind(2, instance_token_)
      .Bind(3, static_cast<std::int64_t>(claim_ttl_.count()));
  auto events = AllRows(stmt, &EventFromRow);
  tx.Commit();
  std::sort(events.begin(), events.end(),
            [](const OutboxEvent &a, const OutboxEvent &b) {
              return a.sequence < b.sequence;
            });
  return events;
}

void SqliteDocumentStore::MarkDelivered(
    const std::vector<std::int64_t> &sequences, TimePoint at) {
  if (sequences.empty())
    return;
  auto lease = pool_->AcquireWriter();
  SqliteWriteTransaction tx(*lease);
  for (const std::int64_t sequence : sequences) {
    lease->Prepare(kMarkDelivered).Bind(1, sequence).Bind(2, at).Run();
  }
  tx.Commit();
}

void SqliteDocumentStore::Defer(const std::vector<std::int64_t> &sequences,
                                std::chrono::milliseconds delay,
                                std::chrono::milliseconds max_delay,
                                std::string_view reason) {
  if (sequences.empty())
    return;
  auto lease = pool_->AcquireWriter();
  SqliteWriteTransaction tx(*lease);
  for (const std::int64_t sequence : sequences) {
    lease->Prepare(kDeferEvent)
        .Bind(1, sequence)
        .Bind(2, static_cast<std::int64_t>(delay.count()))
        .Bind(3, static_cast<std::int64_t>(max_delay.count()))
        .Bind(4, reason)
        .Bind(5, instance_token_)
        .Run();
  }
  tx.Commit();
}

void SqliteDocumentStore::ReleaseClaims() {
  auto lease = pool_->AcquireWriter();
  lease->Prepare(kReleaseClaims).Bind(1, instance_token_).Run();
}

int SqliteDocumentStore::RenewClaims() {
  auto lease = pool_->AcquireWriter();
  lease->Prepare(kRenewClaims)
      .Bind(1, instance_token_)
      .Bind(2, static_cast<std::int64_t>(claim_ttl_.count()))
      .Run();
  return static_cast<int>(lease->Changes());
}

int SqliteDocumentStore::PruneDelivered(TimePoint cutoff, int limit) {
  if (limit <= 0)
    return 0;
  auto lease = pool_->AcquireWriter();
  lease->Prepare(kPruneDelivered)
      .Bind(1, cutoff)
      .Bind(2, NonNegative(limit))
      .Run();
  return static_cast<int>(lease->Changes());
}

std::optional<IdempotencyRecord> SqliteDocumentStore::ReserveIdempotencyKey(
    const std::string &caller, const std::string &key,
    const std::string &fingerprint, const std::string &owner, TimePoint now,
    TimePoint lease_until) {
  auto lease = pool_->AcquireWriter();
  SqliteWriteTransaction tx(*lease);
  {
    auto stmt = lease->Prepare(kSelectIdempotencyKey);
    stmt.Bind(1, caller).Bind(2, key);
    if (stmt.Step() && stmt.Time(2) > now) {
      return IdempotencyRecord{stmt.Text(0),
                               Nullable(stmt, 1, &SqliteStatement::Text),
                               stmt.Time(2)};
    }
  }
  lease->Prepare(kReserveIdempotencyKey)
      .Bind(1, caller)
      .Bind(2, key)
      .Bind(3, owner)
      .Bind(4, fingerprint)
      .Bind(5, now)
      .Bind(6, lease_until)
      .Run();
  tx.Commit();
  return std::nullopt;
}

bool SqliteDocumentStore::CompleteIdempotentRequest(const std::string &caller,
                                                    const std::string &key,
                                                    const std::string &owner,
                                                    const std::string &response,
                                                    TimePoint expires_at) {
  auto lease = pool_->AcquireWriter();
  return CompleteIdempotencyKey(*lease, caller, key, owner, response,
                                expires_at);
}

void SqliteDocumentStore::ReleaseIdempotencyKey(const std::string &caller,
                                                const std::string &key,
                                                const std::string &owner) {
  auto lease = pool_->AcquireWriter();
  lease->Prepare(kReleaseIdempotencyKey)
      .Bind(1, caller)
      .Bind(2, key)
      .Bind(3, owner)
      .Run();
}

int SqliteDocumentStore::PruneIdempotencyKeys(TimePoint now, int limit) {
  if (limit <= 0)
    return 0;
  auto lease = pool_->AcquireWriter();
  lease->Prepare(kPruneIdempotencyKeys)
      .Bind(1, now)
      .Bind(2, NonNegative(limit))
      .Run();
  return static_cast<int>(lease->Changes());
}

OutboxBacklog SqliteDocumentStore::Backlog() {
  auto lease = pool_->Acquire();
  auto stmt = lease->Prepare(kBacklog);
  OutboxBacklog backlog;
  if (stmt.Step()) {
    backlog.pending = stmt.Int64(0);
    backlog.oldest_occurred_at = Nullable(stmt, 1, &SqliteStatement::Time);
  }
  return backlog;
}

std::unique_ptr<ConsumerTransaction> SqliteDocumentStore::BeginConsumer() {
  return std::make_unique<SqliteConsumerTransaction>(pool_->AcquireWriter());
}

ConsumerFailure SqliteDocumentStore::RecordFailure(std::string_view consumer,
                                                   const OutboxEvent &event,
                                                   std::string_view error,
                                                   int max_attempts,
                                                   TimePoint at) {
  auto lease = pool_->AcquireWriter();
  SqliteWriteTransaction tx(*lease);
  {
    auto stmt = lease->Prepare(kRecordFailure);
    stmt.Bind(1, consumer)
        .Bind(2, std::int64_t{max_attempts})
        .Bind(3, error)
        .Bind(4, at);
    BindEvent(stmt, event, 5).Run();
  }
  const InboxRow row = ReadInbox(*lease, consumer, event.event_id);
  tx.Commit();
  return ConsumerFailure{row.attempts, row.state == "parked"};
}

std::vector<ParkedEvent> SqliteDocumentStore::ListParked(int limit) {
  return ReadAll(*pool_, kListParked, &ParkedFromRow, NonNegative(limit));
}

std::vector<OutboxEvent>
SqliteDocumentStore::Unpark(const std::optional<std::string> &event_id) {
  std::vector<std::pair<TimePoint, OutboxEvent>> deleted;
  {
    auto lease = pool_->AcquireWriter();
    SqliteWriteTransaction tx(*lease);
    auto stmt = lease->Prepare(kUnpark);
    stmt.Bind(1, event_id);
    while (stmt.Step())
      deleted.emplace_back(stmt.Time(0), EventAt(stmt, 1));
    tx.Commit();
  }
  return OldestParkedFirstOnce(std::move(deleted));
}

void SqliteDocumentStore::Requeue(const OutboxEvent &event) {
  auto lease = pool_->AcquireWriter();
  auto stmt = lease->Prepare(kRequeueEvent);
  BindEvent(stmt, event, 1).Run();
}

std::vector<OutboxEvent>
SqliteDocumentStore::FindStuckIngestions(TimePoint delivered_before,
                                         int limit) {
  return ReadAll(*pool_, kFindStuckIngestions, &EventFromRow, delivered_before,
                 NonNegative(limit));
}

int SqliteDocumentStore::PruneInbox(TimePoint cutoff, int limit) {
  if (limit <= 0)
    return 0;
  auto lease = pool_->AcquireWriter();
  lease->Prepare(kPruneInbox).Bind(1, cutoff).Bind(2, NonNegative(limit)).Run();
  return static_cast<int>(lease->Changes());
}

bool SqliteDocumentStore::Project(const PreviewRecord &record) {
  SqliteConsumerTransaction tx(pool_->AcquireWriter());
  const bool wrote = tx.UpsertPreview(record);
  tx.Commit();
  return wrote;
}

std::optional<PreviewRecord> SqliteDocumentStore::Find(DocumentId id) {
  std::vector<PreviewRecord> rows =
      ReadAll(*pool_, kSelectPreview, &PreviewFromRow, id);
  if (rows.empty())
    return std::nullopt;
  return std::move(rows.front());
}

std::vector<SearchHit> SqliteDocumentStore::Search(const std::string &query,
                                                   int limit) {
  const std::vector<std::string> words = SearchWords(query);
  if (words.empty() || limit <= 0)
    return {};
  return ReadAll(*pool_, kSearch, &HitFromRow, FtsQuery(words),
                 NonNegative(limit));
}

std::vector<std::string> SqliteDocumentStore::ListChunks(DocumentId id) {
  return ReadAll(*pool_, kListChunks, &TextFromRow, id);
}

} // namespace docgate
