#include "core/lifecycle.h"

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "core/utf8.h"

namespace docgate {
namespace {

constexpr std::size_t kMaxReason = 2000;
constexpr std::size_t kMaxSearchQuery = 256;
constexpr std::size_t kMaxComment = 2000;
constexpr std::size_t kMaxCommentBody = 4000;

Status Bounded(const std::string& text, std::string_view field, std::size_t min, std::size_t max) {
  const auto length = Utf8Length(text);
  if (!length) return MakeError(ErrorCode::kValidation, std::string(field) + " is not valid UTF-8");
  if (text.find('\0') != std::string::npos) {
    return MakeError(ErrorCode::kValidation, std::string(field) + " must not contain U+0000");
  }
  if (*length < min || *length > max) {
    return MakeError(ErrorCode::kValidation, std::string(field) + " must be " + std::to_string(min) +
                                                 ".." + std::to_string(max) + " characters, got " +
                                                 std::to_string(*length));
  }
  return Ok{};
}

Error InvalidState(std::string detail) { return MakeError(ErrorCode::kInvalidState, std::move(detail)); }

std::string DocumentIs(const Document& doc) {
  return "document " + std::to_string(doc.id) + " is " + std::string(ToString(doc.status));
}

// The checks shared by every decision on a pending review (approve, reject, withdraw).
Status CheckPendingPair(const Document& doc, const Review& review) {
  if (review.status != ReviewStatus::kPending) {
    return InvalidState("review " + std::to_string(review.id) + " is already " +
                        std::string(ToString(review.status)));
  }
  if (doc.status != DocumentStatus::kPendingReview || doc.current_review_id != review.id) {
    return InvalidState(DocumentIs(doc) + " and review " + std::to_string(review.id) +
                        " is not its current review");
  }
  if (doc.version != review.document_version) {
    return InvalidState("review " + std::to_string(review.id) + " was submitted for version " +
                        std::to_string(review.document_version) + ", the document is at version " +
                        std::to_string(doc.version));
  }
  return Ok{};
}

Status CheckFourEyes(const Document &doc, const Review &review,
                     const Actor &actor, const std::vector<UserId> &editors) {
  if (doc.author_id == actor.id) {
    return MakeError(ErrorCode::kSelfReview,
                     "you wrote document " + std::to_string(doc.id) +
                         " and cannot decide its review");
  }
  if (std::find(editors.begin(), editors.end(), actor.id) != editors.end()) {
    return MakeError(ErrorCode::kSelfReview,
                     "you edited document " + std::to_string(doc.id) +
                         " up to version " +
                         std::to_string(review.document_version) +
                         " under review and cannot decide its review");
  }
  return Ok{};
}

void Decide(Review& review, ReviewStatus status, const Actor& actor, TimePoint now,
            std::optional<std::string> comment) {
  review.status = status;
  review.decided_by = actor.id;
  review.decided_at = now;
  review.comment = std::move(comment);
}

}  // namespace

Status ValidateTitle(const std::string& title) { return Bounded(title, "title", 1, kMaxTitle); }

Status ValidateContent(const std::string& content) {
  if (!Utf8Length(content)) return MakeError(ErrorCode::kValidation, "content is not valid UTF-8");
  // PostgreSQL text cannot hold U+0000; refusing it here keeps every store identical.
  if (content.find('\0') != std::string::npos) {
    return MakeError(ErrorCode::kValidation, "content must not contain U+0000");
  }
  return Ok{};
}

Status ValidateReason(const std::string& reason) { return Bounded(reason, "reason", 1, kMaxReason); }

Status ValidateSearchQuery(const std::string& query) {
  if (auto bounded = Bounded(query, "q", 1, kMaxSearchQuery); !bounded) return bounded;
  if (query.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
    return MakeError(ErrorCode::kValidation, "q must contain a word, got only whitespace");
  }
  return Ok{};
}

Status ValidateComment(const std::string& comment) {
  return Bounded(comment, "comment", 0, kMaxComment);
}

Status ValidateCommentBody(const std::string& body) {
  if (auto bounded = Bounded(body, "body", 1, kMaxCommentBody); !bounded) return bounded;
  if (body.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
    return MakeError(ErrorCode::kValidation, "body must contain a character that is not whitespace");
  }
  return Ok{};
}

Status RequireAuthorRole(const Actor& actor) {
  if (actor.CanAuthor()) return Ok{};
  return MakeError(ErrorCode::kForbidden, "this action needs the author role");
}

Status RequireReviewerRole(const Actor& actor) {
  if (actor.CanReview()) return Ok{};
  return MakeError(ErrorCode::kForbidden, "this action needs the reviewer role");
}

Status RequireOwner(const Actor& actor, const Document& doc) {
  if (actor.is_admin) return Ok{};
  if (actor.is_author && actor.id == doc.author_id) return Ok{};
  return MakeError(ErrorCode::kForbidden,
                   "only the author of document " + std::to_string(doc.id) + " may do this");
}

Status Edit(Document& doc, bool changed, TimePoint now) {
  if (doc.status == DocumentStatus::kPendingReview) {
    return InvalidState(DocumentIs(doc) +
                        "; withdraw its review to edit it (only draft, rejected or approved "
                        "documents can be edited)");
  }
  if (doc.status == DocumentStatus::kApproved && !changed) return Ok{};
  if (changed) ++doc.version;
  doc.status = DocumentStatus::kDraft;
  doc.updated_at = now;
  return Ok{};
}

Result<Review> Submit(Document& doc, const Actor& actor, TimePoint now,
                      std::int32_t required_approvals) {
  if (doc.status != DocumentStatus::kDraft && doc.status != DocumentStatus::kRejected) {
    return InvalidState(DocumentIs(doc) + "; only draft or rejected documents can be submitted");
  }
  doc.status = DocumentStatus::kPendingReview;
  doc.updated_at = now;
  Review review;
  review.document_id = doc.id;
  review.document_version = doc.version;
  review.status = ReviewStatus::kPending;
  review.submitted_by = actor.id;
  review.submitted_at = now;
  review.required_approvals = required_approvals;
  return review;
}

void AttachReview(Document& doc, ReviewId review_id) { doc.current_review_id = review_id; }

Status Withdraw(Document& doc, Review& review, const Actor& actor, TimePoint now) {
  if (auto pending = CheckPendingPair(doc, review); !pending) return pending;
  doc.status = DocumentStatus::kDraft;
  doc.current_review_id.reset();
  doc.updated_at = now;
  Decide(review, ReviewStatus::kWithdrawn, actor, now, std::nullopt);
  return Ok{};
}

Status Approve(Document &doc, Review &review, const Actor &actor,
               const std::vector<UserId> &editors,
               const std::optional<std::string> &comment, TimePoint now) {
  if (auto four_eyes = CheckFourEyes(doc, review, actor, editors); !four_eyes)
    return four_eyes;
  if (auto pending = CheckPendingPair(doc, review); !pending) return pending;
  doc.status = DocumentStatus::kApproved;
  doc.current_review_id.reset();
  doc.approved_version = review.document_version;
  doc.approved_at = now;
  doc.ingest_status = IngestStatus::kPending;
  doc.updated_at = now;
  Decide(review, ReviewStatus::kApproved, actor, now, comment);
  return Ok{};
}

Status Reject(Document &doc, Review &review, const Actor &actor,
              const std::vector<UserId> &editors, const std::string &reason,
              TimePoint now) {
  if (auto four_eyes = CheckFourEyes(doc, review, actor, editors); !four_eyes)
    return four_eyes;
  if (auto pending = CheckPendingPair(doc, review); !pending) return pending;
  doc.status = DocumentStatus::kRejected;
  doc.current_review_id.reset();
  doc.updated_at = now;
  Decide(review, ReviewStatus::kRejected, actor, now, reason);
  return Ok{};
}

Status ValidateAssigneeChange(const AssigneeChange& change) {
  if (change.add.empty() && change.remove.empty()) {
    return MakeError(ErrorCode::kValidation, "nothing to change: give `add` and/or `remove`");
  }
  for (const auto* ids : {&change.add, &change.remove}) {
    if (ids->size() > kMaxAssignees) {
      return MakeError(ErrorCode::kValidation, "at most " + std::to_string(kMaxAssignees) +
                                                   " assignees a request, got " +
                                                   std::to_string(ids->size()));
    }
    for (const UserId& id : *ids) {
      if (auto problem = SubjectProblem(id)) {
        return MakeError(ErrorCode::kValidation,
                         "assignee '" + EscapeForLog(id) + "': " + *problem);
      }
    }
  }
  for (const UserId& id : change.add) {
    if (std::find(change.remove.begin(), change.remove.end(), id) != change.remove.end()) {
      return MakeError(ErrorCode::kValidation,
                       "'" + EscapeForLog(id) + "' is both added and removed");
    }
  }
  return Ok{};
}

Result<AssigneeChange> Assign(const Document& doc, Review& review, const AssigneeChange& change,
                              const std::vector<UserId>& editors) {
  if (auto pending = CheckPendingPair(doc, review); !pending) return pending.error();
  const auto assigned = [](const std::vector<UserId>& ids, const UserId& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  AssigneeChange done;
  std::vector<UserId> after = review.assignees;
  for (const UserId& id : change.add) {
    if (id == doc.author_id || assigned(editors, id)) {
      return MakeError(ErrorCode::kSelfReview, "'" + EscapeForLog(id) + "' wrote version " +
                                                   std::to_string(review.document_version) +
                                                   " of document " + std::to_string(doc.id) +
                                                   " and cannot review it");
    }
    if (assigned(after, id) || assigned(done.add, id)) continue;
    done.add.push_back(id);
  }
  // Assigned at one time, they are read back by id (the stores' order: assigned_at, reviewer id).
  std::sort(done.add.begin(), done.add.end());
  after.insert(after.end(), done.add.begin(), done.add.end());
  for (const UserId& id : change.remove) {
    if (!assigned(after, id)) continue;
    std::erase(after, id);
    done.remove.push_back(id);
  }
  if (after.size() > kMaxAssignees) {
    return MakeError(ErrorCode::kValidation, "review " + std::to_string(review.id) +
                                                 " would have " + std::to_string(after.size()) +
                                                 " assignees; at most " +
                                                 std::to_string(kMaxAssignees));
  }
  review.assignees = std::move(after);
  return done;
}

Status CheckCommentable(const Review& review) {
  if (review.status == ReviewStatus::kPending) return Ok{};
  return InvalidState("review " + std::to_string(review.id) + " is " +
                      std::string(ToString(review.status)) +
                      "; only a pending review takes comments");
}

std::int32_t LineCount(std::string_view text) {
  const auto breaks = std::count(text.begin(), text.end(), '\n');
  const bool ended = !text.empty() && text.back() == '\n';
  return static_cast<std::int32_t>(breaks + (ended ? 0 : 1));
}

Result<VoteOutcome> Vote(Document& doc, Review& review, const Actor& actor,
                         const std::vector<UserId>& editors,
                         const std::optional<std::string>& comment, TimePoint now) {
  if (auto four_eyes = CheckFourEyes(doc, review, actor, editors); !four_eyes) {
    return four_eyes.error();
  }
  if (auto pending = CheckPendingPair(doc, review); !pending) return pending.error();
  for (const Approval& approval : review.approvals) {
    if (approval.reviewer_id == actor.id) {
      return MakeError(ErrorCode::kAlreadyVoted,
                       "you approved review " + std::to_string(review.id) + " already");
    }
  }
  review.approvals.push_back(Approval{actor.id, comment, now});
  if (static_cast<std::int32_t>(review.approvals.size()) < review.required_approvals) {
    return VoteOutcome::kCounted;
  }
  if (auto approved = Approve(doc, review, actor, editors, comment, now); !approved) {
    review.approvals.pop_back();
    return approved.error();
  }
  return VoteOutcome::kApproved;
}

}  // namespace docgate
