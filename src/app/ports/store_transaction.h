#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"

namespace docgate {

// One write transaction. Obtained from DocumentStore::Begin; rolled back by the destructor unless
// Commit succeeded. Not thread-safe: one request uses it at a time.
//
// Lock order, which every use case keeps so that concurrent transitions cannot deadlock: the review
// row first, then the document row. Lock* return the row as of the lock (SELECT ... FOR UPDATE on
// PostgreSQL; SQLite's BEGIN IMMEDIATE holds the whole database) or nullopt when it does not exist.
// Every method throws StorageUnavailable when the database cannot be reached and StorageError on
// anything else that went wrong below. After any throw the transaction is finished: the caller
// only destroys it (PostgreSQL aborts a transaction on a failed statement; SQLite would not, and
// the contract does not let callers tell the difference). Using it after Commit is a StorageError.
class StoreTransaction {
 public:
  virtual ~StoreTransaction() = default;

  virtual std::optional<Review> LockReview(ReviewId id) = 0;
  virtual std::optional<Document> LockDocument(DocumentId id) = 0;
  // Reads without locking: to learn which review to lock before locking the document.
  virtual std::optional<Document> ReadDocument(DocumentId id) = 0;
  // The working copy of `version`, or nullopt.
  virtual std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) = 0;

  // Inserts and returns the assigned id, greater than every id committed before; `doc.id` /
  // `review.id` are ignored, and so are `review.approvals` (AddApproval records them); its
  // required_approvals is stored.
  virtual DocumentId InsertDocument(const Document& doc) = 0;
  virtual ReviewId InsertReview(const Review& review) = 0;
  // Overwrites the mutable columns of an existing row identified by its id (StorageError if it
  // does not exist). A document's author_id and created_at never change; of a review only the
  // decision (status, decided_by, decided_at, comment) changes.
  virtual void UpdateDocument(const Document& doc) = 0;
  virtual void UpdateReview(const Review& review) = 0;
  // Stores one version (title and content as `version.edited_by` wrote them) and records its
  // editor as having written the document up to that version. Versions are never rewritten: a
  // version that is already stored is a StorageError.
  virtual void PutVersion(const DocumentVersion& version) = 0;
  // Deletes the stored `version` of `id` when no review was ever bound to it: a draft superseded
  // before it was submitted (API.md v1.1: storage grows with versions, not with edits). A
  // submitted, approved or rejected version is kept. Its editor stays recorded (ListEditors).
  // Returns whether it deleted one.
  virtual bool DropUnsubmittedVersion(DocumentId id, std::int32_t version) = 0;
  // Everyone who wrote a version of `id` after `after_version`, dropped versions included, each
  // once (in the database's collation order): at a decision (when the version under review is the
  // document's newest) these are the people four eyes keep from deciding it, with after_version the
  // approved one.
  virtual std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version) = 0;
  // Records `approval` of review `id` (locked by this transaction). A second approval by the same
  // reviewer of one review, or one of a missing review, is a StorageError: the use case checks
  // first, under the lock. A store may send the approval with the transaction's next statement (the
  // PostgreSQL one folds it into UpdateReview's), so the error may come from that call, by Commit
  // at the latest. Every read of a review (Lock, Find, the lists) carries its approvals, oldest
  // first.
  virtual void AddApproval(ReviewId id, const Approval& approval) = 0;
  // Assigns `reviewer` to review `id` (locked by this transaction), by `by` at `at`; a review's
  // assignees are read in the order (assigned_at, reviewer id). Assigning one twice is a
  // StorageError: the use case checks first, under the lock. Every read of a review carries them.
  virtual void AddAssignee(ReviewId id, const UserId& reviewer, const UserId& by, TimePoint at) = 0;
  // Unassigns `reviewer` from review `id`; returns whether they were assigned.
  virtual bool RemoveAssignee(ReviewId id, const UserId& reviewer) = 0;
  // Inserts a comment and returns its id, greater than every comment id committed before
  // (`comment.id` is ignored). A parent_id that names no comment is a StorageError; that it is a
  // comment of the same review is the use case's check (ReadComment).
  virtual std::int64_t InsertComment(const ReviewComment& comment) = 0;
  virtual std::optional<ReviewComment> ReadComment(std::int64_t id) = 0;
  // Appends to the outbox; the event becomes visible to the relay at commit.
  virtual void AppendEvent(const OutboxEvent& event) = 0;
  // Completes the in-flight idempotency record of (caller, key) that reservation `owner` holds
  // (IdempotencyStore::ReserveIdempotencyKey) with `response`, kept until `expires_at`, as part of
  // this transaction: the record and the effect commit together or not at all. Throws StorageError
  // when no such in-flight record exists (its lease ran out and another request took the key over,
  // or it was released): the caller must then not commit the effect.
  virtual void CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                         const std::string& owner, const std::string& response,
                                         TimePoint expires_at) = 0;

  virtual void Commit() = 0;
};

}  // namespace docgate
