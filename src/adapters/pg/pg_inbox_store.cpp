#include "adapters/pg/pg_inbox_store.h"

#include <array>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "adapters/pg/pg_chunk_index.h"
#include "adapters/pg/pg_document_store.h"
#include "adapters/pg/pg_embedding_store.h"
#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"
#include "app/inbox_rows.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

// The consumer inbox binds $1 consumer, $2 event_id. A claim writes a 'done'
// row, or turns a 'failing' one into 'done', and returns a row when it did; a
// pair already done or parked is left as it is. A concurrent claim of the same
// pair waits on the primary key (or the row lock) for the first to end, then
// inserts (the first rolled back) or finds its committed row.
constexpr Statement kClaimInbox{
    "claim_inbox",
    "INSERT INTO kh_consumer_inbox (consumer, event_id, state, attempts, "
    "updated_at)"
    " VALUES ($1, $2, 'done', 0, $3)"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET state = 'done',"
    "   updated_at = EXCLUDED.updated_at"
    " WHERE kh_consumer_inbox.state = 'failing'"
    " RETURNING state"};
// ClaimAll's one round trip for a batch: $2 the event ids (each once, in order), claimed as
// kClaimInbox claims one; returns the ids it claimed.
constexpr Statement kClaimInboxAll{
    "claim_inbox_all",
    "INSERT INTO kh_consumer_inbox (consumer, event_id, state, attempts, updated_at)"
    " SELECT $1, w.event_id, 'done', 0, $3"
    " FROM unnest($2::text[]) WITH ORDINALITY AS w (event_id, n) ORDER BY w.n"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET state = 'done',"
    "   updated_at = EXCLUDED.updated_at"
    " WHERE kh_consumer_inbox.state = 'failing'"
    " RETURNING event_id"};
// The states of the pairs of $2 that ClaimAll did not claim (a statement of its own, so that it
// sees what concurrent claims it waited for committed).
constexpr Statement kSelectInboxAll{"select_inbox_all",
                                    "SELECT event_id, state FROM kh_consumer_inbox WHERE "
                                    "consumer = $1 AND event_id = ANY($2::text[])"};
constexpr Statement kSelectInbox{"select_inbox", sql::kSelectInbox};
// A failed attempt of a new or failing pair, $3 the attempt limit; the event
// ($6..$13) is kept whole. A pair done or parked is left alone and nothing is
// returned.
constexpr Statement kRecordFailure{
    "record_failure",
    "INSERT INTO kh_consumer_inbox (consumer, event_id, state, attempts, "
    "last_error, updated_at,"
    " event_type, document_id, review_id, version, actor_id, occurred_at, reviewer_id,"
    " comment_id)"
    " VALUES ($1, $2, CASE WHEN $3::integer <= 1 THEN 'parked' ELSE 'failing' "
    "END, 1, $4, $5,"
    "         $6, $7, $8, $9, $10, $11, $12, $13)"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET attempts = "
    "kh_consumer_inbox.attempts + 1,"
    "   state = CASE WHEN kh_consumer_inbox.attempts + 1 >= $3::integer THEN "
    "'parked'"
    "                ELSE 'failing' END,"
    "   last_error = EXCLUDED.last_error, updated_at = EXCLUDED.updated_at,"
    "   event_type = EXCLUDED.event_type, document_id = EXCLUDED.document_id,"
    "   review_id = EXCLUDED.review_id, version = EXCLUDED.version,"
    "   actor_id = EXCLUDED.actor_id, occurred_at = EXCLUDED.occurred_at,"
    "   reviewer_id = EXCLUDED.reviewer_id, comment_id = EXCLUDED.comment_id"
    " WHERE kh_consumer_inbox.state = 'failing'"
    " RETURNING state, attempts"};
