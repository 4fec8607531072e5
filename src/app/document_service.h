#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/idempotent_outcome.h"
#include "app/ports/clock.h"
#include "app/ports/document_store.h"
#include "app/ports/lock_gate.h"
#include "app/ports/outbox_wakeup.h"
#include "app/ports/random_source.h"
#include "app/ports/store_transaction.h"
#include "core/error.h"
#include "core/lifecycle.h"
#include "core/model.h"

namespace docgate {

struct ServiceConfig {
  std::chrono::milliseconds submit_lock_ttl{8000};   // lock:doc:submit:{id}
  std::chrono::milliseconds review_lock_ttl{10000};  // lock:doc:review:{id}
  int default_page_size = 20;
  int max_page_size = 100;
  // DOCGATE_REVIEW_QUORUM: the approvals a review needs unless its submission asks for more.
  std::int32_t review_quorum = 1;
};

// What a submission may ask for (API.md v1.2 "Review policy").
struct SubmitRequest {
  // quorum..kMaxRequiredApprovals; nullopt: the quorum.
  std::optional<std::int32_t> required_approvals;
  // The reviewers assigned to the new review (at most kMaxAssignees).
  std::vector<UserId> reviewers;
};

// A comment on a review (API.md v1.2 "Comments").
struct CommentRequest {
  std::string body;                       // 1..4000 characters
  std::optional<std::int32_t> line;       // a line of the reviewed version, 1..its line count
  std::optional<std::int64_t> parent_id;  // a comment of the same review
};

// The result of a review transition: both rows as committed.
struct Transition {
  Document document;
  Review review;
};

struct EditRequest {
  std::optional<std::string> title;
  std::optional<std::string> content;
  std::optional<std::int32_t> if_match;  // the version the client last saw
  std::optional<DocumentFormat> format;  // a change of format alone is an edit, like a title's
};

struct ContentView {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::string content;
};

struct Preview {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::string content;
  TimePoint approved_at{};
};

template <typename T>
struct Page {
  std::vector<T> items;
  std::optional<std::int64_t> next;  // the cursor for the following page
};

struct ListDocumentsRequest {
  std::optional<DocumentStatus> status;
  std::optional<UserId> author_id;
  std::optional<int> limit;
  std::optional<DocumentId> after;  // cursor from a previous page
};

// A page of a list: its size (the configured default when absent) and the cursor of a previous
// page.
struct PageRequest {
  std::optional<int> limit;
  std::optional<std::int64_t> after;
};

struct ListReviewsRequest {
  std::optional<ReviewStatus> status = ReviewStatus::kPending;
  std::optional<UserId> assignee;  // only the reviews assigned to this reviewer
  std::optional<int> limit;
  std::optional<ReviewId> after;
};

// Called by a write use case inside its transaction, after every write of the effect and right
// before Commit, with the use case's answer as it will be committed (Created, Transitioned or
// Commented): what it writes through the transaction commits with the effect or not at all.
// Throwing aborts the transaction, and the use case throws it on. Used to store an idempotent
// request's response.
using CommitHook = std::function<void(StoreTransaction&, const IdempotentOutcome&)>;

// The use cases of the review gate. Each transition runs as:
//   gate (LockGate) -> store transaction -> lock review, then document -> check state ->
//   write state + audit fields + outbox event -> commit -> release the gate (always).
// Role checks come first (they depend on the token only); SELF_REVIEW and every state predicate are
// decided inside the transaction on the locked rows, so the gate is an optimisation, never the
// guarantee. Expected failures are Result errors; StorageUnavailable/StorageError propagate.
// Thread-safe; the referenced ports must outlive the service.
class DocumentService {
 public:
  DocumentService(DocumentStore& store, LockGate& gate, Clock& clock, RandomSource& random,
                  OutboxWakeup& wakeup, ServiceConfig config = {});

