#include "adapters/sqlite/sqlite_inbox_store.h"

#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_chunk_index.h"
#include "adapters/sqlite/sqlite_document_store.h"
#include "adapters/sqlite/sqlite_embedding_store.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "app/inbox_rows.h"
#include "core/error.h"

namespace docgate {
namespace {

using namespace sqlite_rows;  // shared rows and binders (sqlite_rows.h)

// The consumer inbox binds ?1 consumer, ?2 event_id. A claim writes a 'done'
// row, or turns a 'failing' one into 'done'; a pair already done or parked is
// left as it is (no change).
constexpr std::string_view kClaimInbox =
    "INSERT INTO kh_consumer_inbox (consumer, event_id, state, attempts, "
    "updated_at)"
    " VALUES (?1, ?2, 'done', 0, ?3)"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET state = 'done',"
    "   updated_at = excluded.updated_at"
    " WHERE kh_consumer_inbox.state = 'failing'";
constexpr std::string_view kSelectInbox = sql::kSqlite<sql::kSelectInbox>;
// A failed attempt of consumer ?1 on the event ?5..?13 (BindEvent), ?2 the
// attempt limit, ?3 the error, ?4 the time; the event is kept whole. A pair
// done or parked is left alone.
constexpr std::string_view kRecordFailure =
    "INSERT INTO kh_consumer_inbox (consumer, state, attempts, last_error, "
    "updated_at,"
    " event_id, event_type, document_id, review_id, version, actor_id, "
    "occurred_at, reviewer_id, comment_id)"
    " VALUES (?1, CASE WHEN ?2 <= 1 THEN 'parked' ELSE 'failing' END, 1, ?3, "
    "?4,"
    "         ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET attempts = attempts + 1,"
    "   state = CASE WHEN attempts + 1 >= ?2 THEN 'parked' ELSE 'failing' END,"
    "   last_error = excluded.last_error, updated_at = excluded.updated_at,"
    "   event_type = excluded.event_type, document_id = excluded.document_id,"
    "   review_id = excluded.review_id, version = excluded.version, actor_id = "
    "excluded.actor_id,"
    "   occurred_at = excluded.occurred_at, reviewer_id = excluded.reviewer_id,"
    "   comment_id = excluded.comment_id"
    " WHERE kh_consumer_inbox.state = 'failing'";
// ParkedFromRow reads these columns by position.
constexpr std::string_view kListParked = sql::kSqlite<sql::kListParked>;
// ?1 the event_id, or NULL for every parked pair.
constexpr std::string_view kUnpark =
    "DELETE FROM kh_consumer_inbox WHERE state = 'parked' AND (?1 IS NULL OR "
    "event_id = ?1)"
    " RETURNING updated_at, event_id, event_type, document_id, review_id, "
    "version, actor_id,"
    " occurred_at, reviewer_id, comment_id";
// Done rows written before ?1 whose event the outbox no longer holds, at most
// ?2, oldest first.
constexpr std::string_view kPruneInbox =
    "DELETE FROM kh_consumer_inbox WHERE rowid IN (SELECT i.rowid FROM "
    "kh_consumer_inbox i"
    " WHERE i.state = 'done' AND i.updated_at < ?1"
    "   AND NOT EXISTS (SELECT 1 FROM kh_outbox o WHERE o.event_id = "
    "i.event_id)"
    " ORDER BY i.updated_at LIMIT ?2)";

ParkedEvent ParkedFromRow(const SqliteStatement& row) {
  ParkedEvent parked;
  parked.consumer = row.Text(0);
  parked.event = EventAt(row, 1);
  parked.attempts = row.Int32(10);
  parked.last_error = Nullable(row, 11, &SqliteStatement::Text).value_or("");
  parked.parked_at = row.Time(12);
  return parked;
}

struct InboxRow {
  std::string state;
  int attempts = 0;
};

// The inbox row of (consumer, event_id), which the caller's write transaction
// has just written or found; StorageError if there is none.
InboxRow ReadInbox(SqliteConnection& connection, std::string_view consumer,
                   std::string_view event_id) {
  auto stmt = connection.Prepare(kSelectInbox);
  stmt.Bind(1, consumer).Bind(2, event_id);
  if (!stmt.Step()) {
    throw StorageError("sqlite: inbox row of " + std::string(event_id) + " vanished");
  }
  return InboxRow{stmt.Text(0), stmt.Int32(1)};
}

// One consumer's unit of work, composed of the ports' writers over one SqliteWork: the inbox's
// claim (here), the documents' lock, reads and ingest status (SqliteDocumentStore), the chunks
// (SqliteChunkIndex).
class SqliteConsumerTransaction final : public ConsumerTransaction {
 public:
  explicit SqliteConsumerTransaction(SqliteConnectionPool::Lease lease) : work_(std::move(lease)) {}