// ToParked reads these columns by position.
constexpr Statement kListParked{"list_parked", sql::kListParked};
// $1 the event_id, or NULL for every parked pair.
constexpr Statement kUnpark{"unpark",
                            "DELETE FROM kh_consumer_inbox WHERE state = "
                            "'parked' AND ($1::text IS NULL OR event_id = $1)"
                            " RETURNING updated_at, event_id, event_type, "
                            "document_id, review_id, version, actor_id,"
                            " occurred_at, reviewer_id, comment_id"};
// Done rows written before $1 whose event the outbox no longer holds, at most
// $2, oldest first; rows another instance is pruning right now are skipped, not
// waited for.
constexpr Statement kPruneInbox{
    "prune_inbox",
    "DELETE FROM kh_consumer_inbox WHERE (consumer, event_id) IN (SELECT "
    "i.consumer, i.event_id"
    " FROM kh_consumer_inbox i WHERE i.state = 'done' AND i.updated_at < $1"
    "   AND NOT EXISTS (SELECT 1 FROM kh_outbox o WHERE o.event_id = "
    "i.event_id)"
    " ORDER BY i.updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)"};

constexpr std::array kInboxStatements{kClaimInbox,    kClaimInboxAll, kSelectInboxAll, kSelectInbox,
                                      kRecordFailure, kListParked,    kUnpark,         kPruneInbox};

// One consumer's unit of work, composed of the ports' writers over one PgWork: the inbox's claim
// (here), the documents' lock, reads and ingest status (PgDocumentStore), the chunks
// (PgChunkIndex).
class PgConsumerTransaction final : public ConsumerTransaction {
 public:
  explicit PgConsumerTransaction(PgConnectionPool::Lease lease) : work_(std::move(lease)) {}

  InboxState Claim(std::string_view consumer, std::string_view event_id, TimePoint at) override {
    const std::string name(consumer);
    const std::string event(event_id);
    return work_.Run("claim inbox", 0, [&](pqxx::work& w) {
      // The row the claim found may be deleted (un-parked) before it is read;
      // then the pair is free again and the claim is repeated.
      for (int attempt = 0; attempt < 3; ++attempt) {
        if (!w.exec_prepared(kClaimInbox.name, Checked(name), Checked(event), Millis(at)).empty()) {
          return InboxState::kNew;
        }
        const pqxx::result found = w.exec_prepared(kSelectInbox.name, name, event);
        if (!found.empty()) return ParseClaimedState(found[0][0].as<std::string>(), "postgres");
      }
      throw StorageUnavailable("postgres: inbox row of " + event +
                               " kept changing under concurrent claims");
    });
  }

  std::vector<InboxState> ClaimAll(std::string_view consumer,
                                   const std::vector<std::string>& event_ids,
                                   TimePoint at) override {
    std::vector<std::string> once;  // each id once, in its first place's order
    std::set<std::string> seen;
    for (const std::string& id : event_ids) {
      if (seen.insert(id).second) once.push_back(id);
    }
    const std::string name(consumer);
    std::map<std::string, InboxState> states;
    work_.Run("claim inbox", 0, [&](pqxx::work& w) {
      for (const pqxx::row& row :
           w.exec_prepared(kClaimInboxAll.name, Checked(name), TextArray(once), Millis(at))) {
        states.emplace(row[0].as<std::string>(), InboxState::kNew);
      }
      if (states.size() == once.size()) return;
      for (const pqxx::row& row : w.exec_prepared(kSelectInboxAll.name, name, TextArray(once))) {
        const auto id = row[0].as<std::string>();
        if (!states.contains(id)) {
          states.emplace(id, ParseClaimedState(row[1].as<std::string>(), "postgres"));
        }
      }
    });
    std::vector<InboxState> claimed;
    claimed.reserve(event_ids.size());
    for (const std::string& id : event_ids) {
      auto it = states.find(id);
      // Neither claimed nor there: un-parked (deleted) meanwhile, so the pair is free again.
      if (it == states.end()) it = states.emplace(id, Claim(consumer, id, at)).first;
      claimed.push_back(it->second);
      if (it->second == InboxState::kNew) it->second = InboxState::kDone;  // for a repeat
    }
    return claimed;
  }

