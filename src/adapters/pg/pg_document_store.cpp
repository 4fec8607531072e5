#include "adapters/pg/pg_document_store.h"

#include <algorithm>
#include <array>
#include <limits>
#include <pqxx/pqxx>
#include <span>
#include <string_view>
#include <utility>

#include "adapters/pg/pg_idempotency_store.h"
#include "adapters/pg/pg_outbox_store.h"
#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"
#include "adapters/sql/sql_join.h"
#include "core/error.h"

namespace docgate {
namespace {

using pg_sql::Statement;
using namespace pg;  // parameters and rows (pg_rows.h)

// The documents' and reviews' SQL: statements prepared on every connection, and the list queries
// run unprepared.
constexpr Statement kSelectDocument{"select_document",
                                    "SELECT id, title, status, version, author_id, "
                                    "current_review_id, approved_version,"
                                    " approved_at, ingest_status, created_at, updated_at "
                                    "FROM kh_document WHERE id = $1"};
constexpr Statement kLockDocument{"lock_document",
                                  "SELECT id, title, status, version, author_id, "
                                  "current_review_id, approved_version,"
                                  " approved_at, ingest_status, created_at, updated_at FROM "
                                  "kh_document WHERE id = $1"
                                  " FOR UPDATE"};
// The consumers' one read of the approvals they work from. For the preview, a batch: $1 document
// ids, $2 versions; each document found, with that version's content (NULL when it has none) and
// its position in $1 (from 1) last.
constexpr Statement kSelectDocumentsWithContent{
    "select_documents_with_content",
    "SELECT d.id, d.title, d.status, d.version, d.author_id, d.current_review_id,"
    " d.approved_version, d.approved_at, d.ingest_status, d.created_at, d.updated_at, c.content,"
    " w.n FROM unnest($1::bigint[], $2::integer[]) WITH ORDINALITY AS w (id, version, n)"
    " JOIN kh_document d ON d.id = w.id"
    " LEFT JOIN kh_document_content c ON c.document_id = w.id AND c.version = w.version"};
// For ingestion: the document $1 locked, with the content of version $2 (NULL when it has none).
constexpr Statement kLockDocumentWithContent{
    "lock_document_with_content",
    "SELECT d.id, d.title, d.status, d.version, d.author_id, d.current_review_id,"
    " d.approved_version, d.approved_at, d.ingest_status, d.created_at, d.updated_at, c.content"
    " FROM kh_document d LEFT JOIN kh_document_content c ON c.document_id = d.id"
    " AND c.version = $2 WHERE d.id = $1 FOR UPDATE OF d"};
constexpr Statement kInsertDocument{"insert_document", sql::kInsertDocument};
// The mutable columns only: the author and the creation time never change.
constexpr Statement kUpdateDocument{"update_document",
                                    "UPDATE kh_document SET title = $2, status = $3, "
                                    "version = $4, current_review_id = $5,"
                                    " approved_version = $6, approved_at = $7, "
                                    "ingest_status = $8, updated_at = $9"
                                    " WHERE id = $1"};

// A review's columns as ToReview reads them, its approvals and assignees included, each as one
// JSON array (NULL: none) read in the same statement as the review: a review costs one round trip
// whatever it holds, and is read as one snapshot. Order: approvals as they were given, assignees as
// they were assigned; ties by reviewer id in byte order, whatever the database's collation, as on
// SQLite (BINARY). kh_lock_review (migration 0016) selects the same.
constexpr char kReviewColumns[] =
    "SELECT r.id, r.document_id, r.document_version, r.status, r.submitted_by, r.submitted_at,"
    " r.decided_by, r.decided_at, r.comment, r.required_approvals,"
    " (SELECT json_agg(json_build_array(a.reviewer_id, a.comment, a.decided_at)"
    "                  ORDER BY a.decided_at, a.reviewer_id COLLATE \"C\")"
    "    FROM kh_review_approval a WHERE a.review_id = r.id),"
    " (SELECT json_agg(s.reviewer_id ORDER BY s.assigned_at, s.reviewer_id COLLATE \"C\")"
    "    FROM kh_review_assignee s WHERE s.review_id = r.id)";
constexpr auto kSelectReviewText =
    sql::Join(kReviewColumns, " FROM kh_document_review r WHERE r.id = $1");
constexpr Statement kSelectReview{"select_review", kSelectReviewText.c_str()};
// Locks the review, then reads it as kReviewColumns do, in one round trip: a function of migration
// 0016, whose read after the lock has a snapshot of its own (one statement locking and reading
// would read the approvals of the snapshot taken before its wait, missing the vote it waited for).
constexpr Statement kLockReview{"lock_review", "SELECT * FROM kh_lock_review($1)"};
constexpr Statement kInsertReview{"insert_review", sql::kInsertReview};
constexpr Statement kInsertApproval{"insert_approval", sql::kInsertApproval};
constexpr Statement kInsertAssignee{"insert_assignee", sql::kInsertAssignee};
constexpr Statement kDeleteAssignee{"delete_assignee", sql::kDeleteAssignee};
constexpr Statement kInsertComment{"insert_comment", sql::kInsertComment};
constexpr Statement kSelectComment{"select_comment", sql::kSelectComment};
constexpr Statement kListComments{"list_comments", sql::kListComments};
// The decision only: what was submitted, by whom and when, never changes.
constexpr Statement kUpdateReview{"update_review",
                                  "UPDATE kh_document_review SET status = $2, decided_by = "
                                  "$3, decided_at = $4, comment = $5"
                                  " WHERE id = $1"};
// The reviews of document $1 below id $2 (the exclusive cursor), newest first, at most $3.
constexpr auto kSelectDocumentReviewsText =
    sql::Join(kReviewColumns,
              " FROM kh_document_review r WHERE r.document_id = $1 AND r.id < $2"
              " ORDER BY r.id DESC LIMIT $3");
constexpr Statement kSelectDocumentReviews{"select_document_reviews",
                                           kSelectDocumentReviewsText.c_str()};

constexpr Statement kSelectContent{"select_content", sql::kSelectContent};
constexpr Statement kSelectDocumentWithContent{"select_document_with_content",
                                               sql::kSelectDocumentWithContent};
constexpr Statement kInsertVersion{"insert_version", sql::kInsertVersion};
// An editor's newest version: versions only grow, so GREATEST keeps an upsert of an older one
// from moving it back.
constexpr Statement kRecordEditor{"record_editor",
                                  "INSERT INTO kh_document_editor (document_id, editor, "
                                  "last_version) VALUES ($1, $2, $3)"
                                  " ON CONFLICT (document_id, editor) DO UPDATE SET last_version"
                                  " = GREATEST(kh_document_editor.last_version, "
                                  "EXCLUDED.last_version)"};
constexpr Statement kInsertVersionEditor{"insert_version_editor", sql::kInsertVersionEditor};
constexpr Statement kDropUnsubmittedVersion{
    "drop_unsubmitted_version",
    "DELETE FROM kh_document_content c WHERE c.document_id = $1 AND c.version = $2"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_review r"
    "                  WHERE r.document_id = $1 AND r.document_version = $2)"};
constexpr Statement kSelectEditors{"select_editors", sql::kSelectEditors};
constexpr Statement kSelectVersion{"select_version", sql::kSelectVersion};
// Each kept version with its newest review (kh_document_review_by_version finds it).
constexpr Statement kListVersions{"list_versions", sql::kListVersions};
constexpr Statement kListVersionEditors{"list_version_editors", sql::kListVersionEditors};

constexpr Statement kSetIngestStatus{"set_ingest_status", sql::kSetIngestStatus};

constexpr std::array kDocumentStatements{
    kSelectDocument,
    kLockDocument,
    kSelectDocumentsWithContent,
    kLockDocumentWithContent,
    kInsertDocument,
    kUpdateDocument,
    kSelectReview,
    kLockReview,
    kInsertReview,
    kInsertApproval,
    kInsertAssignee,
    kDeleteAssignee,
    kInsertComment,
    kSelectComment,
    kListComments,
    kUpdateReview,
    kSelectDocumentReviews,
    kSelectContent,
    kSelectDocumentWithContent,
    kInsertVersion,
    kRecordEditor,
    kInsertVersionEditor,
    kDropUnsubmittedVersion,
    kSelectEditors,
    kSelectVersion,
    kListVersions,
    kListVersionEditors,
    kSetIngestStatus,
};

DocumentVersion ToVersion(const pqxx::row& row) {
  return DocumentVersion{row[0].as<DocumentId>(),  row[1].as<std::int32_t>(),
                         row[2].as<std::string>(), row[3].as<std::string>(),
                         row[4].as<std::string>(), FromMillis(row[5].as<std::int64_t>())};
}

VersionSummary ToVersionSummary(const pqxx::row& row) {
  VersionSummary summary{row[0].as<std::int32_t>(),
                         row[1].as<std::string>(),
                         row[2].as<std::string>(),
                         FromMillis(row[3].as<std::int64_t>()),
                         Nullable<ReviewId>(row[4]),
                         std::nullopt,
                         {}};
  if (!row[5].is_null()) {
    summary.review_status = Enum<ReviewStatus>(row[5], ParseReviewStatus, "review status");
  }
  return summary;
}

// The list queries filter on optional parameters; run unprepared, each is
// planned with its actual values, so a NULL filter folds away and the matching
// index is used.
constexpr const char* kListDocuments =
    "SELECT id, title, status, version, author_id, current_review_id, "
    "approved_version,"
    " approved_at, ingest_status, created_at, updated_at FROM kh_document"
    " WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR "
    "author_id = $2)"
    "   AND ($3::bigint IS NULL OR id < $3)"
    " ORDER BY id DESC LIMIT $4";
// Each review with its document's title last (ToQueuedReview).
constexpr auto kListReviewsText = sql::Join(
    kReviewColumns,
    ", d.title FROM kh_document_review r JOIN kh_document d ON d.id = r.document_id"
    " WHERE ($1::text IS NULL OR r.status = $1) AND ($2::bigint IS NULL OR r.id > $2)"
    "   AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM kh_review_assignee x"
    "                                    WHERE x.review_id = r.id AND x.reviewer_id = $4))"
    " ORDER BY r.id LIMIT $3");
constexpr const char* kListReviews = kListReviewsText.c_str();

QueuedReview ToQueuedReview(const pqxx::row& row) {
  return QueuedReview{ToReview(row), row[kReviewColumnCount].as<std::string>()};
}

ReviewComment ToComment(const pqxx::row& row) {
  return ReviewComment{row[0].as<std::int64_t>(),      row[1].as<ReviewId>(),
                       row[2].as<std::int32_t>(),      row[3].as<std::string>(),
                       row[4].as<std::string>(),       Nullable<std::int32_t>(row[5]),
                       Nullable<std::int64_t>(row[6]), FromMillis(row[7].as<std::int64_t>())};
}

// The review `statement` reads (by its id, `id`), with its approvals and assignees.
std::optional<Review> ReviewWithPeople(pqxx::transaction_base& tx, const Statement& statement,
                                       ReviewId id) {
  return First<Review>(tx.exec_prepared(statement.name, id), ToReview);
}

class PgTransaction final : public StoreTransaction {
 public:
  explicit PgTransaction(PgConnectionPool::Lease lease) : work_(std::move(lease)) {}