  // Under BEGIN IMMEDIATE no other writer runs, so the claim and the read of
  // what it found are one step.
  InboxState Claim(std::string_view consumer, std::string_view event_id, TimePoint at) override {
    SqliteConnection& connection = work_.Open();
    connection.Prepare(kClaimInbox).Bind(1, consumer).Bind(2, event_id).Bind(3, at).Run();
    if (connection.Changes() == 1) return InboxState::kNew;
    return ParseClaimedState(ReadInbox(connection, consumer, event_id).state, "sqlite");
  }

  std::optional<Document> LockDocument(DocumentId id) override {
    return SqliteDocumentStore::LockDocumentIn(work_, id);
  }

  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return SqliteDocumentStore::ReadContentIn(work_, id, version);
  }

  void ReplaceChunks(DocumentId id, std::int32_t version, const std::string& title,
                     const std::vector<std::string>& chunks,
                     const std::vector<std::string>& sections,
                     const std::vector<std::string>& text_keys) override {
    SqliteChunkIndex::Replace(work_, id, version, title, chunks, sections, text_keys);
  }

  std::size_t CountStoredVectors(const EmbeddingModel& model,
                                 const std::vector<std::string>& text_keys) override {
    return SqliteEmbeddingStore::CountStoredVectorsIn(work_, model, text_keys);
  }

  void SetIngestStatus(DocumentId id, IngestStatus status) override {
    SqliteDocumentStore::SetIngestStatusIn(work_, id, status);
  }

  void Commit() override { work_.Commit(); }

 private:
  SqliteWork work_;
};

}  // namespace

SqliteInboxStore::SqliteInboxStore(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

std::unique_ptr<ConsumerTransaction> SqliteInboxStore::BeginConsumer() {
  return session_->Begin<SqliteConsumerTransaction>();
}

ConsumerFailure SqliteInboxStore::RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                                std::string_view error, int max_attempts,
                                                TimePoint at) {
  const InboxRow row = session_->Atomically([&](SqliteConnection& connection) {
    {
      auto stmt = connection.Prepare(kRecordFailure);
      stmt.Bind(1, consumer).Bind(2, std::int64_t{max_attempts}).Bind(3, error).Bind(4, at);
      BindEvent(stmt, event, 5).Run();
    }
    return ReadInbox(connection, consumer, event.event_id);
  });
  return ConsumerFailure{row.attempts, row.state == "parked"};
}

std::vector<ParkedEvent> SqliteInboxStore::ListParked(int limit) {
  return session_->ReadAll(kListParked, &ParkedFromRow, NonNegative(limit));
}

std::vector<OutboxEvent> SqliteInboxStore::Unpark(const std::optional<std::string>& event_id) {
  auto deleted = session_->Atomically([&](SqliteConnection& connection) {
    std::vector<std::pair<TimePoint, OutboxEvent>> rows;
    auto stmt = connection.Prepare(kUnpark);
    stmt.Bind(1, event_id);
    while (stmt.Step()) rows.emplace_back(stmt.Time(0), EventAt(stmt, 1));
    return rows;
  });
  return OldestParkedFirstOnce(std::move(deleted));
}

int SqliteInboxStore::PruneInbox(TimePoint cutoff, int limit) {
  if (limit <= 0) return 0;
  auto lease = session_->Write();
  lease->Prepare(kPruneInbox).Bind(1, cutoff).Bind(2, NonNegative(limit)).Run();
  return static_cast<int>(lease->Changes());
}

}  // namespace docgate
