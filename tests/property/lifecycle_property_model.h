// The reference model of the review lifecycle property (lifecycle_property_test.cpp): the
// actors, the model's documents, reviews and events, the system under test, and the checks that
// read the system back and compare it with the model (lifecycle_property_checks.cpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/document_service.h"
#include "property_backends.h"
#include "property_service.h"

namespace docgate::lifecycle_property {

using std::chrono::milliseconds;

enum ActorIndex : int { kAlice, kCarol, kFrank, kBob, kDave, kErin, kMallory, kActorCount };

inline Actor ActorOf(int index) {
  switch (index) {
    case kAlice:
      return {"alice", "Alice", true, false, false};
    case kCarol:
      return {"carol", "Carol", true, false, false};
    case kFrank:  // writes and reviews: deciding a review of his own document is SELF_REVIEW
      return {"frank", "Frank", true, true, false};
    case kBob:
      return {"bob", "Bob", false, true, false};
    case kDave:
      return {"dave", "Dave", false, true, false};
    case kErin:  // admin: may edit anyone's document, and is then one of its editors
      return {"erin", "Erin", false, false, true};
    default:
      return {"mallory", "Mallory", false, false, false};
  }
}

inline std::string IdOf(int actor) { return ActorOf(actor).id; }

inline constexpr int kUnknown = -1;  // a reference to an id the system never gave out
inline constexpr DocumentId kUnknownDocumentId = 900'000'001;
inline constexpr ReviewId kUnknownReviewId = 900'000'002;

struct ModelVersion {
  std::string content;
  int edited_by = kAlice;
  std::string title;  // the document's title as this version was written
  std::int64_t created_at = 0;
};

struct ModelDocument {
  int author = kAlice;
  std::string title;
  std::vector<ModelVersion> versions;  // versions[v - 1] is version v
  DocumentStatus status = DocumentStatus::kDraft;
  std::optional<int> current_review;
  std::optional<std::int32_t> approved_version;
  std::optional<std::int64_t> approved_at;
  IngestStatus ingest = IngestStatus::kNone;
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;

  std::int32_t version() const { return static_cast<std::int32_t>(versions.size()); }
};

struct ModelReview {
  int document = 0;
  std::int32_t version = 0;
  ReviewStatus status = ReviewStatus::kPending;
  int submitted_by = kAlice;
  std::int64_t submitted_at = 0;
  std::optional<int> decided_by;
  std::optional<std::int64_t> decided_at;
  std::optional<std::string> comment;
  std::int32_t required = 1;  // approvals that approve it
  struct Vote {
    int reviewer = kBob;
    std::optional<std::string> comment;
    std::int64_t at = 0;
  };
  std::vector<Vote> votes;     // its approvals, in the order given (one command a millisecond)
  std::vector<int> assignees;  // in the order assigned; one assignment's by id
};

struct ModelEvent {
  EventType type = EventType::kSubmitted;
  int document = 0;
  int review = 0;
  std::int32_t version = 0;
  int actor = kAlice;
  std::int64_t at = 0;
  std::optional<int> reviewer;  // review.assigned, review.voted
};

// Documents and reviews are numbered in creation order; the system's ids for them are learned
// from its answers (LifecycleSut), so the model assumes nothing about how ids are assigned.
struct LifecycleModel {
  std::vector<ModelDocument> documents;
  std::vector<ModelReview> reviews;
  std::vector<ModelEvent> events;
  std::int64_t now = 0;  // milliseconds since kModelStart; every command is one millisecond later

  std::vector<int> Pending() const {
    std::vector<int> pending;
    for (int r = 0; r < static_cast<int>(reviews.size()); ++r) {
      if (reviews[r].status == ReviewStatus::kPending) pending.push_back(r);
    }
    return pending;
  }
};

// What the model predicts for one call: success or an error code, and which rows it touched.
struct Prediction {
  std::optional<ErrorCode> error;
  int document = kUnknown;
  int review = kUnknown;
};

inline Prediction Refused(ErrorCode code) { return Prediction{code}; }

inline std::size_t CodePoints(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}
inline bool ValidTitle(const std::string& title) {
  return CodePoints(title) >= 1 && CodePoints(title) <= 200;
}
inline bool ValidContent(const std::string& content) {
  return content.find('\0') == std::string::npos;
}
inline bool ValidComment(const std::string& comment) { return CodePoints(comment) <= 2000; }
inline bool ValidReason(const std::string& reason) {
  return CodePoints(reason) >= 1 && CodePoints(reason) <= 2000;
}

// The document's author, or an admin (API.md: admin may do everything an author may).
inline bool MayActOn(const Actor& actor, int actor_index, const ModelDocument& doc) {
  return actor.is_admin || (actor.is_author && actor_index == doc.author);
}

// Every state but pending_review; an edit of an approved document starts a revision (ADR 0008).
inline bool Editable(DocumentStatus status) { return status != DocumentStatus::kPendingReview; }
inline bool Submittable(DocumentStatus status) {
  return status == DocumentStatus::kDraft || status == DocumentStatus::kRejected;
}

inline void AddEvent(LifecycleModel& m, EventType type, int review, int actor,
                     std::optional<int> reviewer = std::nullopt) {
  const ModelReview& r = m.reviews[review];
  m.events.push_back(ModelEvent{type, r.document, review, r.version, actor, m.now, reviewer});
}

// Whoever wrote a version of `doc` after its approved one: four eyes keeps them from voting on,
// and from being assigned to, its review.
inline bool WroteUnapproved(const ModelDocument& doc, int actor) {
  if (actor == doc.author) return true;
  for (std::int32_t v = doc.approved_version.value_or(0) + 1; v <= doc.version(); ++v) {
    if (doc.versions[v - 1].edited_by == actor) return true;
  }
  return false;
}

struct LifecycleSut {
  explicit LifecycleSut(std::unique_ptr<PropertyBackend> store)
      : backend(std::move(store)), rig(backend->documents()), service(rig.service) {}

