#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

using TimePoint = std::chrono::sys_time<std::chrono::milliseconds>;
using DocumentId = std::int64_t;
using ReviewId = std::int64_t;
using UserId = std::string;

enum class DocumentStatus { kDraft, kPendingReview, kApproved, kRejected };
enum class ReviewStatus { kPending, kApproved, kRejected, kWithdrawn };
enum class IngestStatus { kNone, kPending, kDone, kFailed };
// How a document's content is written (API.md v1.2 "Formats and import"): Markdown is rendered by
// the console and chunked along its headings; text is shown as written and chunked by paragraphs.
enum class DocumentFormat { kMarkdown, kText };

std::string_view ToString(DocumentStatus status);
std::string_view ToString(ReviewStatus status);
std::string_view ToString(IngestStatus status);
std::string_view ToString(DocumentFormat format);
std::optional<DocumentStatus> ParseDocumentStatus(std::string_view text);
std::optional<ReviewStatus> ParseReviewStatus(std::string_view text);
std::optional<IngestStatus> ParseIngestStatus(std::string_view text);
std::optional<DocumentFormat> ParseDocumentFormat(std::string_view text);

struct Document {
  DocumentId id = 0;
  std::string title;
  DocumentStatus status = DocumentStatus::kDraft;
  std::int32_t version = 1;
  UserId author_id;
  std::optional<ReviewId> current_review_id;
  std::optional<std::int32_t> approved_version;
  std::optional<TimePoint> approved_at;
  IngestStatus ingest_status = IngestStatus::kNone;
  TimePoint created_at{};
  TimePoint updated_at{};
  // Of its current version; ingestion chunks the approved version by it.
  DocumentFormat format = DocumentFormat::kMarkdown;

  bool operator==(const Document&) const = default;
};

// Where an imported document came from (API.md v1.2 "Formats and import"): the file's name as
// sent, the media type its content was recognized as, its size and its SHA-256 (hex).
struct ImportSource {
  std::string filename;
  std::string media_type;
  std::uint64_t bytes = 0;
  std::string sha256;

  bool operator==(const ImportSource&) const = default;
};

// A document with the content of one of its versions, read together (nullopt: no such version).
struct DocumentWithContent {
  Document document;
  std::optional<std::string> content;
};

// One reviewer's approval of a review (API.md v1.2 "Review policy"): a review needing several
// approvals collects them until their count reaches its required_approvals.
struct Approval {
  UserId reviewer_id;
  std::optional<std::string> comment;
  TimePoint decided_at{};

  bool operator==(const Approval&) const = default;
};

struct Review {
  ReviewId id = 0;
  DocumentId document_id = 0;
  std::int32_t document_version = 0;
  ReviewStatus status = ReviewStatus::kPending;
  UserId submitted_by;
  TimePoint submitted_at{};
  std::optional<UserId> decided_by;
  std::optional<TimePoint> decided_at;
  std::optional<std::string> comment;
  // How many distinct approvals approve it (1..10; reviews from before quorums existed: 1).
  std::int32_t required_approvals = 1;
  // Its approvals so far, in the order they were given (decided_at, then reviewer id). An approved
  // review holds at least required_approvals of them; the last completed it.
  std::vector<Approval> approvals;
  // The reviewers assigned to it, in the order they were assigned (API.md v1.2 "Review policy"):
  // whose queue shows it first; any reviewer may still vote.
  std::vector<UserId> assignees;

  bool operator==(const Review&) const = default;
};

// One kept content version of a document (API.md v1.1, Revisions): its title and content as
// `edited_by` wrote them at `created_at`. A version, once written, is never rewritten.
struct DocumentVersion {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::string title;
  std::string content;
  UserId edited_by;
  TimePoint created_at{};

  bool operator==(const DocumentVersion&) const = default;
};

// A line of a document's version history: a kept version without its content, and the newest
// review bound to it (none when it was never submitted). `edited_by` wrote it; `editors` are
// everyone who wrote it since the kept version before it (the drafts it replaced included), in
// the order they first wrote, `edited_by` among them.
struct VersionSummary {
  std::int32_t version = 0;
  std::string title;
  UserId edited_by;
  TimePoint created_at{};
  std::optional<ReviewId> review_id;
  std::optional<ReviewStatus> review_status;
  std::vector<UserId> editors;

  bool operator==(const VersionSummary&) const = default;
};

// A comment on a review (API.md v1.2 "Comments"): on `line` (1-based) of the reviewed version or
// on the whole, and a reply to another comment of the same review or not.
struct ReviewComment {
  std::int64_t id = 0;
  ReviewId review_id = 0;
  std::int32_t document_version = 0;
  UserId author_id;
  std::string body;
  std::optional<std::int32_t> line;
  std::optional<std::int64_t> parent_id;
  TimePoint created_at{};

  bool operator==(const ReviewComment&) const = default;
};

// The event kinds of API.md; the string form is the AMQP routing key.
enum class EventType {
  kSubmitted,
  kApproved,
  kRejected,
  kWithdrawn,
  kAssigned,   // review.assigned: reviewer_id was assigned to the review
  kVoted,      // review.voted: reviewer_id approved, below the review's quorum
  kCommented,  // review.commented: comment_id was written on the review
};
std::string_view ToString(EventType type);
std::optional<EventType> ParseEventType(std::string_view text);

// One row of the transactional outbox. `sequence` is assigned by the store at insert and orders
// events in commit order.
struct OutboxEvent {
  std::int64_t sequence = 0;
  std::string event_id;  // UUID, the consumers' dedupe key
  EventType type = EventType::kSubmitted;
  DocumentId document_id = 0;
  ReviewId review_id = 0;
  std::int32_t version = 0;
  UserId actor_id;
  TimePoint occurred_at{};
  // The assignee of review.assigned, the voter of review.voted; nullopt for the other types.
  std::optional<UserId> reviewer_id;
  // The comment of review.commented; nullopt for the other types.
  std::optional<std::int64_t> comment_id;

  bool operator==(const OutboxEvent&) const = default;
};

// The longest `sub` accepted, in bytes of UTF-8: a caller id is stored and indexed (documents'
// authors, reviews, idempotency keys), and 255 bytes stay well inside every index's entry limit.
inline constexpr std::size_t kMaxSubjectBytes = 255;

// Why `sub` cannot identify a caller, or nullopt when it can: 1..kMaxSubjectBytes bytes of valid
// UTF-8 without control characters (so it is stored as it is and logs on one line).
std::optional<std::string> SubjectProblem(std::string_view sub);

// The authenticated caller, as the token describes it.
struct Actor {
  UserId id;
  std::string name;
  bool is_author = false;
  bool is_reviewer = false;
  bool is_admin = false;

  bool CanAuthor() const { return is_author || is_admin; }
  bool CanReview() const { return is_reviewer || is_admin; }
};

}  // namespace docgate
