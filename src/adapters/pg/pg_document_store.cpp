#include "adapters/pg/pg_document_store.h"

#include <algorithm>
#include <array>
#include <limits>
#include <pqxx/pqxx>
#include <span>
#include <string_view>
#include <utility>

#include "adapters/pg/pg_document_sql.h"
#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_store_transaction.h"
#include "adapters/sql/shared_statements.h"
#include "adapters/sql/sql_join.h"
#include "core/error.h"

namespace docgate {

using namespace pg_document_sql;  // the statements and rows (pg_document_sql.h)

PgDocumentStore::PgDocumentStore(std::shared_ptr<PgSession> session)
    : session_(std::move(session)) {}

std::span<const Statement> PgDocumentStore::Statements() { return kDocumentStatements; }

std::unique_ptr<StoreTransaction> PgDocumentStore::Begin() {
  return BeginPgStoreTransaction(*session_);
}

std::optional<Document> PgDocumentStore::FindDocument(DocumentId id) {
  return session_->Autocommit(Describe("find document", id), [&](pqxx::transaction_base& tx) {
    return First<Document>(tx.exec_prepared(kSelectDocument.name, id), ToDocument);
  });
}

std::optional<Review> PgDocumentStore::FindReview(ReviewId id) {
  return session_->Autocommit(Describe("find review", id), [&](pqxx::transaction_base& tx) {
    return ReviewWithPeople(tx, kSelectReview, id);
  });
}

std::optional<std::string> PgDocumentStore::FindContent(DocumentId id, std::int32_t version) {
  return session_->Autocommit(
      Describe("find content of document", id), [&](pqxx::transaction_base& tx) {
        return First<std::string>(tx.exec_prepared(kSelectContent.name, id, version), ToText);
      });
}

std::optional<DocumentWithContent> PgDocumentStore::FindDocumentWithContent(DocumentId id) {
  return session_->Autocommit(
      Describe("find document with content", id), [&](pqxx::transaction_base& tx) {
        return First<DocumentWithContent>(tx.exec_prepared(kSelectDocumentWithContent.name, id),
                                          ToDocumentWithContent);
      });
}

std::vector<std::optional<DocumentWithContent>> PgDocumentStore::FindDocumentsWithContent(
    const std::vector<std::pair<DocumentId, std::int32_t>>& wanted) {
  std::vector<std::int64_t> ids;
  std::vector<std::int64_t> versions;
  for (const auto& [id, version] : wanted) {
    ids.push_back(id);
    versions.push_back(version);
  }
  std::vector<std::optional<DocumentWithContent>> found(wanted.size());
  session_->Autocommit("find documents with content", [&](pqxx::transaction_base& tx) {
    for (const pqxx::row& row :
         tx.exec_prepared(kSelectDocumentsWithContent.name, IdArray(ids), IdArray(versions))) {
      found.at(row[13].as<std::size_t>() - 1) = ToDocumentWithContent(row);
    }
  });
  return found;
}

std::optional<DocumentVersion> PgDocumentStore::FindVersion(DocumentId id, std::int32_t version) {
  return session_->Autocommit(Describe("find version of document", id),
                              [&](pqxx::transaction_base& tx) {
                                return First<DocumentVersion>(
                                    tx.exec_prepared(kSelectVersion.name, id, version), ToVersion);
                              });
}

std::vector<VersionSummary> PgDocumentStore::ListVersions(const VersionQuery& query) {
  if (query.limit <= 0) return {};
  const std::int32_t before = query.before.value_or(std::numeric_limits<std::int32_t>::max());
  return session_->Autocommit(
      Describe("list versions of document", query.document_id), [&](pqxx::transaction_base& tx) {
        return All<VersionSummary>(
            tx.exec_prepared(kListVersions.name, query.document_id, before, query.limit),
            ToVersionSummary);
      });
}

std::vector<std::pair<std::int32_t, UserId>> PgDocumentStore::ListVersionEditors(
    DocumentId id, std::int32_t from_version, std::int32_t to_version) {
  return session_->Autocommit(
      Describe("list version editors of document", id), [&](pqxx::transaction_base& tx) {
        return All<std::pair<std::int32_t, UserId>>(
            tx.exec_prepared(kListVersionEditors.name, id, from_version, to_version),
            [](const pqxx::row& row) {
              return std::pair{row[0].as<std::int32_t>(), row[1].as<std::string>()};
            });
      });
}

std::vector<Document> PgDocumentStore::ListDocuments(const DocumentQuery& query) {
  if (query.limit <= 0) return {};
  const std::optional<std::string> status =
      query.status ? Text(ToString(*query.status)) : std::nullopt;
  return session_->Autocommit("list documents", [&](pqxx::transaction_base& tx) {
    return All<Document>(tx.exec_params(kListDocuments, Checked(status), Checked(query.author_id),
                                        Checked(Text(query.before)), query.limit),
                         ToDocument);
  });
}

std::vector<QueuedReview> PgDocumentStore::ListReviews(const ReviewQuery& query) {
  if (query.limit <= 0) return {};
  const std::optional<std::string> status =
      query.status ? Text(ToString(*query.status)) : std::nullopt;
  return session_->Autocommit("list reviews", [&](pqxx::transaction_base& tx) {
    std::vector<QueuedReview> page =
        All<QueuedReview>(tx.exec_params(kListReviews, Checked(status), Checked(Text(query.after)),
                                         query.limit, Checked(query.assignee)),
                          ToQueuedReview);
    return page;
  });
}

std::vector<Review> PgDocumentStore::ListDocumentReviews(const DocumentReviewQuery& query) {
  if (query.limit <= 0) return {};
  const ReviewId before = query.before.value_or(std::numeric_limits<ReviewId>::max());
  return session_->Autocommit(
      Describe("list reviews of document", query.document_id), [&](pqxx::transaction_base& tx) {
        std::vector<Review> page = All<Review>(
            tx.exec_prepared(kSelectDocumentReviews.name, query.document_id, before, query.limit),
            ToReview);
        return page;
      });
}

std::vector<ReviewComment> PgDocumentStore::ListComments(const CommentQuery& query) {
  if (query.limit <= 0) return {};
  const std::int64_t after = query.after.value_or(std::numeric_limits<std::int64_t>::min());
  return session_->Autocommit(
      Describe("list comments of review", query.review_id), [&](pqxx::transaction_base& tx) {
        return All<ReviewComment>(
            tx.exec_prepared(kListComments.name, query.review_id, after, query.limit), ToComment);
      });
}

bool PgDocumentStore::Ping() { return session_->Ping(); }

// The documents' part of the consumers' transactions (PgInboxStore's).
std::optional<Document> PgDocumentStore::LockDocumentIn(PgWork& work, DocumentId id) {
  return work.Run("lock document", id, [&](pqxx::work& w) {
    return First<Document>(w.exec_prepared(kLockDocument.name, id), ToDocument);
  });
}
std::optional<DocumentWithContent> PgDocumentStore::LockDocumentWithContentIn(
    PgWork& work, DocumentId id, std::int32_t version) {
  return work.Run("lock document with content", id, [&](pqxx::work& w) {
    return First<DocumentWithContent>(w.exec_prepared(kLockDocumentWithContent.name, id, version),
                                      ToDocumentWithContent);
  });
}
std::optional<std::string> PgDocumentStore::ReadContentIn(PgWork& work, DocumentId id,
                                                          std::int32_t version) {
  return work.Run("read content of document", id, [&](pqxx::work& w) {
    return First<std::string>(w.exec_prepared(kSelectContent.name, id, version), ToText);
  });
}

void PgDocumentStore::SetIngestStatusIn(PgWork& work, DocumentId id, IngestStatus status) {
  work.Run("set ingest status of document", id, [&](pqxx::work& w) {
    if (w.exec_prepared(kSetIngestStatus.name, id, Name(ToString(status))).affected_rows() != 1) {
      throw StorageError("postgres: no document " + std::to_string(id) + " to update");
    }
  });
}

}  // namespace docgate