  std::optional<Review> LockReview(ReviewId id) override {
    return work_.Run("lock review", id,
                     [&](pqxx::work& w) { return ReviewWithPeople(w, kLockReview, id); });
  }

  std::optional<Document> LockDocument(DocumentId id) override {
    return PgDocumentStore::LockDocumentIn(work_, id);
  }

  std::optional<Document> ReadDocument(DocumentId id) override {
    return work_.Run("read document", id, [&](pqxx::work& w) {
      return First<Document>(w.exec_prepared(kSelectDocument.name, id), ToDocument);
    });
  }

  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return PgDocumentStore::ReadContentIn(work_, id, version);
  }

  DocumentId InsertDocument(const Document& doc) override {
    return work_.Run("insert document", 0, [&](pqxx::work& w) {
      return w
          .exec_prepared1(kInsertDocument.name, Checked(doc.title), Name(ToString(doc.status)),
                          doc.version, Checked(doc.author_id), Checked(Text(doc.current_review_id)),
                          Checked(Text(doc.approved_version)), Checked(Text(doc.approved_at)),
                          Name(ToString(doc.ingest_status)), Millis(doc.created_at),
                          Millis(doc.updated_at))[0]
          .as<DocumentId>();
    });
  }

  ReviewId InsertReview(const Review& review) override {
    return work_.Run("insert review of document", review.document_id, [&](pqxx::work& w) {
      return w
          .exec_prepared1(kInsertReview.name, review.document_id, review.document_version,
                          Name(ToString(review.status)), Checked(review.submitted_by),
                          Millis(review.submitted_at), Checked(review.decided_by),
                          Checked(Text(review.decided_at)), Checked(review.comment),
                          review.required_approvals)[0]
          .as<ReviewId>();
    });
  }