  std::optional<Document> LockDocument(DocumentId id) override {
    return PgDocumentStore::LockDocumentIn(work_, id);
  }

  std::optional<DocumentWithContent> LockDocumentWithContent(DocumentId id,
                                                             std::int32_t version) override {
    return PgDocumentStore::LockDocumentWithContentIn(work_, id, version);
  }

  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return PgDocumentStore::ReadContentIn(work_, id, version);
  }

  void ReplaceChunks(DocumentId id, std::int32_t version, const std::string& title,
                     const std::vector<std::string>& chunks,
                     const std::vector<std::string>& sections,
                     const std::vector<std::string>& text_keys) override {
    PgChunkIndex::Replace(work_, id, version, title, chunks, sections, text_keys);
  }

  std::size_t CountStoredVectors(const EmbeddingModel& model,
                                 const std::vector<std::string>& text_keys) override {
    return PgEmbeddingStore::CountStoredVectorsIn(work_, model, text_keys);
  }

  void SetIngestStatus(DocumentId id, IngestStatus status) override {
    PgDocumentStore::SetIngestStatusIn(work_, id, status);
  }

  void Commit() override { work_.Commit(); }

 private:
  PgWork work_;
};

}  // namespace

PgInboxStore::PgInboxStore(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgInboxStore::Statements() { return kInboxStatements; }

std::unique_ptr<ConsumerTransaction> PgInboxStore::BeginConsumer() {
  return session_->Begin<PgConsumerTransaction>();
}

ConsumerFailure PgInboxStore::RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                            std::string_view error, int max_attempts,
                                            TimePoint at) {
  const std::string name(consumer);
  const std::string message(error);
  return session_->Atomically(
      "record failure of " + event.event_id, [&](pqxx::transaction_base& tx) {
        pqxx::result row = tx.exec_prepared(
            kRecordFailure.name, Checked(name), Checked(event.event_id), max_attempts,
            Checked(message), Millis(at), Name(ToString(event.type)), event.document_id,
            event.review_id, event.version, Checked(event.actor_id), Millis(event.occurred_at),
            Checked(event.reviewer_id), event.comment_id);
        // Done or parked: left alone, reported as it is.
        if (row.empty()) row = tx.exec_prepared(kSelectInbox.name, name, event.event_id);
        if (row.empty()) {
          throw StorageError("postgres: inbox row of " + event.event_id + " vanished");
        }
        return ConsumerFailure{row[0][1].as<int>(), row[0][0].as<std::string>() == "parked"};
      });
}

std::vector<ParkedEvent> PgInboxStore::ListParked(int limit) {
  if (limit <= 0) return {};
  return session_->Autocommit("list parked events", [&](pqxx::transaction_base& tx) {
    return All<ParkedEvent>(tx.exec_prepared(kListParked.name, limit), ToParked);
  });
}

std::vector<OutboxEvent> PgInboxStore::Unpark(const std::optional<std::string>& event_id) {
  auto deleted = session_->Atomically("unpark events", [&](pqxx::transaction_base& tx) {
    return All<std::pair<TimePoint, OutboxEvent>>(
        tx.exec_prepared(kUnpark.name, Checked(event_id)), [](const pqxx::row& row) {
          return std::pair{FromMillis(row[0].as<std::int64_t>()), EventAt(row, 1)};
        });
  });
  return OldestParkedFirstOnce(std::move(deleted));
}

int PgInboxStore::PruneInbox(TimePoint cutoff, int limit) {
  if (limit <= 0) return 0;
  return session_->Autocommit("prune inbox", [&](pqxx::transaction_base& tx) {
    return static_cast<int>(
        tx.exec_prepared(kPruneInbox.name, Millis(cutoff), limit).affected_rows());
  });
}

}  // namespace docgate
