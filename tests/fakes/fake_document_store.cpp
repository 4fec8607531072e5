#include "fakes/fake_document_store.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fakes/fake_idempotency_store.h"
#include "fakes/fake_outbox_store.h"

namespace docgate {
namespace {

// The partial unique index: at most one pending review per document.
void CheckOnePending(const FakeTables& tables, const Review& review) {
  if (review.status != ReviewStatus::kPending) return;
  const bool other_pending =
      std::any_of(tables.reviews.begin(), tables.reviews.end(), [&](const auto& entry) {
        const Review& other = entry.second;
        return other.id != review.id && other.document_id == review.document_id &&
               other.status == ReviewStatus::kPending;
      });
  if (other_pending) {
    FakeViolation("UNIQUE constraint failed: a second pending review for document " +
                  std::to_string(review.document_id));
  }
}

// The CHECK on kh_document_review.required_approvals.
void CheckRequiredApprovals(const Review& review) {
  if (review.required_approvals < 1 || review.required_approvals > 10) {
    FakeViolation("CHECK constraint failed: required_approvals " +
                  std::to_string(review.required_approvals));
  }
}

// A transition's transaction: one FakeTransaction and one writer per port on it.
class FakeStoreTransaction final : public StoreTransaction {
 public:
  explicit FakeStoreTransaction(FakeDatabase& database) : tx_(database) {}

  std::optional<Review> LockReview(ReviewId id) override { return documents_.LockReview(id); }
  std::optional<Document> LockDocument(DocumentId id) override {
    return documents_.ReadDocument(id);
  }
  std::optional<Document> ReadDocument(DocumentId id) override {
    return documents_.ReadDocument(id);
  }
  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return documents_.ReadContent(id, version);
  }
  DocumentId InsertDocument(const Document& doc) override { return documents_.InsertDocument(doc); }
  ReviewId InsertReview(const Review& review) override { return documents_.InsertReview(review); }
  void UpdateDocument(const Document& doc) override { documents_.UpdateDocument(doc); }
  void UpdateReview(const Review& review) override { documents_.UpdateReview(review); }
  void PutVersion(const DocumentVersion& version) override { documents_.PutVersion(version); }
  bool DropUnsubmittedVersion(DocumentId id, std::int32_t version) override {
    return documents_.DropUnsubmittedVersion(id, version);
  }
  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version) override {
    return documents_.ListEditors(id, after_version);
  }
  void AddApproval(ReviewId id, const Approval& approval) override {
    documents_.AddApproval(id, approval);
  }
  void AddAssignee(ReviewId id, const UserId& reviewer, const UserId&, TimePoint at) override {
    documents_.AddAssignee(id, reviewer, at);
  }
  bool RemoveAssignee(ReviewId id, const UserId& reviewer) override {
    return documents_.RemoveAssignee(id, reviewer);
  }
  std::int64_t InsertComment(const ReviewComment& comment) override {
    return documents_.InsertComment(comment);
  }
  std::optional<ReviewComment> ReadComment(std::int64_t id) override {
    return documents_.ReadComment(id);
  }
  void AppendEvent(const OutboxEvent& event) override { outbox_.Append(event); }
  void CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                 const std::string& owner, const std::string& response,
                                 TimePoint expires_at) override {
    idempotency_.Complete(caller, key, owner, response, expires_at);
  }
  void Commit() override { tx_.Commit(); }

 private:
  FakeTransaction tx_;
  FakeDocumentWriter documents_{tx_};
  FakeOutboxWriter outbox_{tx_};
  FakeIdempotencyWriter idempotency_{tx_};
};

}  // namespace