  void UpdateDocument(const Document& doc) override {
    work_.Run("update document", doc.id, [&](pqxx::work& w) {
      const auto result = w.exec_prepared(
          kUpdateDocument.name, doc.id, Checked(doc.title), Name(ToString(doc.status)), doc.version,
          Checked(Text(doc.current_review_id)), Checked(Text(doc.approved_version)),
          Checked(Text(doc.approved_at)), Name(ToString(doc.ingest_status)),
          Millis(doc.updated_at));
      ExpectOneRow(result, "document", doc.id);
    });
  }

  void UpdateReview(const Review& review) override {
    work_.Run("update review", review.id, [&](pqxx::work& w) {
      const auto result = w.exec_prepared(
          kUpdateReview.name, review.id, Name(ToString(review.status)), Checked(review.decided_by),
          Checked(Text(review.decided_at)), Checked(review.comment));
      ExpectOneRow(result, "review", review.id);
    });
  }

  void PutVersion(const DocumentVersion& v) override {
    work_.Run("put version of document", v.document_id, [&](pqxx::work& w) {
      w.exec_prepared(kInsertVersion.name, v.document_id, v.version, Checked(v.title),
                      Checked(v.content), Checked(v.edited_by), Millis(v.created_at));
      w.exec_prepared(kRecordEditor.name, v.document_id, Checked(v.edited_by), v.version);
      w.exec_prepared(kInsertVersionEditor.name, v.document_id, v.version, Checked(v.edited_by));
    });
  }

