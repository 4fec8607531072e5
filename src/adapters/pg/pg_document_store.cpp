#include "adapters/pg/pg_document_store.h"

#include <algorithm>
#include <array>
#include <pqxx/pqxx>
#include <string_view>
#include <utility>

#include "adapters/pg/pg_chunk_index.h"
#include "adapters/pg/pg_idempotency_store.h"
#include "adapters/pg/pg_inbox_store.h"
#include "adapters/pg/pg_outbox_store.h"
#include "adapters/pg/pg_preview_store.h"
#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_statements.h"
#include "core/error.h"

namespace docgate {
namespace {

using namespace pg_sql; // the store's SQL, one named constant per statement
using namespace pg;      // parameters and rows (pg_rows.h)


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
    return PgDocumentStore::LockDocumentIn(work_, id);
  }

  std::optional<Document> ReadDocument(DocumentId id) override {
    return work_.Run("read document", id, [&](pqxx::work &w) {
      return First<Document>(w.exec_prepared(kSelectDocument.name, id),
                             ToDocument);
    });
  }

  std::optional<std::string> ReadContent(DocumentId id,
                                         std::int32_t version) override {
    return PgDocumentStore::ReadContentIn(work_, id, version);
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
    PgOutboxStore::Append(work_, event);
  }

  void CompleteIdempotentRequest(const std::string &caller, const std::string &key,
                                 const std::string &owner, const std::string &response,
                                 TimePoint expires_at) override {
    PgIdempotencyStore::Complete(work_, caller, key, owner, response, expires_at);
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

} // namespace

std::vector<Statement> PgStatementsOfEveryStore() {
  std::vector<Statement> all(kStatements.begin(), kStatements.end());
  for (const auto part : {PgOutboxStore::Statements(), PgIdempotencyStore::Statements(),
                          PgPreviewStore::Statements(), PgChunkIndex::Statements(),
                          PgInboxStore::Statements()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

PgDocumentStore::PgDocumentStore(PgConfig config)
    : PgDocumentStore(std::make_shared<PgSession>(std::move(config), PgStatementsOfEveryStore())) {}

PgDocumentStore::PgDocumentStore(std::shared_ptr<PgSession> session)
    : session_(std::move(session)),
      outbox_(std::make_unique<PgOutboxStore>(session_)),
      idempotency_(std::make_unique<PgIdempotencyStore>(session_)),
      previews_(std::make_unique<PgPreviewStore>(session_)),
      chunks_(std::make_unique<PgChunkIndex>(session_)),
      inbox_(std::make_unique<PgInboxStore>(session_)) {}

PgDocumentStore::~PgDocumentStore() = default;

Stores OpenPgStores(PgConfig config) {
  auto session = std::make_shared<PgSession>(std::move(config), PgStatementsOfEveryStore());
  Stores stores;
  stores.documents = std::make_shared<PgDocumentStore>(session);
  stores.outbox = std::make_shared<PgOutboxStore>(session);
  stores.idempotency = std::make_shared<PgIdempotencyStore>(session);
  stores.inbox = std::make_shared<PgInboxStore>(session);
  stores.previews = std::make_shared<PgPreviewStore>(session);
  stores.chunks = std::make_shared<PgChunkIndex>(session);
  stores.pool_stats = [session] { return session->pool_stats(); };
  return stores;
}

PoolStats PgDocumentStore::pool_stats() const { return session_->pool_stats(); }

void PgDocumentStore::Migrate(const PgConfig &config) { PgSession::Migrate(config); }

std::unique_ptr<StoreTransaction> PgDocumentStore::Begin() {
  return session_->Begin<PgTransaction>();
}

std::optional<Document> PgDocumentStore::FindDocument(DocumentId id) {
  return session_->Autocommit(Describe("find document", id),
      [&](pqxx::transaction_base &tx) {
        return First<Document>(tx.exec_prepared(kSelectDocument.name, id),
                               ToDocument);
      });
}

std::optional<Review> PgDocumentStore::FindReview(ReviewId id) {
  return session_->Autocommit(Describe("find review", id),
                    [&](pqxx::transaction_base &tx) {
                      return First<Review>(
                          tx.exec_prepared(kSelectReview.name, id), ToReview);
                    });
}

std::optional<std::string> PgDocumentStore::FindContent(DocumentId id,
                                                        std::int32_t version) {
  return session_->Autocommit(Describe("find content of document", id),
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
  return session_->Autocommit("list documents",
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
  return session_->Autocommit("list reviews",
                    [&](pqxx::transaction_base &tx) {
                      return All<Review>(
                          tx.exec_params(kListReviews, Checked(status),
                                         Checked(Text(query.after)),
                                         query.limit),
                          ToReview);
                    });
}

std::vector<Review> PgDocumentStore::ListDocumentReviews(DocumentId id) {
  return session_->Autocommit(Describe("list reviews of document", id),
                    [&](pqxx::transaction_base &tx) {
                      return All<Review>(
                          tx.exec_prepared(kSelectDocumentReviews.name, id),
                          ToReview);
                    });
}

bool PgDocumentStore::Ping() { return session_->Ping(); }















































// The outbox's side, until the stores are built apart (ADR 0006): PgOutboxStore on this session.
std::vector<OutboxEvent> PgDocumentStore::ClaimPending(int limit) { return outbox_->ClaimPending(limit); }
void PgDocumentStore::MarkDelivered(const std::vector<std::int64_t> &sequences, TimePoint at) {
  outbox_->MarkDelivered(sequences, at);
}
void PgDocumentStore::Defer(const std::vector<std::int64_t> &sequences,
                            std::chrono::milliseconds delay, std::chrono::milliseconds max_delay,
                            std::string_view reason) {
  outbox_->Defer(sequences, delay, max_delay, reason);
}
void PgDocumentStore::ReleaseClaims() { outbox_->ReleaseClaims(); }
int PgDocumentStore::RenewClaims() { return outbox_->RenewClaims(); }
int PgDocumentStore::PruneDelivered(TimePoint cutoff, int limit) {
  return outbox_->PruneDelivered(cutoff, limit);
}
OutboxBacklog PgDocumentStore::Backlog() { return outbox_->Backlog(); }
void PgDocumentStore::Requeue(const OutboxEvent &event) { outbox_->Requeue(event); }
std::vector<OutboxEvent> PgDocumentStore::FindStuckIngestions(TimePoint delivered_before,
                                                              int limit) {
  return outbox_->FindStuckIngestions(delivered_before, limit);
}

// The idempotency side, until the stores are built apart (ADR 0006): PgIdempotencyStore.
std::optional<IdempotencyRecord> PgDocumentStore::ReserveIdempotencyKey(
    const std::string &caller, const std::string &key, const std::string &fingerprint,
    const std::string &owner, TimePoint now, TimePoint lease_until) {
  return idempotency_->ReserveIdempotencyKey(caller, key, fingerprint, owner, now, lease_until);
}
bool PgDocumentStore::CompleteIdempotentRequest(const std::string &caller, const std::string &key,
                                                const std::string &owner,
                                                const std::string &response,
                                                TimePoint expires_at) {
  return idempotency_->CompleteIdempotentRequest(caller, key, owner, response, expires_at);
}
void PgDocumentStore::ReleaseIdempotencyKey(const std::string &caller, const std::string &key,
                                            const std::string &owner) {
  idempotency_->ReleaseIdempotencyKey(caller, key, owner);
}
int PgDocumentStore::PruneIdempotencyKeys(TimePoint now, int limit) {
  return idempotency_->PruneIdempotencyKeys(now, limit);
}

// The preview and chunk sides, until the stores are built apart (ADR 0006).
bool PgDocumentStore::Project(const PreviewRecord &record) { return previews_->Project(record); }
std::optional<PreviewRecord> PgDocumentStore::Find(DocumentId id) { return previews_->Find(id); }
std::vector<SearchHit> PgDocumentStore::Search(const std::string &query, int limit) {
  return chunks_->Search(query, limit);
}
std::vector<std::string> PgDocumentStore::ListChunks(DocumentId id) {
  return chunks_->ListChunks(id);
}

// The documents' part of the consumers' transactions (PgInboxStore's).
std::optional<Document> PgDocumentStore::LockDocumentIn(PgWork &work, DocumentId id) {
  return work.Run("lock document", id, [&](pqxx::work &w) {
    return First<Document>(w.exec_prepared(kLockDocument.name, id), ToDocument);
  });
}
std::optional<std::string> PgDocumentStore::ReadContentIn(PgWork &work, DocumentId id, std::int32_t version) {
  return work.Run("read content of document", id, [&](pqxx::work &w) {
    return First<std::string>(w.exec_prepared(kSelectContent.name, id, version), ToText);
  });
}

void PgDocumentStore::SetIngestStatusIn(PgWork &work, DocumentId id, IngestStatus status) {
  work.Run("set ingest status of document", id, [&](pqxx::work &w) {
    if (w.exec_prepared(kSetIngestStatus.name, id, Name(ToString(status))).affected_rows() != 1) {
      throw StorageError("postgres: no document " + std::to_string(id) + " to update");
    }
  });
}

// The inbox side, until the stores are built apart (ADR 0006): PgInboxStore.
std::unique_ptr<ConsumerTransaction> PgDocumentStore::BeginConsumer() {
  return inbox_->BeginConsumer();
}
ConsumerFailure PgDocumentStore::RecordFailure(std::string_view consumer, const OutboxEvent &event,
                                               std::string_view error, int max_attempts,
                                               TimePoint at) {
  return inbox_->RecordFailure(consumer, event, error, max_attempts, at);
}
std::vector<ParkedEvent> PgDocumentStore::ListParked(int limit) { return inbox_->ListParked(limit); }
std::vector<OutboxEvent> PgDocumentStore::Unpark(const std::optional<std::string> &event_id) {
  return inbox_->Unpark(event_id);
}
int PgDocumentStore::PruneInbox(TimePoint cutoff, int limit) {
  return inbox_->PruneInbox(cutoff, limit);
}

} // namespace docgate
