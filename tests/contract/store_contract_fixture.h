#pragma once

// What the contract suites of DocumentStore, OutboxStore and IdempotencyStore
// (app/ports/) share: document_store_contract.h, outbox_store_contract.h and
// idempotency_store_contract.h. Each is a typed suite, run against the fake and every real store so
// that they cannot drift apart.
//
// Instantiate each with a factory type F:
//   struct F {
//     F();             // an isolated, empty database of its own (temp dir, schema)
//     Stores Make();   // the database's stores (app/stores.h); outbox claims last
//                      // kContractClaimTtl
//     // A second OutboxStore on the same database, as another docgate process opens it: claims of
//     // its own, the same claim TTL. Called after Make(), destroyed before its stores.
//     std::shared_ptr<OutboxStore> AnotherInstance();
//     // Makes every outbox claim `by` older, as if that much time had passed on the claim clock.
//     void AgeClaims(std::chrono::milliseconds by);
//   };
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, DocumentStoreContract, ::testing::Types<F>);
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, OutboxStoreContract, ::testing::Types<F>);
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, IdempotencyStoreContract, ::testing::Types<F>);
// One F lives for one test; the stores it made are destroyed before it. The helpers below
// (ContractTime, ContractDocument, ...) serve the consumers' suites too
// (consumer_contract_fixture.h).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "app/ports/document_store.h"
#include "app/ports/idempotency_store.h"
#include "app/ports/outbox_store.h"
#include "app/ports/store_transaction.h"
#include "app/stores.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

// Readable failure messages (internal linkage: no clash with printers of other test files).
[[maybe_unused]] static void PrintTo(const Document& d, std::ostream* os) {
  *os << "Document{id=" << d.id << " title=" << d.title << " status=" << ToString(d.status) << " v"
      << d.version << " author=" << d.author_id << " review=" << d.current_review_id.value_or(-1)
      << " approved_v=" << d.approved_version.value_or(-1)
      << " approved_at=" << (d.approved_at ? d.approved_at->time_since_epoch().count() : -1)
      << " ingest=" << ToString(d.ingest_status)
      << " created=" << d.created_at.time_since_epoch().count()
      << " updated=" << d.updated_at.time_since_epoch().count() << "}";
}

[[maybe_unused]] static void PrintTo(const Review& r, std::ostream* os) {
  *os << "Review{id=" << r.id << " doc=" << r.document_id << " v" << r.document_version << " "
      << ToString(r.status) << " by=" << r.submitted_by
      << " at=" << r.submitted_at.time_since_epoch().count()
      << " decided_by=" << r.decided_by.value_or("-")
      << " decided_at=" << (r.decided_at ? r.decided_at->time_since_epoch().count() : -1)
      << " comment=" << r.comment.value_or("-") << " required=" << r.required_approvals
      << " approvals=[";
  for (const Approval& a : r.approvals) {
    *os << a.reviewer_id << "@" << a.decided_at.time_since_epoch().count() << ":"
        << a.comment.value_or("-") << " ";
  }
  *os << "]}";
}

[[maybe_unused]] static void PrintTo(const OutboxEvent& e, std::ostream* os) {
  *os << "OutboxEvent{seq=" << e.sequence << " " << e.event_id << " " << ToString(e.type)
      << " doc=" << e.document_id << " review=" << e.review_id << " v" << e.version
      << " actor=" << e.actor_id << " at=" << e.occurred_at.time_since_epoch().count() << "}";
}