  bool DropUnsubmittedVersion(DocumentId id, std::int32_t version) override {
    return work_.Run("drop unsubmitted version of document", id, [&](pqxx::work& w) {
      return w.exec_prepared(kDropUnsubmittedVersion.name, id, version).affected_rows() == 1;
    });
  }

  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version) override {
    return work_.Run("list editors of document", id, [&](pqxx::work& w) {
      return All<UserId>(w.exec_prepared(kSelectEditors.name, id, after_version), ToText);
    });
  }

  void AddApproval(ReviewId id, const Approval& approval) override {
    work_.Run("add approval to review", id, [&](pqxx::work& w) {
      w.exec_prepared(kInsertApproval.name, id, Checked(approval.reviewer_id),
                      Checked(approval.comment), Millis(approval.decided_at));
    });
  }

  void AddAssignee(ReviewId id, const UserId& reviewer, const UserId& by, TimePoint at) override {
    work_.Run("assign a reviewer to review", id, [&](pqxx::work& w) {
      w.exec_prepared(kInsertAssignee.name, id, Checked(reviewer), Checked(by), Millis(at));
    });
  }

  bool RemoveAssignee(ReviewId id, const UserId& reviewer) override {
    return work_.Run("unassign a reviewer of review", id, [&](pqxx::work& w) {
      return w.exec_prepared(kDeleteAssignee.name, id, Checked(reviewer)).affected_rows() == 1;
    });
  }

  std::int64_t InsertComment(const ReviewComment& c) override {
    return work_.Run("comment on review", c.review_id, [&](pqxx::work& w) {
      return w
          .exec_prepared(kInsertComment.name, c.review_id, c.document_version, Checked(c.author_id),
                         Checked(c.body), c.line, c.parent_id, Millis(c.created_at))[0][0]
          .as<std::int64_t>();
    });
  }

  std::optional<ReviewComment> ReadComment(std::int64_t id) override {
    return work_.Run("read comment", id, [&](pqxx::work& w) {
      return First<ReviewComment>(w.exec_prepared(kSelectComment.name, id), ToComment);
    });
  }

  void AppendEvent(const OutboxEvent& event) override { PgOutboxStore::Append(work_, event); }

  void CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                 const std::string& owner, const std::string& response,
                                 TimePoint expires_at) override {
    PgIdempotencyStore::Complete(work_, caller, key, owner, response, expires_at);
  }

  void Commit() override { work_.Commit(); }

 private:
  static void ExpectOneRow(const pqxx::result& result, const char* table, std::int64_t id) {
    if (result.affected_rows() != 1) {
      throw StorageError("postgres: no " + std::string(table) + " " + std::to_string(id) +
                         " to update");
    }
  }

  PgWork work_;
};

}  // namespace

PgDocumentStore::PgDocumentStore(std::shared_ptr<PgSession> session)
    : session_(std::move(session)) {}

std::span<const Statement> PgDocumentStore::Statements() { return kDocumentStatements; }

std::unique_ptr<StoreTransaction> PgDocumentStore::Begin() {
  return session_->Begin<PgTransaction>();
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
      found.at(row[12].as<std::size_t>() - 1) = ToDocumentWithContent(row);
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