FakeDocumentStore::FakeDocumentStore(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

std::unique_ptr<StoreTransaction> FakeDocumentStore::Begin() {
  return std::make_unique<FakeStoreTransaction>(*database_);
}

std::optional<Document> FakeDocumentStore::FindDocument(DocumentId id) {
  return database_->Read(
      [&](const FakeTables& tables) { return FakeLookup(tables.documents, id); });
}

std::optional<Review> FakeDocumentStore::FindReview(ReviewId id) {
  return database_->Read([&](const FakeTables& tables) { return FakeLookup(tables.reviews, id); });
}

std::optional<std::string> FakeDocumentStore::FindContent(DocumentId id, std::int32_t version) {
  const auto found = FindVersion(id, version);
  if (!found) return std::nullopt;
  return found->content;
}

std::optional<DocumentWithContent> FakeDocumentStore::FindDocumentWithContent(DocumentId id) {
  return database_->Read([&](const FakeTables& tables) -> std::optional<DocumentWithContent> {
    auto doc = FakeLookup(tables.documents, id);
    if (!doc) return std::nullopt;
    auto version = FakeLookup(tables.versions, {id, doc->version});
    return DocumentWithContent{std::move(*doc), version ? std::optional(version->content)
                                                        : std::nullopt};
  });
}

std::optional<DocumentVersion> FakeDocumentStore::FindVersion(DocumentId id, std::int32_t version) {
  return database_->Read([&](const FakeTables& tables) {
    return FakeLookup(tables.versions, {id, version});
  });
}

std::vector<VersionSummary> FakeDocumentStore::ListVersions(const VersionQuery& query) {
  const DocumentId id = query.document_id;
  return database_->Read([&](const FakeTables& tables) {
    std::vector<VersionSummary> history;
    for (auto it = tables.versions.rbegin(); it != tables.versions.rend(); ++it) {
      if (static_cast<int>(history.size()) >= query.limit) break;
      const DocumentVersion& v = it->second;
      if (v.document_id != id || (query.before && v.version >= *query.before)) continue;
      VersionSummary& line = history.emplace_back(VersionSummary{
          v.version, v.title, v.edited_by, v.created_at, std::nullopt, std::nullopt, {}});
      for (const auto& [review_id, review] : tables.reviews) {  // ascending: the newest wins
        if (review.document_id != id || review.document_version != v.version) continue;
        line.review_id = review_id;
        line.review_status = review.status;
      }
    }
    return history;
  });
}

std::vector<std::pair<std::int32_t, UserId>> FakeDocumentStore::ListVersionEditors(
    DocumentId id, std::int32_t from_version, std::int32_t to_version) {
  return database_->Read([&](const FakeTables& tables) {
    std::vector<std::pair<std::int32_t, UserId>> found;
    std::int32_t kept_before = 0;                         // the kept version before the one at hand
    for (const auto& [key, version] : tables.versions) {  // ascending
      if (key.first != id) continue;
      if (key.second >= from_version && key.second <= to_version) {
        std::vector<UserId> editors;  // in the order they first wrote
        for (std::int32_t v = kept_before + 1; v <= key.second; ++v) {
          const auto editor = tables.version_editors.find({id, v});
          if (editor != tables.version_editors.end() &&
              std::find(editors.begin(), editors.end(), editor->second) == editors.end()) {
            editors.push_back(editor->second);
          }
        }
        for (UserId& editor : editors) found.emplace_back(key.second, std::move(editor));
      }
      kept_before = key.second;
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    return found;
  });
}

std::vector<Document> FakeDocumentStore::ListDocuments(const DocumentQuery& query) {
  return database_->Read([&](const FakeTables& tables) {
    std::vector<Document> page;
    for (auto it = tables.documents.rbegin(); it != tables.documents.rend(); ++it) {
      if (static_cast<int>(page.size()) >= query.limit) break;
      const Document& doc = it->second;
      if (query.before && doc.id >= *query.before) continue;
      if (query.status && doc.status != *query.status) continue;
      if (query.author_id && doc.author_id != *query.author_id) continue;
      page.push_back(doc);
    }
    return page;
  });
}

std::vector<QueuedReview> FakeDocumentStore::ListReviews(const ReviewQuery& query) {
  return database_->Read([&](const FakeTables& tables) {
    std::vector<QueuedReview> page;
    for (const auto& [id, review] : tables.reviews) {
      if (static_cast<int>(page.size()) >= query.limit) break;
      if (query.after && id <= *query.after) continue;
      if (query.status && review.status != *query.status) continue;
      if (query.assignee && std::find(review.assignees.begin(), review.assignees.end(),
                                      *query.assignee) == review.assignees.end()) {
        continue;
      }
      const auto doc = FakeLookup(tables.documents, review.document_id);
      if (!doc) continue;  // the join finds no document
      page.push_back(QueuedReview{review, doc->title});
    }
    return page;
  });
}

std::vector<Review> FakeDocumentStore::ListDocumentReviews(const DocumentReviewQuery& query) {
  return database_->Read([&](const FakeTables& tables) {
    std::vector<Review> reviews;
    for (auto it = tables.reviews.rbegin(); it != tables.reviews.rend(); ++it) {
      if (static_cast<int>(reviews.size()) >= query.limit) break;
      if (it->second.document_id != query.document_id) continue;
      if (query.before && it->first >= *query.before) continue;
      reviews.push_back(it->second);
    }
    return reviews;
  });
}

std::vector<ReviewComment> FakeDocumentStore::ListComments(const CommentQuery& query) {
  return database_->Read([&](const FakeTables& tables) {
    std::vector<ReviewComment> page;
    for (const auto& [id, comment] : tables.comments) {
      if (static_cast<int>(page.size()) >= query.limit) break;
      if (comment.review_id != query.review_id || (query.after && id <= *query.after)) continue;
      page.push_back(comment);
    }
    return page;
  });
}

bool FakeDocumentStore::Ping() { return database_->Ping(); }

std::optional<Review> FakeDocumentWriter::LockReview(ReviewId id) {
  return FakeLookup(tx_.Open().reviews, id);
}

std::optional<Document> FakeDocumentWriter::ReadDocument(DocumentId id) {
  return FakeLookup(tx_.Open().documents, id);
}

std::optional<std::string> FakeDocumentWriter::ReadContent(DocumentId id, std::int32_t version) {
  const auto found = FakeLookup(tx_.Open().versions, {id, version});
  if (!found) return std::nullopt;
  return found->content;
}

DocumentId FakeDocumentWriter::InsertDocument(const Document& doc) {
  FakeTables& tables = tx_.Open();
  Document row = doc;
  row.id = ++tables.last_document_id;
  tables.documents.emplace(row.id, row);
  return row.id;
}

ReviewId FakeDocumentWriter::InsertReview(const Review& review) {
  FakeTables& tables = tx_.Open();
  FakeRequireDocument(tables, review.document_id, "review");
  Review row = review;
  row.id = tables.last_review_id + 1;
  row.approvals.clear();  // AddApproval records them
  row.assignees.clear();  // and AddAssignee these
  CheckRequiredApprovals(row);
  CheckOnePending(tables, row);
  tables.last_review_id = row.id;
  tables.reviews.emplace(row.id, row);
  return row.id;
}

void FakeDocumentWriter::UpdateDocument(const Document& doc) {
  Document& row = FakeExisting(tx_.Open().documents, doc.id, "document");
  const UserId author_id = row.author_id;
  const TimePoint created_at = row.created_at;
  row = doc;
  row.author_id = author_id;
  row.created_at = created_at;
}

void FakeDocumentWriter::UpdateReview(const Review& review) {
  FakeTables& tables = tx_.Open();
  Review& row = FakeExisting(tables.reviews, review.id, "review");
  Review updated = row;
  updated.status = review.status;
  updated.decided_by = review.decided_by;
  updated.decided_at = review.decided_at;
  updated.comment = review.comment;
  CheckOnePending(tables, updated);
  row = std::move(updated);
}

// A review's approvals live in its row, kept in the order the stores read them: decided_at, then
// reviewer id (byte order, as std::string compares).
void FakeDocumentWriter::AddApproval(ReviewId id, const Approval& approval) {
  FakeTables& tables = tx_.Open();
  const auto found = tables.reviews.find(id);
  if (found == tables.reviews.end()) {
    FakeViolation("FOREIGN KEY constraint failed: approval of missing review " +
                  std::to_string(id));
  }
  std::vector<Approval>& approvals = found->second.approvals;
  const auto same_reviewer = [&](const Approval& a) {
    return a.reviewer_id == approval.reviewer_id;
  };
  if (std::any_of(approvals.begin(), approvals.end(), same_reviewer)) {
    FakeViolation("UNIQUE constraint failed: a second approval of review " + std::to_string(id) +
                  " by " + approval.reviewer_id);
  }
  const auto given_before = [](const Approval& a, const Approval& b) {
    return std::tie(a.decided_at, a.reviewer_id) < std::tie(b.decided_at, b.reviewer_id);
  };
  approvals.insert(std::upper_bound(approvals.begin(), approvals.end(), approval, given_before),
                   approval);
}

// Kept in the order the stores read them: assigned_at, then reviewer id.
void FakeDocumentWriter::AddAssignee(ReviewId id, const UserId& reviewer, TimePoint at) {
  FakeTables& tables = tx_.Open();
  Review& review = FakeExisting(tables.reviews, id, "review");
  if (!tables.assigned_at.emplace(std::pair{id, reviewer}, at).second) {
    FakeViolation("UNIQUE constraint failed: " + reviewer + " assigned twice to review " +
                  std::to_string(id));
  }
  const auto key = [&](const UserId& assignee) {
    return std::pair{tables.assigned_at.at({id, assignee}), assignee};
  };
  std::vector<UserId>& assignees = review.assignees;
  assignees.insert(
      std::upper_bound(assignees.begin(), assignees.end(), reviewer,
                       [&](const UserId& a, const UserId& b) { return key(a) < key(b); }),
      reviewer);
}

bool FakeDocumentWriter::RemoveAssignee(ReviewId id, const UserId& reviewer) {
  FakeTables& tables = tx_.Open();
  if (tables.assigned_at.erase({id, reviewer}) == 0) return false;
  std::erase(FakeExisting(tables.reviews, id, "review").assignees, reviewer);
  return true;
}

std::int64_t FakeDocumentWriter::InsertComment(const ReviewComment& comment) {
  FakeTables& tables = tx_.Open();
  if (!tables.reviews.contains(comment.review_id)) {
    FakeViolation("FOREIGN KEY constraint failed: comment on missing review " +
                  std::to_string(comment.review_id));
  }
  if (comment.parent_id && !tables.comments.contains(*comment.parent_id)) {
    FakeViolation("FOREIGN KEY constraint failed: reply to missing comment " +
                  std::to_string(*comment.parent_id));
  }
  ReviewComment row = comment;
  row.id = ++tables.last_comment_id;
  tables.comments.emplace(row.id, row);
  return row.id;
}

std::optional<ReviewComment> FakeDocumentWriter::ReadComment(std::int64_t id) {
  return FakeLookup(tx_.Open().comments, id);
}

void FakeDocumentWriter::PutVersion(const DocumentVersion& version) {
  FakeTables& tables = tx_.Open();
  FakeRequireDocument(tables, version.document_id, "version");
  if (!tables.versions.emplace(std::pair{version.document_id, version.version}, version).second) {
    FakeViolation("UNIQUE constraint failed: version " + std::to_string(version.version) +
                  " of document " + std::to_string(version.document_id));
  }
  tables.version_editors[{version.document_id, version.version}] = version.edited_by;
  std::int32_t& last = tables.editors[{version.document_id, version.edited_by}];
  last = std::max(last, version.version);
}

bool FakeDocumentWriter::DropUnsubmittedVersion(DocumentId id, std::int32_t version) {
  FakeTables& tables = tx_.Open();
  const bool submitted =
      std::any_of(tables.reviews.begin(), tables.reviews.end(), [&](const auto& entry) {
        return entry.second.document_id == id && entry.second.document_version == version;
      });
  return !submitted && tables.versions.erase({id, version}) == 1;
}

std::vector<UserId> FakeDocumentWriter::ListEditors(DocumentId id, std::int32_t after_version) {
  std::vector<UserId> editors;  // the map's order: ascending by editor
  const FakeTables& tables = tx_.Open();
  for (const auto& [key, last_version] : tables.editors) {
    if (key.first == id && last_version > after_version) editors.push_back(key.second);
  }
  return editors;
}

void FakeDocumentWriter::SetIngestStatus(DocumentId id, IngestStatus status) {
  FakeExisting(tx_.Open().documents, id, "document").ingest_status = status;
}

}  // namespace docgate
