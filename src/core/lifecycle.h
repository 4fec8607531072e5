#pragma once

// The review lifecycle as pure functions over the two rows a transition holds. Every transition of
// API.md is here and nothing else; each either refuses with a Result error and leaves the rows
// untouched, or applies the whole transition (state, audit fields) to them.
//
//   document: draft --submit--> pending_review --approve--> approved
//             rejected --submit--^       |--reject--> rejected --edit--> draft
//             draft <--withdraw----------|
//             approved --edit--> draft (a revision: version + 1; approved_version stays published)
//   review:   pending --> approved | rejected | withdrawn   (a decided review never changes)
//             a review needing N approvals stays pending while it collects them (Vote)

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/model.h"

namespace docgate {

// Title 1..kMaxTitle characters (Unicode code points of valid UTF-8).
inline constexpr std::size_t kMaxTitle = 200;
Status ValidateTitle(const std::string& title);
// Content: valid UTF-8 without U+0000 (its size is bounded by the request body limit).
// Every text field refuses U+0000, which PostgreSQL cannot store.
Status ValidateContent(const std::string& content);
// Rejection reason 1..2000 characters.
Status ValidateReason(const std::string& reason);
// Approval comment 0..2000 characters.
Status ValidateComment(const std::string& comment);
// The body of a comment on a review, 1..4000 characters, not all of them whitespace.
Status ValidateCommentBody(const std::string& body);
// Search query (`q`): 1..256 characters with at least one that is not whitespace.
Status ValidateSearchQuery(const std::string& query);

// Role checks. CanAuthor/CanReview come from the token; "owner" means the document's author (an
// admin may act on any document, API.md: admin may do what an author may).
Status RequireAuthorRole(const Actor& actor);
Status RequireReviewerRole(const Actor& actor);
Status RequireOwner(const Actor& actor, const Document& doc);

// PUT: in draft, rejected or approved. `changed` says whether the title or content differs from
// the current one: only a change bumps the version. A rejected document becomes draft; a change to
// an approved one starts a revision (draft, version + 1, approved_version unchanged), and an
// approved document given nothing new stays as it is.
Status Edit(Document& doc, bool changed, TimePoint now);

// The most approvals a review may need (API.md v1.2 "Review policy").
inline constexpr std::int32_t kMaxRequiredApprovals = 10;

// Submit from draft or rejected. Returns the new pending review bound to the current version,
// needing `required_approvals` (1..kMaxRequiredApprovals; the caller checks it against the
// quorum) approvals (its id is 0 until stored; call AttachReview with the stored id).
Result<Review> Submit(Document& doc, const Actor& actor, TimePoint now,
                      std::int32_t required_approvals = 1);
void AttachReview(Document& doc, ReviewId review_id);

// Withdraw the pending review: the document goes back to draft, the review becomes withdrawn.
Status Withdraw(Document& doc, Review& review, const Actor& actor, TimePoint now);

// Decide a pending review. Four eyes: neither the document's author nor anyone
// in `editors` (who wrote a version since the last approved one, up to the
// version under review) can decide it, not even an admin (SELF_REVIEW). The
// review must be the document's current one and bound to its current version.
Status Approve(Document &doc, Review &review, const Actor &actor,
               const std::vector<UserId> &editors,
               const std::optional<std::string> &comment, TimePoint now);
Status Reject(Document &doc, Review &review, const Actor &actor,
              const std::vector<UserId> &editors, const std::string &reason,
              TimePoint now);

// What one approval did: counted towards the review's quorum, or completed it.
enum class VoteOutcome { kCounted, kApproved };

// The most reviewers one review may have assigned.
inline constexpr std::size_t kMaxAssignees = 20;

// A change to a review's assignees, as asked: ids to add and ids to remove.
struct AssigneeChange {
  std::vector<UserId> add;
  std::vector<UserId> remove;
};

// Why `change` cannot be asked for, whatever the review (VALIDATION: nothing to change, an id that
// is not a token subject (SubjectProblem), one id both added and removed, more than kMaxAssignees
// ids on either side), or Ok.
Status ValidateAssigneeChange(const AssigneeChange& change);

// Changes the assignees of a pending review (API.md v1.2 "Review policy"): the pending pair as for
// a decision; an added assignee who wrote the version under review (the document's author or one of
// `editors`) is SELF_REVIEW, as they could not vote; more than kMaxAssignees afterwards is
// VALIDATION. review.assignees gets the added ones (those not assigned already, in id order, the
// order the stores read one assignment's reviewers back) appended and the removed ones taken out;
// the result is what changed: the ids added and the ids removed that were assigned. Refused: the
// review is untouched.
Result<AssigneeChange> Assign(const Document& doc, Review& review, const AssigneeChange& change,
                              const std::vector<UserId>& editors);

// Whether a comment on `review` may be written now: while it is pending (INVALID_STATE after).
Status CheckCommentable(const Review& review);

// The number of lines of a version's text for comments on its lines: the text split on "\n", a
// final "\n" ending the last line rather than starting another (an empty text has one line).
std::int32_t LineCount(std::string_view text);

// One reviewer's approval of a pending review: four eyes and the pending pair as for a decision,
// ALREADY_VOTED when `actor` approved it already. The approval is added to review.approvals; the
// one that brings their count to review.required_approvals approves the review and the document
// (Approve, with this approval's comment). Refused: the rows are untouched.
Result<VoteOutcome> Vote(Document& doc, Review& review, const Actor& actor,
                         const std::vector<UserId>& editors,
                         const std::optional<std::string>& comment, TimePoint now);

}  // namespace docgate