  DocumentStore& store() { return backend->documents(); }
  DocumentId DocumentIdOf(int document) const {
    return document == kUnknown ? kUnknownDocumentId : document_ids.at(document);
  }
  ReviewId ReviewIdOf(int review) const {
    return review == kUnknown ? kUnknownReviewId : review_ids.at(review);
  }

  std::unique_ptr<PropertyBackend> backend;
  ServiceRig rig;
  DocumentService& service;

  std::vector<DocumentId> document_ids;  // by model number, learned from Create
  std::vector<ReviewId> review_ids;      // by model number, learned from Submit
  std::map<ReviewId, Review> decisions;  // each decided review as first seen
};

inline TimePoint At(std::int64_t ms) { return ModelTime(ms); }

inline std::optional<TimePoint> At(const std::optional<std::int64_t>& ms) {
  if (!ms) return std::nullopt;
  return ModelTime(*ms);
}

inline Document Expected(const LifecycleModel& m, const LifecycleSut& sut, int d) {
  const ModelDocument& md = m.documents[d];
  Document doc;
  doc.id = sut.document_ids.at(d);
  doc.title = md.title;
  doc.status = md.status;
  doc.version = md.version();
  doc.author_id = IdOf(md.author);
  if (md.current_review) doc.current_review_id = sut.review_ids.at(*md.current_review);
  doc.approved_version = md.approved_version;
  doc.approved_at = At(md.approved_at);
  doc.ingest_status = md.ingest;
  doc.created_at = At(md.created_at);
  doc.updated_at = At(md.updated_at);
  return doc;
}

inline Review ExpectedReview(const LifecycleModel& m, const LifecycleSut& sut, int r) {
  const ModelReview& mr = m.reviews[r];
  Review review;
  review.id = sut.review_ids.at(r);
  review.document_id = sut.document_ids.at(mr.document);
  review.document_version = mr.version;
  review.status = mr.status;
  review.submitted_by = IdOf(mr.submitted_by);
  review.submitted_at = At(mr.submitted_at);
  if (mr.decided_by) review.decided_by = IdOf(*mr.decided_by);
  review.decided_at = At(mr.decided_at);
  review.comment = mr.comment;
  review.required_approvals = mr.required;
  for (const ModelReview::Vote& vote : mr.votes) {
    review.approvals.push_back(Approval{IdOf(vote.reviewer), vote.comment, At(vote.at)});
  }
  for (const int assignee : mr.assignees) review.assignees.push_back(IdOf(assignee));
  return review;
}

// What one call returned, whatever the use case.
struct Outcome {
  std::optional<ErrorCode> error;
  std::string detail;
  std::optional<Document> document;
  std::optional<Review> review;
};

inline Outcome From(const Result<Document>& result) {
  if (!result) return Outcome{result.error().code, result.error().detail, {}, {}};
  return Outcome{{}, {}, *result, {}};
}

inline Outcome From(const Result<Review>& result) {
  if (!result) return Outcome{result.error().code, result.error().detail, {}, {}};
  return Outcome{{}, {}, {}, *result};
}

inline Outcome From(const Result<Transition>& result) {
  if (!result) return Outcome{result.error().code, result.error().detail, {}, {}};
  return Outcome{{}, {}, result->document, result->review};
}

// The checks: each reads the system back and fails the property on a difference from the model.
void CheckReview(const LifecycleModel& m, LifecycleSut& sut, int r);
// The document, every version of its content, and its reviews (newest first).
void CheckDocument(const LifecycleModel& m, LifecycleSut& sut, int d);
// The reviewers' queue: every pending review, oldest first.
void CheckQueue(const LifecycleModel& m, LifecycleSut& sut);
// The outbox holds exactly the model's events, in order; returns its rows.
std::vector<OutboxEvent> CheckOutbox(const LifecycleModel& m, LifecycleSut& sut);
// Invariants that hold of any history, checked on what the system returns.
void CheckInvariants(LifecycleSut& sut, const std::vector<OutboxEvent>& events);
// The document and review lists, paged with a random page size and filter.
void CheckPaging(const LifecycleModel& m, LifecycleSut& sut);

}  // namespace docgate::lifecycle_property