// How long the contract's stores claim outbox rows: long enough that the real time a test takes
// does not count, so that only AgeClaims moves claims towards their end.
inline constexpr std::chrono::milliseconds kContractClaimTtl{60'000};

// 2026-12-22T...: milliseconds that are not a whole second, so truncation would show.
inline TimePoint ContractTime(std::int64_t offset_ms = 0) {
  return TimePoint{std::chrono::milliseconds{1'798'000'000'123 + offset_ms}};
}

inline Document ContractDocument(const UserId& author = "alice",
                                 DocumentStatus status = DocumentStatus::kDraft) {
  Document doc;
  doc.title = "Onboarding guide";
  doc.status = status;
  doc.author_id = author;
  doc.created_at = ContractTime();
  doc.updated_at = ContractTime();
  return doc;
}

inline Review ContractReview(DocumentId document_id, ReviewStatus status = ReviewStatus::kPending) {
  Review review;
  review.document_id = document_id;
  review.document_version = 1;
  review.status = status;
  review.submitted_by = "alice";
  review.submitted_at = ContractTime(10);
  return review;
}

inline DocumentVersion ContractVersion(DocumentId document_id, std::int32_t version,
                                       std::string content, UserId editor = "alice") {
  return DocumentVersion{document_id,        version,           "Onboarding guide",
                         std::move(content), std::move(editor), ContractTime(5)};
}

inline OutboxEvent ContractEvent(const std::string& event_id, DocumentId document_id = 1) {
  OutboxEvent event;
  event.event_id = event_id;
  event.type = EventType::kSubmitted;
  event.document_id = document_id;
  event.review_id = 7;
  event.version = 1;
  event.actor_id = "alice";
  event.occurred_at = ContractTime(20);
  return event;
}

// The fixture of the three suites: the ports of one Stores and helpers that write through them.
template <typename Factory>
class StoreContractFixture : public ::testing::Test {
 protected:
  DocumentStore& store() { return *stores_.documents; }
  OutboxStore& outbox() { return *stores_.outbox; }
  IdempotencyStore& keys() { return *stores_.idempotency; }

  // Reserves (caller, key) for `owner` at ContractTime(at) with a lease of 30 s.
  std::optional<IdempotencyRecord> Reserve(const std::string& caller, const std::string& key,
                                           const std::string& fingerprint, const std::string& owner,
                                           std::int64_t at = 0) {
    return keys().ReserveIdempotencyKey(caller, key, fingerprint, owner, ContractTime(at),
                                        ContractTime(at + 30'000));
  }

  // Runs `write` in a transaction of its own and commits it.
  template <typename Write>
  void Committed(Write&& write) {
    auto tx = store().Begin();
    write(*tx);
    tx->Commit();
  }
  // Each commits on its own; Add returns the row with its assigned id.
  Document Add(Document doc) {
    Committed([&](StoreTransaction& tx) { doc.id = tx.InsertDocument(doc); });
    return doc;
  }
  Review Add(Review review) {
    Committed([&](StoreTransaction& tx) { review.id = tx.InsertReview(review); });
    return review;
  }
  void Update(const Document& doc) {
    Committed([&](StoreTransaction& tx) { tx.UpdateDocument(doc); });
  }
  void Update(const Review& review) {
    Committed([&](StoreTransaction& tx) { tx.UpdateReview(review); });
  }
  void Put(DocumentId id, std::int32_t version, const std::string& content,
           const UserId& editor = "alice") {
    Committed([&](StoreTransaction& tx) {
      tx.PutVersion(ContractVersion(id, version, content, editor));
    });
  }
  void Append(const std::vector<OutboxEvent>& events) {
    Committed([&](StoreTransaction& tx) {
      for (const OutboxEvent& event : events) tx.AppendEvent(event);
    });
  }
  std::vector<DocumentId> DocumentIds(const DocumentQuery& query) {
    std::vector<DocumentId> ids;
    for (const Document& doc : store().ListDocuments(query)) ids.push_back(doc.id);
    return ids;
  }
  std::vector<ReviewId> ReviewIds(const ReviewQuery& query) {
    std::vector<ReviewId> ids;
    for (const QueuedReview& item : store().ListReviews(query)) ids.push_back(item.review.id);
    return ids;
  }
  std::vector<std::string> PendingEventIds(int limit) {
    return EventIds(outbox().ClaimPending(limit));
  }
  static std::vector<std::string> EventIds(const std::vector<OutboxEvent>& events) {
    std::vector<std::string> ids;
    for (const OutboxEvent& event : events) ids.push_back(event.event_id);
    return ids;
  }

  Factory factory_;
  Stores stores_ = factory_.Make();
};

}  // namespace docgate
