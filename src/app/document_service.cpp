#include "app/document_service.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/lifecycle.h"

namespace docgate {
namespace {

Error NotFound(std::string_view what, std::int64_t id) {
  return MakeError(ErrorCode::kNotFound, std::string(what) + " " + std::to_string(id) + " not found");
}

// Lists fetch one row more than asked: its presence is what says a next page exists, and the last
// row kept gives the cursor of the next.
template <typename T, typename CursorOf>
Page<T> PageOf(std::vector<T> rows, int limit, CursorOf cursor_of) {
  Page<T> page{std::move(rows), std::nullopt};
  if (static_cast<int>(page.items.size()) > limit) {
    page.items.resize(limit);
    page.next = cursor_of(page.items.back());
  }
  return page;
}

// Releases the gate on every way out of a transition, exceptions included. Declared before the
// transaction so that the transaction ends (commit or rollback) before the key is released.
class GateLease {
 public:
  GateLease(LockGate& gate, std::string key, Acquisition acquisition)
      : gate_(gate), key_(std::move(key)), acquisition_(std::move(acquisition)) {}
  GateLease(const GateLease&) = delete;
  GateLease& operator=(const GateLease&) = delete;
  ~GateLease() {
    if (acquisition_.outcome == AcquireOutcome::kAcquired) gate_.Release(key_, acquisition_.token);
  }

