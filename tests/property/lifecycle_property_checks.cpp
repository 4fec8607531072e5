// The read-back checks of the lifecycle property (lifecycle_property_model.h).

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lifecycle_property_model.h"
#include "property_show.h"

namespace docgate::lifecycle_property {
namespace {

// A decided review never changes again (API.md): the first decision seen of each is kept.
void CheckDecidedOnce(LifecycleSut& sut, const Review& review) {
  if (review.status == ReviewStatus::kPending) return;
  const auto [first, inserted] = sut.decisions.try_emplace(review.id, review);
  ExpectSame(review, first->second, "a decided review changed again");
}

// The reviews of queue items, without the titles.
std::vector<Review> ReviewsOf(const std::vector<QueuedReview>& items) {
  std::vector<Review> reviews;
  for (const QueuedReview& item : items) reviews.push_back(item.review);
  return reviews;
}

// Pages through a list as a client would, from `request` on; each page but the last is full
// and names the next, the last names none.
template <typename Item, typename Request, typename List>
std::vector<Item> AllPages(Request request, int limit, List&& list, const std::string& what) {
  request.limit = limit;
  std::vector<Item> items;
  for (int page = 0;; ++page) {
    const auto answer = list(request);
    if (!answer) RC_FAIL(what + ": " + answer.error().detail);
    items.insert(items.end(), answer->items.begin(), answer->items.end());
    if (!answer->next) return items;
    if (static_cast<int>(answer->items.size()) != limit || page > 1000) {
      RC_FAIL(what + ": page " + std::to_string(page) + " names a next page but holds " +
              std::to_string(answer->items.size()) + " of " + std::to_string(limit));
    }
    request.after = answer->next;
  }
}

}  // namespace

void CheckReview(const LifecycleModel& m, LifecycleSut& sut, int r) {
  const auto review = sut.service.GetReview(sut.review_ids.at(r));
  if (!review)
    RC_FAIL("GetReview(" + std::to_string(sut.review_ids.at(r)) + "): " + review.error().detail);
  ExpectSame(*review, ExpectedReview(m, sut, r), "review " + std::to_string(r) + " as read back");
  CheckDecidedOnce(sut, *review);
}

// The document, every version of its content, and its reviews (newest first).
void CheckDocument(const LifecycleModel& m, LifecycleSut& sut, int d) {
  const DocumentId id = sut.document_ids.at(d);
  const auto doc = sut.service.GetDocument(id);
  if (!doc) RC_FAIL("GetDocument(" + std::to_string(id) + "): " + doc.error().detail);
  ExpectSame(*doc, Expected(m, sut, d), "document " + std::to_string(d) + " as read back");
  const ModelDocument& md = m.documents[d];
  const auto working = sut.service.GetContent(id);
  if (!working) RC_FAIL("GetContent(" + std::to_string(id) + "): " + working.error().detail);
  ExpectSame(std::int64_t{working->version}, std::int64_t{md.version()}, "working copy version");
  ExpectSame(working->content, md.versions.back().content, "working copy content");
  // Kept: the current version and every version a review was bound to (ADR 0008); each as it
  // was written, with its newest review.
  std::vector<VersionSummary> kept;
  for (std::int32_t v = md.version(); v >= 1; --v) {
    const ModelVersion& mv = md.versions[v - 1];
    VersionSummary line{
        v, mv.title, IdOf(mv.edited_by), At(mv.created_at), std::nullopt, std::nullopt, {}};
    for (int r = 0; r < static_cast<int>(m.reviews.size()); ++r) {
      if (m.reviews[r].document != d || m.reviews[r].version != v) continue;
      line.review_id = sut.review_ids.at(r);
      line.review_status = m.reviews[r].status;
    }
    const bool is_kept = v == md.version() || line.review_id.has_value();
    ExpectSame(
        sut.store().FindContent(id, v).value_or("<none>"),
        is_kept ? mv.content : std::string("<none>"),
        "content of version " + std::to_string(v) +
            (is_kept ? " (never rewritten)" : " (a draft replaced before it was submitted)"));
    if (is_kept) kept.push_back(std::move(line));
  }
  // Each kept version's editors: whoever wrote a version after the kept one before it, up to it,
  // in the order they first wrote (issue 36, item 7).
  std::int32_t kept_before = 0;
  for (auto line = kept.rbegin(); line != kept.rend(); ++line) {
    for (std::int32_t v = kept_before + 1; v <= line->version; ++v) {
      const UserId editor = IdOf(md.versions[v - 1].edited_by);
      if (std::find(line->editors.begin(), line->editors.end(), editor) == line->editors.end()) {
        line->editors.push_back(editor);
      }
    }
    kept_before = line->version;
  }
  const auto versions = AllPages<VersionSummary>(
      PageRequest{}, 3, [&](const PageRequest& r) { return sut.service.ListVersions(id, r); },
      "ListVersions");
  ExpectSame(versions, kept, "version history of document " + std::to_string(d));
  std::vector<Review> expected;
  for (int r = static_cast<int>(m.reviews.size()) - 1; r >= 0; --r) {
    if (m.reviews[r].document == d) expected.push_back(ExpectedReview(m, sut, r));
  }
  const auto history = AllPages<Review>(
      PageRequest{}, 3, [&](const PageRequest& r) { return sut.service.ReviewHistory(id, r); },
      "ReviewHistory");
  ExpectSame(history, expected, "review history of document " + std::to_string(d));
  for (const Review& review : history) CheckDecidedOnce(sut, review);
}

// The reviewers' queue: every pending review, oldest first.
void CheckQueue(const LifecycleModel& m, LifecycleSut& sut) {
  std::vector<Review> expected;
  for (const int r : m.Pending()) expected.push_back(ExpectedReview(m, sut, r));
  ListReviewsRequest request;
  request.limit = 100;
  const auto queue = sut.service.ReviewQueue(ActorOf(kBob), request);
  if (!queue) RC_FAIL("ReviewQueue: " + queue.error().detail);
  ExpectSame(ReviewsOf(queue->items), expected, "review queue");
  for (const QueuedReview& item : queue->items) {
    const auto doc = sut.service.GetDocument(item.review.document_id);
    ExpectSame(item.title, doc ? doc->title : std::string("<none>"), "title of a queue item");
  }
  // Each reviewer's own queue: the pending reviews assigned to them.
  for (const int reviewer : {kBob, kDave, kFrank}) {
    std::vector<Review> assigned;
    for (const int r : m.Pending()) {
      const auto& assignees = m.reviews[r].assignees;
      if (std::find(assignees.begin(), assignees.end(), reviewer) != assignees.end()) {
        assigned.push_back(ExpectedReview(m, sut, r));
      }
    }
    request.assignee = IdOf(reviewer);
    const auto mine = sut.service.ReviewQueue(ActorOf(kBob), request);
    if (!mine) RC_FAIL("ReviewQueue(assignee): " + mine.error().detail);
    ExpectSame(ReviewsOf(mine->items), assigned, "the queue of " + IdOf(reviewer));
  }
}

// The outbox holds exactly the model's events, in order.
std::vector<OutboxEvent> CheckOutbox(const LifecycleModel& m, LifecycleSut& sut) {
  const std::vector<OutboxEvent> rows = sut.backend->OutboxRows();
  std::vector<OutboxEvent> expected;
  for (std::size_t i = 0; i < m.events.size(); ++i) {
    const ModelEvent& e = m.events[i];
    OutboxEvent event;
    event.type = e.type;
    event.document_id = sut.document_ids.at(e.document);
    event.review_id = sut.review_ids.at(e.review);
    event.version = e.version;
    event.actor_id = IdOf(e.actor);
    event.occurred_at = At(e.at);
    if (e.reviewer) event.reviewer_id = IdOf(*e.reviewer);
    if (i < rows.size()) {  // identity and order are checked below, by invariant
      event.sequence = rows[i].sequence;
      event.event_id = rows[i].event_id;
    }
    expected.push_back(std::move(event));
  }
  ExpectSame(rows, expected, "outbox");
  return rows;
}

// What holds of any history, checked on what the system returns rather than on the model:
// one pending review per document at most; no review holds more approvals than it requires, and an
// approved one exactly as many; every approved review has exactly one document.approved event, of
// the approved version, and no other review has one; event ids are unique; per document, events
// come in commit order, each review's events between its submission and its one decision.
void CheckInvariants(LifecycleSut& sut, const std::vector<OutboxEvent>& events) {
  const std::vector<Review> reviews = ReviewsOf(sut.store().ListReviews(ReviewQuery{
      .status = std::nullopt, .assignee = std::nullopt, .after = std::nullopt, .limit = 100'000}));
  std::map<DocumentId, int> pending;
  for (const Review& review : reviews) {
    if (review.status == ReviewStatus::kPending && ++pending[review.document_id] > 1) {
      RC_FAIL("document " + std::to_string(review.document_id) + " has two pending reviews");
    }
    const auto held = static_cast<std::int32_t>(review.approvals.size());
    if (held > review.required_approvals ||
        (review.status == ReviewStatus::kApproved && held != review.required_approvals)) {
      RC_FAIL("review " + std::to_string(review.id) + " (" + std::string(ToString(review.status)) +
              ") holds " + std::to_string(held) + " approvals of " +
              std::to_string(review.required_approvals));
    }
    const auto approvals = std::count_if(events.begin(), events.end(), [&](const OutboxEvent& e) {
      return e.type == EventType::kApproved && e.review_id == review.id &&
             e.version == review.document_version;
    });
    const std::int64_t expected = review.status == ReviewStatus::kApproved ? 1 : 0;
    ExpectSame(std::int64_t{approvals}, expected,
               "document.approved events of review " + std::to_string(review.id) + " (" +
                   std::string(ToString(review.status)) + ")");
  }
  const auto all_approvals = std::count_if(events.begin(), events.end(), [](const OutboxEvent& e) {
    return e.type == EventType::kApproved;
  });
  const auto approved_reviews = std::count_if(reviews.begin(), reviews.end(), [](const Review& r) {
    return r.status == ReviewStatus::kApproved;
  });
  ExpectSame(std::int64_t{all_approvals}, std::int64_t{approved_reviews},
             "document.approved events against approved reviews");

  std::set<std::string> ids;
  std::map<DocumentId, const OutboxEvent*> last;  // per document, its latest event so far
  std::map<DocumentId, ReviewId> open;            // per document, its review between its events
  std::int64_t previous_sequence = 0;
  for (const OutboxEvent& e : events) {
    if (!ids.insert(e.event_id).second) RC_FAIL("event id " + e.event_id + " used twice");
    if (e.sequence <= previous_sequence) RC_FAIL("outbox sequence not increasing at " + Show(e));
    previous_sequence = e.sequence;
    const OutboxEvent* before = last[e.document_id];
    const auto current = open.find(e.document_id);
    const bool is_open = current != open.end();
    bool follows = false;
    switch (e.type) {
      case EventType::kSubmitted:  // opens a review when none is open
        follows = !is_open;
        open[e.document_id] = e.review_id;
        break;
      case EventType::kAssigned:  // told of the open review
      case EventType::kVoted:
      case EventType::kCommented:
        follows = is_open && current->second == e.review_id;
        break;
      default:  // decides the open review
        follows = is_open && current->second == e.review_id;
        open.erase(e.document_id);
    }
    if (!follows || (before != nullptr && before->occurred_at > e.occurred_at)) {
      RC_FAIL("events of document " + std::to_string(e.document_id) +
              " out of order: " + (before ? Show(*before) : "none") + " then " + Show(e));
    }
    last[e.document_id] = &e;
  }
}

// The document list (newest first) and the review list (oldest first), paged with a random page
// size and filter, against the model.
void CheckPaging(const LifecycleModel& m, LifecycleSut& sut) {
  const int limit = *rc::gen::inRange(1, 6);
  // Each filter is left out, or one of the values (an index into them).
  constexpr DocumentStatus kStatuses[] = {DocumentStatus::kDraft, DocumentStatus::kPendingReview,
                                          DocumentStatus::kApproved, DocumentStatus::kRejected};
  constexpr int kAuthors[] = {kAlice, kCarol, kFrank, kErin};
  constexpr ReviewStatus kReviewStatuses[] = {ReviewStatus::kPending, ReviewStatus::kApproved,
                                              ReviewStatus::kRejected, ReviewStatus::kWithdrawn};
  const auto pick = [](const auto& values) -> std::optional<std::decay_t<decltype(values[0])>> {
    const int at = *rc::gen::inRange(-1, static_cast<int>(std::size(values)));
    if (at < 0) return std::nullopt;
    return values[at];
  };
  const std::optional<DocumentStatus> status = pick(kStatuses);
  const std::optional<int> author = pick(kAuthors);
  ListDocumentsRequest documents;
  documents.status = status;
  if (author) documents.author_id = IdOf(*author);
  std::vector<Document> newest_first;
  for (int d = static_cast<int>(m.documents.size()) - 1; d >= 0; --d) {
    const ModelDocument& doc = m.documents[d];
    if ((!status || doc.status == *status) && (!author || doc.author == *author)) {
      newest_first.push_back(Expected(m, sut, d));
    }
  }
  ExpectSame(AllPages<Document>(
                 documents, limit,
                 [&](const ListDocumentsRequest& r) { return sut.service.ListDocuments(r); },
                 "document list"),
             newest_first, "document list, " + std::to_string(limit) + " a page");

  const std::optional<ReviewStatus> review_status = pick(kReviewStatuses);
  ListReviewsRequest reviews;
  reviews.status = review_status;
  std::vector<Review> oldest_first;
  for (int r = 0; r < static_cast<int>(m.reviews.size()); ++r) {
    if (!review_status || m.reviews[r].status == *review_status) {
      oldest_first.push_back(ExpectedReview(m, sut, r));
    }
  }
  ExpectSame(
      ReviewsOf(AllPages<QueuedReview>(
          reviews, limit,
          [&](const ListReviewsRequest& r) { return sut.service.ReviewQueue(ActorOf(kDave), r); },
          "review list")),
      oldest_first, "review list, " + std::to_string(limit) + " a page");
}

}  // namespace docgate::lifecycle_property
