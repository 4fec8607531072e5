#include "core/model.h"

#include <array>
#include <utility>

#include "core/utf8.h"

namespace docgate {
namespace {

template <typename E, std::size_t N>
std::optional<E> Lookup(const std::array<std::pair<E, std::string_view>, N>& table,
                        std::string_view text) {
  for (const auto& [value, name] : table) {
    if (name == text) return value;
  }
  return std::nullopt;
}

template <typename E, std::size_t N>
std::string_view Name(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "unknown";
}

constexpr std::array<std::pair<DocumentStatus, std::string_view>, 4> kDocumentStatuses{{
    {DocumentStatus::kDraft, "draft"},
    {DocumentStatus::kPendingReview, "pending_review"},
    {DocumentStatus::kApproved, "approved"},
    {DocumentStatus::kRejected, "rejected"},
}};
constexpr std::array<std::pair<ReviewStatus, std::string_view>, 4> kReviewStatuses{{
    {ReviewStatus::kPending, "pending"},
    {ReviewStatus::kApproved, "approved"},
    {ReviewStatus::kRejected, "rejected"},
    {ReviewStatus::kWithdrawn, "withdrawn"},
}};
constexpr std::array<std::pair<IngestStatus, std::string_view>, 4> kIngestStatuses{{
    {IngestStatus::kNone, "none"},
    {IngestStatus::kPending, "pending"},
    {IngestStatus::kDone, "done"},
    {IngestStatus::kFailed, "failed"},
}};
constexpr std::array<std::pair<DocumentFormat, std::string_view>, 2> kDocumentFormats{{
    {DocumentFormat::kMarkdown, "markdown"},
    {DocumentFormat::kText, "text"},
}};
constexpr std::array<std::pair<EventType, std::string_view>, 7> kEventTypes{{
    {EventType::kSubmitted, "document.submitted"},
    {EventType::kApproved, "document.approved"},
    {EventType::kRejected, "document.rejected"},
    {EventType::kWithdrawn, "document.withdrawn"},
    {EventType::kAssigned, "review.assigned"},
    {EventType::kVoted, "review.voted"},
    {EventType::kCommented, "review.commented"},
}};

}  // namespace

std::string_view ToString(DocumentStatus status) { return Name(kDocumentStatuses, status); }
std::string_view ToString(ReviewStatus status) { return Name(kReviewStatuses, status); }
std::string_view ToString(IngestStatus status) { return Name(kIngestStatuses, status); }
std::string_view ToString(DocumentFormat format) { return Name(kDocumentFormats, format); }
std::string_view ToString(EventType type) { return Name(kEventTypes, type); }

std::optional<DocumentStatus> ParseDocumentStatus(std::string_view text) {
  return Lookup(kDocumentStatuses, text);
}
std::optional<ReviewStatus> ParseReviewStatus(std::string_view text) {
  return Lookup(kReviewStatuses, text);
}
std::optional<IngestStatus> ParseIngestStatus(std::string_view text) {
  return Lookup(kIngestStatuses, text);
}
std::optional<DocumentFormat> ParseDocumentFormat(std::string_view text) {
  return Lookup(kDocumentFormats, text);
}
std::optional<EventType> ParseEventType(std::string_view text) { return Lookup(kEventTypes, text); }

std::optional<std::string> SubjectProblem(std::string_view sub) {
  if (sub.empty()) return "token `sub` must be a non-empty string";
  if (sub.size() > kMaxSubjectBytes) {
    return "token `sub` must be at most " + std::to_string(kMaxSubjectBytes) + " bytes, got " +
           std::to_string(sub.size());
  }
  if (!IsPrintableText(sub)) return "token `sub` must be UTF-8 without control characters";
  return std::nullopt;
}

}  // namespace docgate