 private:
  LockGate& gate_;
  std::string key_;
  Acquisition acquisition_;
};

int RetryAfterSeconds(std::chrono::milliseconds remaining) {
  const auto seconds = (remaining.count() + 999) / 1000;
  return seconds < 1 ? 1 : static_cast<int>(seconds);
}

}  // namespace

DocumentService::DocumentService(DocumentStore& store, LockGate& gate, Clock& clock,
                                 RandomSource& random, OutboxWakeup& wakeup, ServiceConfig config)
    : store_(store),
      gate_(gate),
      clock_(clock),
      random_(random),
      wakeup_(wakeup),
      config_(config) {}

std::string DocumentService::SubmitLockKey(DocumentId id) { return "doc:submit:" + std::to_string(id); }
std::string DocumentService::ReviewLockKey(ReviewId id) { return "doc:review:" + std::to_string(id); }

template <typename Fn>
Result<Transition> DocumentService::Gated(const std::string& key, std::chrono::milliseconds ttl,
                                          const CommitHook& on_commit, Fn&& body) {
  Acquisition acquisition = gate_.Acquire(key, ttl);
  if (acquisition.outcome == AcquireOutcome::kBusy) {
    const int retry = RetryAfterSeconds(acquisition.remaining_ttl);
    return Error{ErrorCode::kLockBusy,
                 "another request holds " + key + "; retry in " + std::to_string(retry) + " s",
                 retry};
  }
  // kBackendFailed falls through: the transaction's row locks still decide (degraded mode).
  GateLease lease(gate_, key, std::move(acquisition));
  auto tx = store_.Begin();
  Result<Transition> result = body(*tx);
  if (!result) return result;
  if (on_commit) on_commit(*tx, IdempotentOutcome::Transitioned(result->document, result->review));
  tx->Commit();
  wakeup_.Wake();
  return result;
}

OutboxEvent DocumentService::MakeEvent(EventType type, const Transition& t, const Actor& actor,
                                       TimePoint now) {
  return MakeEvent(type, t.review, actor, now);
}

OutboxEvent DocumentService::MakeEvent(EventType type, const Review& review, const Actor& actor,
                                       TimePoint now) {
  OutboxEvent event;
  event.event_id = random_.Uuid();
  event.type = type;
  event.document_id = review.document_id;
  event.review_id = review.id;
  event.version = review.document_version;
  event.actor_id = actor.id;
  event.occurred_at = now;
  return event;
}

void DocumentService::WriteAssignees(StoreTransaction& tx, const Review& review,
                                     const std::vector<UserId>& added, const Actor& actor,
                                     TimePoint now) {
  for (const UserId& reviewer : added) {
    tx.AddAssignee(review.id, reviewer, actor.id, now);
    OutboxEvent event = MakeEvent(EventType::kAssigned, review, actor, now);
    event.reviewer_id = reviewer;
    tx.AppendEvent(event);
  }
}

Result<Document> DocumentService::Create(const Actor& actor, const std::string& title,
                                         const std::string& content, DocumentFormat format,
                                         const CommitHook& on_commit) {
  if (auto s = RequireAuthorRole(actor); !s) return s.error();
  if (auto s = ValidateTitle(title); !s) return s.error();
  if (auto s = ValidateContent(content); !s) return s.error();
  const TimePoint now = clock_.Now();
  Document doc;
  doc.title = title;
  doc.format = format;
  doc.author_id = actor.id;
  doc.created_at = now;
  doc.updated_at = now;
  auto tx = store_.Begin();
  doc.id = tx->InsertDocument(doc);
  tx->PutVersion(DocumentVersion{doc.id, doc.version, title, content, actor.id, now});
  if (on_commit) on_commit(*tx, IdempotentOutcome::Created(doc));
  tx->Commit();
  return doc;
}

Result<Document> DocumentService::Edit(const Actor& actor, DocumentId id,
                                       const EditRequest& request) {
  if (auto s = RequireAuthorRole(actor); !s) return s.error();
  if (!request.title && !request.content && !request.format) {
    return MakeError(ErrorCode::kValidation, "nothing to change: give title, content or format");
  }
  if (request.title) {
    if (auto s = ValidateTitle(*request.title); !s) return s.error();
  }
  if (request.content) {
    if (auto s = ValidateContent(*request.content); !s) return s.error();
  }
  auto tx = store_.Begin();
  auto doc = tx->LockDocument(id);
  if (!doc) return NotFound("document", id);
  if (auto s = RequireOwner(actor, *doc); !s) return s.error();
  if (request.if_match && *request.if_match != doc->version) {
    return MakeError(ErrorCode::kVersionMismatch,
                     "If-Match names version " + std::to_string(*request.if_match) +
                         ", the document is at version " + std::to_string(doc->version));
  }
  const auto current_content = tx->ReadContent(id, doc->version);
  if (!current_content) throw StorageError("document " + std::to_string(id) + " has no content");
  const bool title_changed = request.title && *request.title != doc->title;
  const bool content_changed = request.content && *request.content != *current_content;
  const bool format_changed = request.format && *request.format != doc->format;
  const bool changed = title_changed || content_changed || format_changed;
  const Document before = *doc;
  const TimePoint now = clock_.Now();
  if (auto s = docgate::Edit(*doc, changed, now); !s) return s.error();
  if (*doc == before) return *doc;  // an approved document given nothing new: nothing to write
  if (title_changed) doc->title = *request.title;
  if (format_changed) doc->format = *request.format;
  if (changed) {
    tx->PutVersion(DocumentVersion{id, doc->version, doc->title,
                                   content_changed ? *request.content : *current_content, actor.id,
                                   now});
    // Only submitted versions outlive the next edit (ADR 0008); the store keeps any with a review.
    tx->DropUnsubmittedVersion(id, before.version);
  }
  tx->UpdateDocument(*doc);
  tx->Commit();
  return *doc;
}

Result<Transition> DocumentService::Submit(const Actor& actor, DocumentId id,
                                           const SubmitRequest& request,
                                           const CommitHook& on_commit) {
  if (auto s = RequireAuthorRole(actor); !s) return s.error();
  const std::int32_t required = request.required_approvals.value_or(config_.review_quorum);
  if (required < config_.review_quorum || required > kMaxRequiredApprovals) {
    return MakeError(ErrorCode::kValidation, "required_approvals must be " +
                                                 std::to_string(config_.review_quorum) + ".." +
                                                 std::to_string(kMaxRequiredApprovals) + ", got " +
                                                 std::to_string(required));
  }
  if (!request.reviewers.empty()) {
    if (auto s = ValidateAssigneeChange({request.reviewers, {}}); !s) return s.error();
  }
  return Gated(SubmitLockKey(id), config_.submit_lock_ttl, on_commit,
               [&](StoreTransaction& tx) -> Result<Transition> {
                 auto doc = tx.LockDocument(id);
                 if (!doc) return NotFound("document", id);
                 if (auto s = RequireOwner(actor, *doc); !s) return s.error();
                 const TimePoint now = clock_.Now();
                 auto review = docgate::Submit(*doc, actor, now, required);
                 if (!review) return review.error();
                 review->id = tx.InsertReview(*review);
                 AttachReview(*doc, review->id);
                 std::vector<UserId> assigned;
                 if (!request.reviewers.empty()) {
                   auto change =
                       docgate::Assign(*doc, *review, {request.reviewers, {}},
                                       tx.ListEditors(doc->id, doc->approved_version.value_or(0)));
                   if (!change) return change.error();
                   assigned = std::move(change->add);
                 }
                 tx.UpdateDocument(*doc);
                 Transition t{std::move(*doc), std::move(*review)};
                 tx.AppendEvent(MakeEvent(EventType::kSubmitted, t, actor, now));
                 WriteAssignees(tx, t.review, assigned, actor, now);
                 return t;
               });
}

Result<Transition> DocumentService::Withdraw(const Actor& actor, DocumentId id,
                                             const CommitHook& on_commit) {
  if (auto s = RequireAuthorRole(actor); !s) return s.error();
  return Gated(SubmitLockKey(id), config_.submit_lock_ttl, on_commit,
               [&](StoreTransaction& tx) -> Result<Transition> {
                 // Learn the current review without a lock, then lock review -> document (the one
                 // lock order) and re-check that it is still the current one.
                 const auto peek = tx.ReadDocument(id);
                 if (!peek) return NotFound("document", id);
                 if (auto s = RequireOwner(actor, *peek); !s) return s.error();
                 if (!peek->current_review_id) {
                   return MakeError(ErrorCode::kInvalidState,
                                    "document " + std::to_string(id) + " is " +
                                        std::string(ToString(peek->status)) +
                                        "; only a pending review can be withdrawn");
                 }
                 auto review = tx.LockReview(*peek->current_review_id);
                 auto doc = tx.LockDocument(id);
                 if (!review || !doc) return NotFound("document", id);
                 const TimePoint now = clock_.Now();
                 if (auto s = docgate::Withdraw(*doc, *review, actor, now); !s) return s.error();
                 tx.UpdateReview(*review);
                 tx.UpdateDocument(*doc);
                 Transition t{std::move(*doc), std::move(*review)};
                 tx.AppendEvent(MakeEvent(EventType::kWithdrawn, t, actor, now));
                 return t;
               });
}

// Approve and reject: lock review -> document, let `decide` apply the core transition (and tell
// whether it decided the review: an approval below the quorum does not), write the rows and, for a
// decision, the event.
template <typename Decide>
Result<Transition> DocumentService::DecideReview(const Actor& actor, ReviewId id, EventType event,
                                                 const CommitHook& on_commit, Decide&& decide) {
  return Gated(ReviewLockKey(id), config_.review_lock_ttl, on_commit,
               [&](StoreTransaction& tx) -> Result<Transition> {
                 auto review = tx.LockReview(id);
                 if (!review) return NotFound("review", id);
                 auto doc = tx.LockDocument(review->document_id);
                 if (!doc) return NotFound("document", review->document_id);
                 const std::vector<UserId> editors =
                     tx.ListEditors(doc->id, doc->approved_version.value_or(0));
                 const TimePoint now = clock_.Now();
                 auto decided = decide(tx, *doc, *review, editors, now);
                 if (!decided) return decided.error();
                 Transition t{std::move(*doc), std::move(*review)};
                 if (*decided) {
                   tx.UpdateReview(t.review);
                   tx.UpdateDocument(t.document);
                   tx.AppendEvent(MakeEvent(event, t, actor, now));
                 } else {  // an approval below the quorum: the rows stay, the vote is told
                   OutboxEvent voted = MakeEvent(EventType::kVoted, t, actor, now);
                   voted.reviewer_id = actor.id;
                   tx.AppendEvent(voted);
                 }
                 return t;
               });
}

Result<Transition> DocumentService::Approve(const Actor& actor, ReviewId id,
                                            const std::optional<std::string>& comment,
                                            const CommitHook& on_commit) {
  if (auto s = RequireReviewerRole(actor); !s) return s.error();
  if (comment) {
    if (auto s = ValidateComment(*comment); !s) return s.error();
  }
  return DecideReview(actor, id, EventType::kApproved, on_commit,
                      [&](StoreTransaction& tx, Document& doc, Review& review,
                          const std::vector<UserId>& editors, TimePoint now) -> Result<bool> {
                        auto vote = docgate::Vote(doc, review, actor, editors, comment, now);
                        if (!vote) return vote.error();
                        tx.AddApproval(review.id, review.approvals.back());
                        return *vote == VoteOutcome::kApproved;
                      });
}

Result<Transition> DocumentService::Reject(const Actor& actor, ReviewId id,
                                           const std::string& reason, const CommitHook& on_commit) {
  if (auto s = RequireReviewerRole(actor); !s) return s.error();
  if (auto s = ValidateReason(reason); !s) return s.error();
  return DecideReview(actor, id, EventType::kRejected, on_commit,
                      [&](StoreTransaction&, Document& doc, Review& review,
                          const std::vector<UserId>& editors, TimePoint now) -> Result<bool> {
                        if (auto s = docgate::Reject(doc, review, actor, editors, reason, now);
                            !s) {
                          return s.error();
                        }
                        return true;
                      });
}

Result<Review> DocumentService::Assign(const Actor& actor, ReviewId id,
                                       const AssigneeChange& change, const CommitHook& on_commit) {
  if (auto s = RequireAuthorRole(actor); !s) return s.error();
  if (auto s = ValidateAssigneeChange(change); !s) return s.error();
  auto tx = store_.Begin();
  auto review = tx->LockReview(id);
  if (!review) return NotFound("review", id);
  auto doc = tx->LockDocument(review->document_id);
  if (!doc) return NotFound("document", review->document_id);
  if (auto s = RequireOwner(actor, *doc); !s) return s.error();
  const auto done = docgate::Assign(*doc, *review, change,
                                    tx->ListEditors(doc->id, doc->approved_version.value_or(0)));
  if (!done) return done.error();
  if (done->add.empty() && done->remove.empty()) return std::move(*review);
  const TimePoint now = clock_.Now();
  for (const UserId& reviewer : done->remove) tx->RemoveAssignee(id, reviewer);
  WriteAssignees(*tx, *review, done->add, actor, now);
  // Read back in the store's order (assigned_at, reviewer id), which the answer shares with reads.
  auto assigned = tx->LockReview(id);
  if (!assigned) throw StorageError("review " + std::to_string(id) + " vanished while locked");
  if (on_commit) on_commit(*tx, IdempotentOutcome::Assigned(*assigned));
  tx->Commit();
  wakeup_.Wake();
  return std::move(*assigned);
}

Result<ReviewComment> DocumentService::Comment(const Actor& actor, ReviewId id,
                                               const CommentRequest& request,
                                               const CommitHook& on_commit) {
  if (auto s = ValidateCommentBody(request.body); !s) return s.error();
  if (request.line && *request.line < 1) {
    return MakeError(ErrorCode::kValidation,
                     "line must be 1 or more, got " + std::to_string(*request.line));
  }
  auto tx = store_.Begin();
  auto review = tx->LockReview(id);
  if (!review) return NotFound("review", id);
  if (auto s = CheckCommentable(*review); !s) return s.error();
  if (request.line) {
    const auto text = tx->ReadContent(review->document_id, review->document_version);
    if (!text) throw StorageError("review " + std::to_string(id) + " has no version to read");
    if (const std::int32_t lines = LineCount(*text); *request.line > lines) {
      return MakeError(ErrorCode::kValidation,
                       "line " + std::to_string(*request.line) + " is beyond version " +
                           std::to_string(review->document_version) + ", which has " +
                           std::to_string(lines) + " lines");
    }
  }
  if (request.parent_id) {
    const auto parent = tx->ReadComment(*request.parent_id);
    if (!parent || parent->review_id != id) {
      return MakeError(ErrorCode::kValidation, "parent_id " + std::to_string(*request.parent_id) +
                                                   " is not a comment of review " +
                                                   std::to_string(id));
    }
  }
  const TimePoint now = clock_.Now();
  ReviewComment comment{
      0,  id, review->document_version, actor.id, request.body, request.line, request.parent_id,
      now};
  comment.id = tx->InsertComment(comment);
  OutboxEvent event = MakeEvent(EventType::kCommented, *review, actor, now);
  event.comment_id = comment.id;
  tx->AppendEvent(event);
  if (on_commit) on_commit(*tx, IdempotentOutcome::Commented(comment));
  tx->Commit();
  wakeup_.Wake();
  return comment;
}

Result<Page<ReviewComment>> DocumentService::ListComments(ReviewId id, const PageRequest& request) {
  auto limit = PageSize(request.limit);
  if (!limit) return limit.error();
  auto page = PageOf(store_.ListComments(CommentQuery{id, request.after, *limit + 1}), *limit,
                     [](const ReviewComment& comment) { return comment.id; });
  if (page.items.empty() && !store_.FindReview(id)) return NotFound("review", id);
  return page;
}

Result<Document> DocumentService::GetDocument(DocumentId id) {
  auto doc = store_.FindDocument(id);
  if (!doc) return NotFound("document", id);
  return std::move(*doc);
}

Result<ContentView> DocumentService::GetContent(DocumentId id) {
  // One read: the document, then its content, would race an edit that drops the draft between.
  auto found = store_.FindDocumentWithContent(id);
  if (!found) return NotFound("document", id);
  if (!found->content) throw StorageError("document " + std::to_string(id) + " has no content");
  return ContentView{id, found->document.version, std::move(*found->content)};
}

// Every document keeps its current version, so only an empty history asks whether it exists.
Result<Page<VersionSummary>> DocumentService::ListVersions(DocumentId id,
                                                           const PageRequest& request) {
  auto limit = PageSize(request.limit);
  if (!limit) return limit.error();
  VersionQuery query{id, std::nullopt, *limit + 1};
  // A cursor above every version an int32 can hold is after none of them.
  if (request.after) {
    query.before = static_cast<std::int32_t>(
        std::min<std::int64_t>(*request.after, std::numeric_limits<std::int32_t>::max()));
  }
  auto page = PageOf(store_.ListVersions(query), *limit,
                     [](const VersionSummary& line) { return line.version; });
  if (page.items.empty() && !store_.FindDocument(id)) return NotFound("document", id);
  AddEditors(id, page.items);
  return page;
}

// The editors of each line, read in a second statement: versions are never rewritten and editor
// rows never deleted, so only a draft dropped in between can be missing, and it keeps its own.
void DocumentService::AddEditors(DocumentId id, std::vector<VersionSummary>& versions) {
  if (versions.empty()) return;
  const auto [oldest, newest] = std::minmax_element(
      versions.begin(), versions.end(),
      [](const VersionSummary& a, const VersionSummary& b) { return a.version < b.version; });
  const auto editors = store_.ListVersionEditors(id, oldest->version, newest->version);
  for (VersionSummary& line : versions) {
    for (const auto& [version, editor] : editors) {
      if (version == line.version) line.editors.push_back(editor);
    }
    if (line.editors.empty()) line.editors.push_back(line.edited_by);
  }
}

// The document is read only to explain a version that is not there.
Result<DocumentVersion> DocumentService::GetVersion(DocumentId id, std::int32_t version) {
  if (auto found = store_.FindVersion(id, version)) return std::move(*found);
  const auto doc = store_.FindDocument(id);
  if (!doc) return NotFound("document", id);
  if (version < 1 || version > doc->version) {
    return MakeError(ErrorCode::kNotFound, "document " + std::to_string(id) + " has no version " +
                                               std::to_string(version) + "; its newest is " +
                                               std::to_string(doc->version));
  }
  return MakeError(ErrorCode::kNotFound,
                   "version " + std::to_string(version) + " of document " + std::to_string(id) +
                       " was a draft replaced before it was submitted and is not kept");
}

Result<int> DocumentService::PageSize(const std::optional<int>& requested) const {
  if (!requested) return config_.default_page_size;
  if (*requested < 1 || *requested > config_.max_page_size) {
    return MakeError(ErrorCode::kValidation,
                     "limit must be 1.." + std::to_string(config_.max_page_size));
  }
  return *requested;
}

Result<Page<Document>> DocumentService::ListDocuments(const ListDocumentsRequest& request) {
  auto limit = PageSize(request.limit);
  if (!limit) return limit.error();
  DocumentQuery query{request.status, request.author_id, request.after, *limit + 1};
  return PageOf(store_.ListDocuments(query), *limit, [](const Document& doc) { return doc.id; });
}

Result<Page<QueuedReview>> DocumentService::ReviewQueue(const Actor& actor,
                                                        const ListReviewsRequest& request) {
  if (auto s = RequireReviewerRole(actor); !s) return s.error();
  auto limit = PageSize(request.limit);
  if (!limit) return limit.error();
  ReviewQuery query{request.status, request.assignee, request.after, *limit + 1};
  return PageOf(store_.ListReviews(query), *limit,
                [](const QueuedReview& item) { return item.review.id; });
}

Result<Review> DocumentService::GetReview(ReviewId id) {
  auto review = store_.FindReview(id);
  if (!review) return NotFound("review", id);
  return std::move(*review);
}

Result<Page<Review>> DocumentService::ReviewHistory(DocumentId id, const PageRequest& request) {
  auto limit = PageSize(request.limit);
  if (!limit) return limit.error();
  if (!store_.FindDocument(id)) return NotFound("document", id);
  DocumentReviewQuery query{id, request.after, *limit + 1};
  return PageOf(store_.ListDocumentReviews(query), *limit,
                [](const Review& review) { return review.id; });
}

}  // namespace docgate