  // The write use cases take an optional CommitHook, called only when the effect commits.
  Result<Document> Create(const Actor& actor, const std::string& title, const std::string& content,
                          DocumentFormat format = DocumentFormat::kMarkdown,
                          const CommitHook& on_commit = {});
  Result<Document> Edit(const Actor& actor, DocumentId id, const EditRequest& request);
  Result<Transition> Submit(const Actor& actor, DocumentId id, const SubmitRequest& request = {},
                            const CommitHook& on_commit = {});
  Result<Transition> Withdraw(const Actor& actor, DocumentId id, const CommitHook& on_commit = {});
  // One approval (Vote): 200 with the review still pending until the approvals reach its
  // required_approvals; the one that does approves the review and the document and writes the one
  // document.approved event.
  Result<Transition> Approve(const Actor& actor, ReviewId id,
                             const std::optional<std::string>& comment,
                             const CommitHook& on_commit = {});
  Result<Transition> Reject(const Actor& actor, ReviewId id, const std::string& reason,
                            const CommitHook& on_commit = {});
  // Adds and removes assignees of a pending review (the document's author or an admin): one
  // review.assigned event for each reviewer newly assigned. Asking for what already holds changes
  // nothing and answers the review as it is (on_commit is not called: there is no effect). Not
  // gated: the review's row lock orders it with votes.
  Result<Review> Assign(const Actor& actor, ReviewId id, const AssigneeChange& change,
                        const CommitHook& on_commit = {});
  // A comment on a pending review (any caller), with its review.commented event.
  Result<ReviewComment> Comment(const Actor& actor, ReviewId id, const CommentRequest& request,
                                const CommitHook& on_commit = {});
  // A page of a review's comments, oldest first (NOT_FOUND for no such review).
  Result<Page<ReviewComment>> ListComments(ReviewId id, const PageRequest& request = {});

  Result<Document> GetDocument(DocumentId id);
  Result<ContentView> GetContent(DocumentId id);
  Result<Page<Document>> ListDocuments(const ListDocumentsRequest& request);
  Result<Review> GetReview(ReviewId id);
  // A page of the document's reviews, newest first (NOT_FOUND for no such document).
  Result<Page<Review>> ReviewHistory(DocumentId id, const PageRequest& request = {});
  // A page of the kept versions, newest first, each with its editors (NOT_FOUND for no such
  // document); the cursor is a version.
  Result<Page<VersionSummary>> ListVersions(DocumentId id, const PageRequest& request = {});
  // One version's title and content; NOT_FOUND for no such document, a version it never had, or
  // one that was dropped (a draft replaced before it was submitted).
  Result<DocumentVersion> GetVersion(DocumentId id, std::int32_t version);
  // The review queue (reviewer role), oldest first, each review with its document's title.
  Result<Page<QueuedReview>> ReviewQueue(const Actor& actor, const ListReviewsRequest& request);

  static std::string SubmitLockKey(DocumentId id);
  static std::string ReviewLockKey(ReviewId id);

 private:
  template <typename Fn>
  Result<Transition> Gated(const std::string& key, std::chrono::milliseconds ttl,
                           const CommitHook& on_commit, Fn&& body);
  template <typename Decide>
  Result<Transition> DecideReview(const Actor& actor, ReviewId id, EventType event,
                                  const CommitHook& on_commit, Decide&& decide);
  Result<int> PageSize(const std::optional<int>& requested) const;
  OutboxEvent MakeEvent(EventType type, const Transition& t, const Actor& actor, TimePoint now);
  OutboxEvent MakeEvent(EventType type, const Review& review, const Actor& actor, TimePoint now);
  // Records the assignees `added` to `review` (locked by `tx`), each with its review.assigned
  // event.
  void WriteAssignees(StoreTransaction& tx, const Review& review, const std::vector<UserId>& added,
                      const Actor& actor, TimePoint now);
  void AddEditors(DocumentId id, std::vector<VersionSummary>& versions);

  DocumentStore& store_;
  LockGate& gate_;
  Clock& clock_;
  RandomSource& random_;
  OutboxWakeup& wakeup_;
  ServiceConfig config_;
};

}  // namespace docgate
