#pragma once

// The contract of DocumentStore, OutboxStore and IdempotencyStore (app/document_store.h) as one
// typed suite, run against the fake and every real store so that they cannot drift apart.
//
// Instantiate it with a factory type F:
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
// One F lives for one test; the stores it made are destroyed before it.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/document_store.h"
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
      << " comment=" << r.comment.value_or("-") << "}";
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

template <typename Factory>
class DocumentStoreContract : public ::testing::Test {
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
  void Put(DocumentId id, std::int32_t version, const std::string &content,
           const UserId &editor = "alice") {
    Committed([&](StoreTransaction &tx) {
      tx.PutContent(id, version, content, editor, ContractTime());
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
    for (const Review& review : store().ListReviews(query)) ids.push_back(review.id);
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

TYPED_TEST_SUITE_P(DocumentStoreContract);

TYPED_TEST_P(DocumentStoreContract, DocumentRoundTripsEveryField) {
  Document doc = ContractDocument("\xC3\xA9lodie", DocumentStatus::kApproved);
  doc.title = "Guide \xE2\x80\x94 \xF0\x9F\x9A\x80 'quoted' \"too\"";
  doc.version = 3;
  doc.current_review_id = 40;
  doc.approved_version = 2;
  doc.approved_at = ContractTime(5);
  doc.ingest_status = IngestStatus::kDone;
  doc.updated_at = ContractTime(9);
  const Document stored = this->Add(doc);
  EXPECT_EQ(this->store().FindDocument(stored.id), stored);
}

TYPED_TEST_P(DocumentStoreContract, DocumentWithoutOptionalsRoundTrips) {
  const Document stored = this->Add(ContractDocument());
  const auto found = this->store().FindDocument(stored.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, stored);
  EXPECT_FALSE(found->current_review_id);
  EXPECT_FALSE(found->approved_version);
  EXPECT_FALSE(found->approved_at);
}

TYPED_TEST_P(DocumentStoreContract, ReviewRoundTripsEveryField) {
  const Document doc = this->Add(ContractDocument());
  Review review = ContractReview(doc.id, ReviewStatus::kRejected);
  review.document_version = 4;
  review.decided_by = "bob";
  review.decided_at = ContractTime(30);
  review.comment = "needs a \xE2\x80\x9Csection\xE2\x80\x9D on setup";
  const Review stored = this->Add(review);
  EXPECT_EQ(this->store().FindReview(stored.id), stored);
}

TYPED_TEST_P(DocumentStoreContract, PendingReviewWithoutDecisionRoundTrips) {
  const Review stored = this->Add(ContractReview(this->Add(ContractDocument()).id));
  const auto found = this->store().FindReview(stored.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, stored);
  EXPECT_FALSE(found->decided_by);
  EXPECT_FALSE(found->decided_at);
  EXPECT_FALSE(found->comment);
}

TYPED_TEST_P(DocumentStoreContract, InsertIgnoresGivenIdsAndAssignsAscendingOnes) {
  Document doc = ContractDocument();
  doc.id = 999;
  const DocumentId first = this->Add(doc).id;
  const DocumentId second = this->Add(doc).id;
  EXPECT_GT(second, first);
  EXPECT_NE(first, 999);
  Review review = ContractReview(first, ReviewStatus::kApproved);
  review.id = 999;
  const ReviewId first_review = this->Add(review).id;
  EXPECT_GT(this->Add(review).id, first_review);
}

TYPED_TEST_P(DocumentStoreContract, ContentRoundTripsExactBytes) {
  const std::string content = "line 1\r\nline 2\t\xE2\x9C\x93 'single' \"double\" \\ %_";
  const DocumentId id = this->Add(ContractDocument()).id;
  this->Put(id, 1, content);
  EXPECT_EQ(this->store().FindContent(id, 1), content);
}

TYPED_TEST_P(DocumentStoreContract, EditorsAreListedOncePerRangeOfVersions) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  this->Put(id, 1, "v1", "alice");
  this->Put(id, 2, "v2", "\u5f20\u4e09"); // 张三
  this->Put(id, 3, "v3", "carol");
  this->Put(id, 4, "v4", "\u5f20\u4e09");
  this->Put(other, 1, "other", "mallory");
  const auto editors = [&](std::int32_t after, std::int32_t up_to) {
    auto tx = this->store().Begin();
    std::vector<UserId> found = tx->ListEditors(id, after, up_to);
    std::sort(found.begin(), found.end());
    return found;
  };
  EXPECT_EQ(editors(0, 4),
            (std::vector<UserId>{"alice", "carol", "\u5f20\u4e09"}));
  EXPECT_EQ(editors(1, 3), (std::vector<UserId>{"carol", "\u5f20\u4e09"}));
  EXPECT_EQ(editors(3, 3), std::vector<UserId>{});
  EXPECT_EQ(editors(0, 1), std::vector<UserId>{"alice"});
}

TYPED_TEST_P(DocumentStoreContract, ContentIsKeptPerVersion) {
  const DocumentId id = this->Add(ContractDocument()).id;
  this->Put(id, 1, "first");
  this->Put(id, 2, "second");
  this->Put(id, 3, "");
  EXPECT_EQ(this->store().FindContent(id, 1), "first");
  EXPECT_EQ(this->store().FindContent(id, 2), "second");
  EXPECT_EQ(this->store().FindContent(id, 3), "");
  EXPECT_EQ(this->store().FindContent(id, 4), std::nullopt);
}

TYPED_TEST_P(DocumentStoreContract, ContentOfAVersionIsNeverOverwritten) {
  const DocumentId id = this->Add(ContractDocument()).id;
  this->Put(id, 1, "first");
  EXPECT_THROW(this->Put(id, 1, "again"), StorageError);
  EXPECT_EQ(this->store().FindContent(id, 1), "first");
}

TYPED_TEST_P(DocumentStoreContract, MissingRowsAreNullopt) {
  EXPECT_EQ(this->store().FindDocument(12345), std::nullopt);
  EXPECT_EQ(this->store().FindReview(12345), std::nullopt);
  EXPECT_EQ(this->store().FindContent(12345, 1), std::nullopt);
  EXPECT_TRUE(this->store().ListDocumentReviews(12345).empty());
}

TYPED_TEST_P(DocumentStoreContract, LockAndReadOfMissingIdAreNullopt) {
  auto tx = this->store().Begin();
  EXPECT_EQ(tx->LockDocument(12345), std::nullopt);
  EXPECT_EQ(tx->LockReview(12345), std::nullopt);
  EXPECT_EQ(tx->ReadDocument(12345), std::nullopt);
  EXPECT_EQ(tx->ReadContent(12345, 1), std::nullopt);
}

TYPED_TEST_P(DocumentStoreContract, TransactionSeesItsOwnWrites) {
  auto tx = this->store().Begin();
  Document doc = ContractDocument();
  doc.id = tx->InsertDocument(doc);
  Review review = ContractReview(doc.id);
  review.id = tx->InsertReview(review);
  tx->PutContent(doc.id, 1, "body", "alice", ContractTime());
  EXPECT_EQ(tx->LockDocument(doc.id), doc);
  EXPECT_EQ(tx->ReadDocument(doc.id), doc);
  EXPECT_EQ(tx->LockReview(review.id), review);
  EXPECT_EQ(tx->ReadContent(doc.id, 1), "body");
}

TYPED_TEST_P(DocumentStoreContract, UncommittedWritesAreInvisibleOutside) {
  auto tx = this->store().Begin();
  const DocumentId id = tx->InsertDocument(ContractDocument());
  tx->AppendEvent(ContractEvent("e-1", id));
  EXPECT_EQ(this->store().FindDocument(id), std::nullopt);
  EXPECT_TRUE(this->store().ListDocuments({}).empty());
  EXPECT_TRUE(this->outbox().ClaimPending(10).empty());
}

TYPED_TEST_P(DocumentStoreContract, CommitMakesEveryWriteVisible) {
  auto tx = this->store().Begin();
  Document doc = ContractDocument();
  doc.id = tx->InsertDocument(doc);
  Review review = ContractReview(doc.id);
  review.id = tx->InsertReview(review);
  tx->PutContent(doc.id, 1, "body", "alice", ContractTime());
  tx->AppendEvent(ContractEvent("e-1", doc.id));
  tx->Commit();
  EXPECT_EQ(this->store().FindDocument(doc.id), doc);
  EXPECT_EQ(this->store().FindReview(review.id), review);
  EXPECT_EQ(this->store().FindContent(doc.id, 1), "body");
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-1"});
}

TYPED_TEST_P(DocumentStoreContract, DestructionWithoutCommitDiscardsInserts) {
  DocumentId id = 0;
  ReviewId review_id = 0;
  {
    auto tx = this->store().Begin();
    id = tx->InsertDocument(ContractDocument());
    review_id = tx->InsertReview(ContractReview(id));
    tx->PutContent(id, 1, "body", "alice", ContractTime());
    tx->AppendEvent(ContractEvent("e-1", id));
  }
  EXPECT_EQ(this->store().FindDocument(id), std::nullopt);
  EXPECT_EQ(this->store().FindReview(review_id), std::nullopt);
  EXPECT_EQ(this->store().FindContent(id, 1), std::nullopt);
  EXPECT_TRUE(this->store().ListDocuments({}).empty());
  EXPECT_TRUE(this->store().ListReviews({}).empty());
  EXPECT_TRUE(this->outbox().ClaimPending(10).empty());
}

TYPED_TEST_P(DocumentStoreContract, DestructionWithoutCommitDiscardsUpdates) {
  const Document doc = this->Add(ContractDocument());
  const Review review = this->Add(ContractReview(doc.id));
  {
    auto tx = this->store().Begin();
    Document changed = doc;
    changed.title = "changed";
    changed.version = 2;
    tx->UpdateDocument(changed);
    Review decided = review;
    decided.status = ReviewStatus::kApproved;
    tx->UpdateReview(decided);
    tx->PutContent(doc.id, 2, "v2", "alice", ContractTime());
  }
  EXPECT_EQ(this->store().FindDocument(doc.id), doc);
  EXPECT_EQ(this->store().FindReview(review.id), review);
  EXPECT_EQ(this->store().FindContent(doc.id, 2), std::nullopt);
}

TYPED_TEST_P(DocumentStoreContract, TransactionIsUnusableAfterCommit) {
  auto tx = this->store().Begin();
  tx->Commit();
  EXPECT_THROW(tx->InsertDocument(ContractDocument()), StorageError);
  EXPECT_THROW(tx->Commit(), StorageError);
}

TYPED_TEST_P(DocumentStoreContract, NextTransactionBeginsAfterOneEnds) {
  { auto rolled_back = this->store().Begin(); }
  auto committed = this->store().Begin();
  committed->Commit();
  committed.reset();
  auto again = this->store().Begin();
  EXPECT_EQ(again->LockDocument(1), std::nullopt);
}

TYPED_TEST_P(DocumentStoreContract, UpdateDocumentOverwritesMutableColumns) {
  const Document doc = this->Add(ContractDocument());
  Document changed = doc;
  changed.title = "Renamed";
  changed.status = DocumentStatus::kApproved;
  changed.version = 5;
  changed.current_review_id = 3;
  changed.approved_version = 4;
  changed.approved_at = ContractTime(100);
  changed.ingest_status = IngestStatus::kFailed;
  changed.updated_at = ContractTime(101);
  this->Update(changed);
  EXPECT_EQ(this->store().FindDocument(doc.id), changed);
}

TYPED_TEST_P(DocumentStoreContract, UpdateDocumentClearsOptionals) {
  Document doc = ContractDocument();
  doc.current_review_id = 3;
  doc.approved_version = 1;
  doc.approved_at = ContractTime(1);
  doc = this->Add(doc);
  doc.current_review_id.reset();
  doc.approved_version.reset();
  doc.approved_at.reset();
  this->Update(doc);
  EXPECT_EQ(this->store().FindDocument(doc.id), doc);
}

TYPED_TEST_P(DocumentStoreContract, UpdateDocumentKeepsAuthorAndCreationTime) {
  const Document doc = this->Add(ContractDocument("alice"));
  Document changed = doc;
  changed.author_id = "mallory";
  changed.created_at = ContractTime(500);
  this->Update(changed);
  EXPECT_EQ(this->store().FindDocument(doc.id), doc);
}

TYPED_TEST_P(DocumentStoreContract, UpdateReviewRecordsTheDecisionOnly) {
  const Document doc = this->Add(ContractDocument());
  const Review review = this->Add(ContractReview(doc.id));
  Review decided = review;
  decided.status = ReviewStatus::kApproved;
  decided.decided_by = "bob";
  decided.decided_at = ContractTime(60);
  decided.comment = "fine";
  Review tampered = decided;
  tampered.document_version = 9;
  tampered.submitted_by = "mallory";
  tampered.submitted_at = ContractTime(999);
  this->Update(tampered);
  EXPECT_EQ(this->store().FindReview(review.id), decided);
}

TYPED_TEST_P(DocumentStoreContract, UpdateOfMissingRowThrowsStorageError) {
  Document doc = ContractDocument();
  doc.id = 12345;
  Review review = ContractReview(1);
  review.id = 12345;
  EXPECT_THROW(this->store().Begin()->UpdateDocument(doc), StorageError);
  EXPECT_THROW(this->store().Begin()->UpdateReview(review), StorageError);
}

TYPED_TEST_P(DocumentStoreContract, SecondPendingReviewOfADocumentThrowsStorageError) {
  const DocumentId id = this->Add(ContractDocument()).id;
  this->Add(ContractReview(id));
  auto tx = this->store().Begin();
  EXPECT_THROW(tx->InsertReview(ContractReview(id)), StorageError);
}

TYPED_TEST_P(DocumentStoreContract, ReopeningADecidedReviewBesideAPendingOneThrowsStorageError) {
  const DocumentId id = this->Add(ContractDocument()).id;
  Review decided = this->Add(ContractReview(id, ReviewStatus::kWithdrawn));
  this->Add(ContractReview(id));
  decided.status = ReviewStatus::kPending;
  auto tx = this->store().Begin();
  EXPECT_THROW(tx->UpdateReview(decided), StorageError);
}

TYPED_TEST_P(DocumentStoreContract, NewPendingReviewIsAllowedOnceTheLastIsDecided) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  Review first = this->Add(ContractReview(id));
  this->Add(ContractReview(other));
  first.status = ReviewStatus::kRejected;
  auto tx = this->store().Begin();
  tx->UpdateReview(first);
  const ReviewId second = tx->InsertReview(ContractReview(id));
  tx->Commit();
  EXPECT_EQ(this->store().FindReview(second)->status, ReviewStatus::kPending);
}

TYPED_TEST_P(DocumentStoreContract, ReviewOrContentOfMissingDocumentThrowsStorageError) {
  EXPECT_THROW(this->store().Begin()->InsertReview(ContractReview(12345)), StorageError);
  EXPECT_THROW(this->store().Begin()->PutContent(12345, 1, "orphan", "alice",
                                                 ContractTime()),
               StorageError);
}

TYPED_TEST_P(DocumentStoreContract, DuplicateEventIdThrowsStorageError) {
  this->Append({ContractEvent("e-1")});
  auto tx = this->store().Begin();
  EXPECT_THROW(tx->AppendEvent(ContractEvent("e-1")), StorageError);
}

TYPED_TEST_P(DocumentStoreContract, ListDocumentsIsNewestFirst) {
  const DocumentId a = this->Add(ContractDocument()).id;
  const DocumentId b = this->Add(ContractDocument()).id;
  const DocumentId c = this->Add(ContractDocument()).id;
  EXPECT_EQ(this->DocumentIds({}), (std::vector<DocumentId>{c, b, a}));
}

TYPED_TEST_P(DocumentStoreContract, ListDocumentsFiltersByStatusAndAuthor) {
  const DocumentId alice_draft = this->Add(ContractDocument("alice")).id;
  const DocumentId bob_draft = this->Add(ContractDocument("bob")).id;
  const DocumentId alice_approved =
      this->Add(ContractDocument("alice", DocumentStatus::kApproved)).id;
  this->Add(ContractDocument("bob", DocumentStatus::kRejected));
  DocumentQuery drafts;
  drafts.status = DocumentStatus::kDraft;
  DocumentQuery alices;
  alices.author_id = "alice";
  DocumentQuery alice_drafts = drafts;
  alice_drafts.author_id = "alice";
  EXPECT_EQ(this->DocumentIds(drafts), (std::vector<DocumentId>{bob_draft, alice_draft}));
  EXPECT_EQ(this->DocumentIds(alices), (std::vector<DocumentId>{alice_approved, alice_draft}));
  EXPECT_EQ(this->DocumentIds(alice_drafts), (std::vector<DocumentId>{alice_draft}));
}

TYPED_TEST_P(DocumentStoreContract, ListDocumentsBeforeIsAnExclusiveCursor) {
  const DocumentId a = this->Add(ContractDocument()).id;
  const DocumentId b = this->Add(ContractDocument()).id;
  const DocumentId c = this->Add(ContractDocument()).id;
  DocumentQuery query;
  query.before = c;
  EXPECT_EQ(this->DocumentIds(query), (std::vector<DocumentId>{b, a}));
  query.before = a;
  EXPECT_TRUE(this->DocumentIds(query).empty());
}

TYPED_TEST_P(DocumentStoreContract, ListDocumentsPagesWithLimitAndCursor) {
  std::vector<DocumentId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(this->Add(ContractDocument("alice")).id);
  this->Add(ContractDocument("bob"));
  DocumentQuery query;
  query.author_id = "alice";
  query.limit = 2;
  EXPECT_EQ(this->DocumentIds(query), (std::vector<DocumentId>{ids[4], ids[3]}));
  query.before = ids[3];
  EXPECT_EQ(this->DocumentIds(query), (std::vector<DocumentId>{ids[2], ids[1]}));
  query.before = ids[1];
  EXPECT_EQ(this->DocumentIds(query), (std::vector<DocumentId>{ids[0]}));
}

TYPED_TEST_P(DocumentStoreContract, NonPositiveLimitReturnsNothing) {
  this->Append({ContractEvent("e-1")});
  this->Add(ContractReview(this->Add(ContractDocument()).id));
  for (const int limit : {0, -1}) {
    DocumentQuery documents;
    documents.limit = limit;
    ReviewQuery reviews;
    reviews.limit = limit;
    EXPECT_TRUE(this->store().ListDocuments(documents).empty()) << limit;
    EXPECT_TRUE(this->store().ListReviews(reviews).empty()) << limit;
    EXPECT_TRUE(this->outbox().ClaimPending(limit).empty()) << limit;
  }
}

TYPED_TEST_P(DocumentStoreContract, ListReviewsIsOldestFirstAndFiltersByStatus) {
  const DocumentId d1 = this->Add(ContractDocument()).id;
  const DocumentId d2 = this->Add(ContractDocument()).id;
  const ReviewId r1 = this->Add(ContractReview(d1, ReviewStatus::kWithdrawn)).id;
  const ReviewId r2 = this->Add(ContractReview(d1)).id;
  const ReviewId r3 = this->Add(ContractReview(d2, ReviewStatus::kApproved)).id;
  const ReviewId r4 = this->Add(ContractReview(d2)).id;
  ReviewQuery pending;
  pending.status = ReviewStatus::kPending;
  EXPECT_EQ(this->ReviewIds({}), (std::vector<ReviewId>{r1, r2, r3, r4}));
  EXPECT_EQ(this->ReviewIds(pending), (std::vector<ReviewId>{r2, r4}));
}

TYPED_TEST_P(DocumentStoreContract, ListReviewsPagesWithLimitAndExclusiveAfter) {
  std::vector<ReviewId> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(this->Add(ContractReview(this->Add(ContractDocument()).id)).id);
  ReviewQuery query;
  query.status = ReviewStatus::kPending;
  query.limit = 2;
  EXPECT_EQ(this->ReviewIds(query), (std::vector<ReviewId>{ids[0], ids[1]}));
  query.after = ids[1];
  EXPECT_EQ(this->ReviewIds(query), (std::vector<ReviewId>{ids[2], ids[3]}));
  query.after = ids[3];
  EXPECT_EQ(this->ReviewIds(query), (std::vector<ReviewId>{ids[4]}));
  query.after = ids[4];
  EXPECT_TRUE(this->ReviewIds(query).empty());
}

TYPED_TEST_P(DocumentStoreContract, ListDocumentReviewsIsNewestFirstForThatDocumentOnly) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  const Review r1 = this->Add(ContractReview(id, ReviewStatus::kRejected));
  this->Add(ContractReview(other));
  const Review r2 = this->Add(ContractReview(id, ReviewStatus::kWithdrawn));
  const Review r3 = this->Add(ContractReview(id));
  EXPECT_EQ(this->store().ListDocumentReviews(id), (std::vector<Review>{r3, r2, r1}));
}

TYPED_TEST_P(DocumentStoreContract, EventsRoundTripInCommitOrderWithAscendingSequences) {
  OutboxEvent approved = ContractEvent("e-2", 17);
  approved.type = EventType::kApproved;
  approved.review_id = 40;
  approved.version = 3;
  approved.actor_id = "bob";
  approved.occurred_at = ContractTime(77);
  this->Append({ContractEvent("e-1", 1)});
  this->Append({approved, ContractEvent("e-3", 3)});
  const std::vector<OutboxEvent> events = this->outbox().ClaimPending(10);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_LT(events[0].sequence, events[1].sequence);
  EXPECT_LT(events[1].sequence, events[2].sequence);
  approved.sequence = events[1].sequence;
  EXPECT_EQ(events[1], approved);
  EXPECT_EQ(events[0].event_id, "e-1");
  EXPECT_EQ(events[2].event_id, "e-3");
}

TYPED_TEST_P(DocumentStoreContract, ClaimPendingStopsAtLimit) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3)});
  EXPECT_EQ(this->PendingEventIds(2), (std::vector<std::string>{"e-1", "e-2"}));
}

TYPED_TEST_P(DocumentStoreContract, MarkDeliveredEventsAreNeverPendingAgain) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3)});
  const std::vector<OutboxEvent> events = this->outbox().ClaimPending(10);
  ASSERT_EQ(events.size(), 3u);
  this->outbox().MarkDelivered({events[0].sequence, events[2].sequence}, ContractTime(90));
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-2"});
  this->outbox().MarkDelivered({events[0].sequence, events[1].sequence}, ContractTime(91));
  this->outbox().MarkDelivered({}, ContractTime(92));
  EXPECT_TRUE(this->outbox().ClaimPending(10).empty());
}

TYPED_TEST_P(DocumentStoreContract, ClaimPendingHandsOutOnlyEachDocumentsOldestUndeliveredEvent) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 1), ContractEvent("e-3", 2)});
  this->Append({ContractEvent("e-4", 1)});
  const std::vector<OutboxEvent> heads = this->outbox().ClaimPending(10);
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[0].event_id, "e-1");
  EXPECT_EQ(heads[1].event_id, "e-3");
  this->outbox().MarkDelivered({heads[0].sequence}, ContractTime(90));
  EXPECT_EQ(this->PendingEventIds(10), (std::vector<std::string>{"e-2", "e-3"}));
}

TYPED_TEST_P(DocumentStoreContract, DeferredEventWaitsUntilDueAndHoldsItsDocumentBack) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 1), ContractEvent("e-3", 2)});
  const std::vector<OutboxEvent> heads = this->outbox().ClaimPending(10);
  ASSERT_EQ(heads.size(), 2u);
  this->outbox().Defer({heads[0].sequence}, std::chrono::hours(1), std::chrono::hours(2),
                       "unroutable");
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-3"});
  EXPECT_EQ(this->outbox().Backlog().pending, 3);
}

TYPED_TEST_P(DocumentStoreContract, DeferWithoutDelayMakesTheEventClaimableAgain) {
  this->Append({ContractEvent("e-1", 1)});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 1u);
  this->outbox().Defer({claimed[0].sequence}, std::chrono::milliseconds(0),
                       std::chrono::milliseconds(0), "nacked");
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-1"});
  this->outbox().Defer({}, std::chrono::hours(1), std::chrono::hours(1), "nothing");
}

TYPED_TEST_P(DocumentStoreContract, PruneDeletesDeliveredEventsBeforeTheCutoffOldestFirst) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3),
                ContractEvent("e-4", 4)});
  const std::vector<OutboxEvent> events = this->outbox().ClaimPending(10);
  ASSERT_EQ(events.size(), 4u);
  this->outbox().MarkDelivered({events[2].sequence}, ContractTime(10));
  this->outbox().MarkDelivered({events[0].sequence}, ContractTime(20));
  this->outbox().MarkDelivered({events[1].sequence}, ContractTime(30));
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(30), 1), 1);  // e-3, delivered first
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(30), 10), 1);  // e-1; e-2 is not older
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(30), 10), 0);
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(99), 0), 0);
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(99), 10), 1);  // e-2; e-4 is pending
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-4"});
}

TYPED_TEST_P(DocumentStoreContract, BacklogCountsUndeliveredEventsAndTheOldest) {
  EXPECT_EQ(this->outbox().Backlog().pending, 0);
  EXPECT_EQ(this->outbox().Backlog().oldest_occurred_at, std::nullopt);
  OutboxEvent older = ContractEvent("e-2", 2);
  older.occurred_at = ContractTime(5);
  OutboxEvent newer = ContractEvent("e-1", 1);
  newer.occurred_at = ContractTime(50);
  this->Append({newer, older});
  const OutboxBacklog backlog = this->outbox().Backlog();
  EXPECT_EQ(backlog.pending, 2);
  EXPECT_EQ(backlog.oldest_occurred_at, ContractTime(5));
}

TYPED_TEST_P(DocumentStoreContract, MarkDeliveredIgnoresUnknownSequences) {
  this->Append({ContractEvent("e-1")});
  this->outbox().MarkDelivered({12345}, ContractTime(90));
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-1"});
}

TYPED_TEST_P(DocumentStoreContract, AnotherInstanceNeverGetsClaimedRowsUntilTheirClaimRunsOut) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3)});
  const auto other = this->factory_.AnotherInstance();
  ASSERT_EQ(this->PendingEventIds(2), (std::vector<std::string>{"e-1", "e-2"}));
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)), std::vector<std::string>{"e-3"});
  this->factory_.AgeClaims(kContractClaimTtl - std::chrono::seconds(1));
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)), std::vector<std::string>{"e-3"})
      << "its own claim comes back, the others' stay theirs";
  this->factory_.AgeClaims(std::chrono::seconds(2));
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)),
            (std::vector<std::string>{"e-1", "e-2", "e-3"}));
  EXPECT_TRUE(this->outbox().ClaimPending(10).empty());
}

TYPED_TEST_P(DocumentStoreContract, RenewedClaimsOutlastTheirFirstTtlWhileRenewed) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3)});
  const auto other = this->factory_.AnotherInstance();
  EXPECT_EQ(this->outbox().RenewClaims(), 0) << "nothing claimed yet";
  ASSERT_EQ(this->PendingEventIds(2), (std::vector<std::string>{"e-1", "e-2"}));
  for (int half_ttls = 1; half_ttls <= 3; ++half_ttls) {
    this->factory_.AgeClaims(kContractClaimTtl / 2);
    EXPECT_EQ(this->outbox().RenewClaims(), 2);
    EXPECT_EQ(this->EventIds(other->ClaimPending(10)), std::vector<std::string>{"e-3"})
        << "after " << half_ttls << " half claim TTLs";
  }
  this->factory_.AgeClaims(kContractClaimTtl + std::chrono::seconds(1));  // renewals stopped
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)),
            (std::vector<std::string>{"e-1", "e-2", "e-3"}));
  EXPECT_EQ(this->outbox().RenewClaims(), 0) << "taken over: no longer this instance's";
  EXPECT_TRUE(this->outbox().ClaimPending(10).empty());
}

TYPED_TEST_P(DocumentStoreContract, AClaimThatRanOutUntakenIsRenewed) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2)});
  const auto other = this->factory_.AnotherInstance();
  ASSERT_EQ(this->outbox().ClaimPending(10).size(), 2u);
  this->factory_.AgeClaims(kContractClaimTtl + std::chrono::seconds(1));
  EXPECT_EQ(this->outbox().RenewClaims(), 2);
  EXPECT_TRUE(other->ClaimPending(10).empty());
}

TYPED_TEST_P(DocumentStoreContract, RenewalCountsOnlyUndeliveredRowsThisInstanceStillClaims) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3),
                ContractEvent("e-4", 4)});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 4u);
  this->outbox().MarkDelivered({claimed[0].sequence}, ContractTime(90));
  this->outbox().Defer({claimed[1].sequence}, std::chrono::hours(1), std::chrono::hours(2),
                       "unroutable");
  EXPECT_EQ(this->outbox().RenewClaims(), 2);
  this->outbox().ReleaseClaims();
  EXPECT_EQ(this->outbox().RenewClaims(), 0);
  const auto other = this->factory_.AnotherInstance();
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)), (std::vector<std::string>{"e-3", "e-4"}))
      << "released: claimable by anyone at once";
}

TYPED_TEST_P(DocumentStoreContract, PingAnswersTrue) { EXPECT_TRUE(this->store().Ping()); }

// Writers serialize: read-modify-write increments under Begin/LockDocument lose no update.
TYPED_TEST_P(DocumentStoreContract, ConcurrentIncrementsEndWithTheExactCount) {
  constexpr int kThreads = 8;
  constexpr int kIncrements = 25;
  const DocumentId id = this->Add(ContractDocument()).id;
  std::atomic<int> committed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        auto tx = this->store().Begin();
        Document doc = *tx->LockDocument(id);
        doc.version += 1;
        tx->UpdateDocument(doc);
        tx->Commit();
        ++committed;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(committed.load(), kThreads * kIncrements);
  EXPECT_EQ(this->store().FindDocument(id)->version, 1 + kThreads * kIncrements);
}

TYPED_TEST_P(DocumentStoreContract, ReservingAFreeKeyWinsAndTheNextReservationSeesItInFlight) {
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-b", 10);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->fingerprint, "fp-1");
  EXPECT_EQ(seen->response, std::nullopt);
  EXPECT_EQ(seen->expires_at, ContractTime(30'000));
  // The losing reservation changed nothing: the record is still owner-a's.
  EXPECT_TRUE(
      this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-a", "r", ContractTime(1)));
}

TYPED_TEST_P(DocumentStoreContract, KeysArePerCaller) {
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  EXPECT_EQ(this->Reserve("carol", "k-1", "fp-2", "owner-c"), std::nullopt);
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-x")->fingerprint, "fp-1");
  EXPECT_EQ(this->Reserve("carol", "k-1", "fp-1", "owner-x")->fingerprint, "fp-2");
}

TYPED_TEST_P(DocumentStoreContract, AnExpiredRecordIsReservableAgain) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  ASSERT_TRUE(this->Reserve("alice", "k-1", "fp-1", "owner-b", 29'999));
  // expires_at <= now: the lease has run out, the key is free.
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-2", "owner-b", 30'000), std::nullopt);
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-c", 30'001)->fingerprint, "fp-2");
  // A completed record, too, once its TTL is over.
  ASSERT_TRUE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-b", "done",
                                                     ContractTime(40'000)));
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-c", 39'999)->response, "done");
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-3", "owner-d", 40'000), std::nullopt);
}

TYPED_TEST_P(DocumentStoreContract, ConcurrentReservationsOfOneKeyHaveExactlyOneWinner) {
  constexpr int kThreads = 8;
  std::atomic<int> winners{0};
  std::atomic<int> in_flight{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-" + std::to_string(t));
      if (!seen) {
        ++winners;
      } else if (!seen->response && seen->fingerprint == "fp-1") {
        ++in_flight;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(in_flight.load(), kThreads - 1);
}

TYPED_TEST_P(DocumentStoreContract, CompletionInATransactionCommitsWithTheEffect) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  DocumentId id = 0;
  this->Committed([&](StoreTransaction& tx) {
    id = tx.InsertDocument(ContractDocument());
    tx.CompleteIdempotentRequest("alice", "k-1", "owner-a", "{\"status\":201}",
                                 ContractTime(86'400'000));
  });
  EXPECT_TRUE(this->store().FindDocument(id));
  const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-b", 50'000);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->response, "{\"status\":201}");
  EXPECT_EQ(seen->expires_at, ContractTime(86'400'000));
}

TYPED_TEST_P(DocumentStoreContract, CompletionInATransactionRollsBackWithIt) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  {
    auto tx = this->store().Begin();
    tx->InsertDocument(ContractDocument());
    tx->CompleteIdempotentRequest("alice", "k-1", "owner-a", "r", ContractTime(86'400'000));
  }
  EXPECT_TRUE(this->store().ListDocuments({}).empty());
  const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-b", 10);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->response, std::nullopt);
  EXPECT_EQ(seen->expires_at, ContractTime(30'000));
}

TYPED_TEST_P(DocumentStoreContract, CompletionOfAReservationTakenOverThrowsAndNothingCommits) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-b", 30'000), std::nullopt);
  {
    auto tx = this->store().Begin();
    tx->InsertDocument(ContractDocument());
    EXPECT_THROW(
        tx->CompleteIdempotentRequest("alice", "k-1", "owner-a", "r", ContractTime(86'400'000)),
        StorageError);
  }
  EXPECT_TRUE(this->store().ListDocuments({}).empty());
  EXPECT_FALSE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-a", "r",
                                                      ContractTime(86'400'000)));
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-c", 30'001)->response, std::nullopt);
}

TYPED_TEST_P(DocumentStoreContract, CompletionWithoutEffectStoresTheFirstResponseOnly) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  EXPECT_TRUE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-a", "first",
                                                     ContractTime(86'400'000)));
  EXPECT_FALSE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-a", "second",
                                                      ContractTime(99'400'000)));
  EXPECT_FALSE(this->keys().CompleteIdempotentRequest("alice", "k-2", "owner-a", "other",
                                                      ContractTime(86'400'000)));
  const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-b", 10);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->response, "first");
  EXPECT_EQ(seen->expires_at, ContractTime(86'400'000));
}

TYPED_TEST_P(DocumentStoreContract, ReleaseFreesOnlyItsOwnInFlightRecord) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  this->keys().ReleaseIdempotencyKey("alice", "k-1", "owner-x");
  EXPECT_TRUE(this->Reserve("alice", "k-1", "fp-1", "owner-b", 10));
  this->keys().ReleaseIdempotencyKey("alice", "k-1", "owner-a");
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-2", "owner-b", 20), std::nullopt);
  // Never a completed record.
  ASSERT_TRUE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-b", "done",
                                                     ContractTime(86'400'000)));
  this->keys().ReleaseIdempotencyKey("alice", "k-1", "owner-b");
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-2", "owner-c", 30)->response, "done");
}

TYPED_TEST_P(DocumentStoreContract, PruneDeletesOnlyExpiredRecordsInBoundedBatches) {
  // Five records expire at 30 s (in flight); two completed ones live until 100 s.
  for (int i = 0; i < 7; ++i) {
    ASSERT_EQ(this->Reserve("alice", "k-" + std::to_string(i), "fp", "o-" + std::to_string(i)),
              std::nullopt);
  }
  for (int i = 5; i < 7; ++i) {
    ASSERT_TRUE(this->keys().CompleteIdempotentRequest(
        "alice", "k-" + std::to_string(i), "o-" + std::to_string(i), "r", ContractTime(100'000)));
  }
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(29'999), 10), 0);
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(30'000), 2), 2);
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(30'000), 0), 0);
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(30'000), 10), 3);
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(30'000), 10), 0);
  // The live ones are still there, as they were.
  for (int i = 5; i < 7; ++i) {
    EXPECT_EQ(this->Reserve("alice", "k-" + std::to_string(i), "fp", "x", 50'000)->response, "r");
  }
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(100'000), 10), 2);
}

REGISTER_TYPED_TEST_SUITE_P(
    DocumentStoreContract, DocumentRoundTripsEveryField,
    DocumentWithoutOptionalsRoundTrips, ReviewRoundTripsEveryField,
    PendingReviewWithoutDecisionRoundTrips,
    InsertIgnoresGivenIdsAndAssignsAscendingOnes, ContentRoundTripsExactBytes,
    ContentIsKeptPerVersion, EditorsAreListedOncePerRangeOfVersions,
    ContentOfAVersionIsNeverOverwritten, MissingRowsAreNullopt,
    LockAndReadOfMissingIdAreNullopt, TransactionSeesItsOwnWrites,
    UncommittedWritesAreInvisibleOutside, CommitMakesEveryWriteVisible,
    DestructionWithoutCommitDiscardsInserts,
    DestructionWithoutCommitDiscardsUpdates, TransactionIsUnusableAfterCommit,
    NextTransactionBeginsAfterOneEnds, UpdateDocumentOverwritesMutableColumns,
    UpdateDocumentClearsOptionals, UpdateDocumentKeepsAuthorAndCreationTime,
    UpdateReviewRecordsTheDecisionOnly, UpdateOfMissingRowThrowsStorageError,
    SecondPendingReviewOfADocumentThrowsStorageError,
    ReopeningADecidedReviewBesideAPendingOneThrowsStorageError,
    NewPendingReviewIsAllowedOnceTheLastIsDecided,
    ReviewOrContentOfMissingDocumentThrowsStorageError,
    DuplicateEventIdThrowsStorageError, ListDocumentsIsNewestFirst,
    ListDocumentsFiltersByStatusAndAuthor,
    ListDocumentsBeforeIsAnExclusiveCursor,
    ListDocumentsPagesWithLimitAndCursor, NonPositiveLimitReturnsNothing,
    ListReviewsIsOldestFirstAndFiltersByStatus,
    ListReviewsPagesWithLimitAndExclusiveAfter,
    ListDocumentReviewsIsNewestFirstForThatDocumentOnly,
    EventsRoundTripInCommitOrderWithAscendingSequences,
    ClaimPendingStopsAtLimit, MarkDeliveredEventsAreNeverPendingAgain,
    ClaimPendingHandsOutOnlyEachDocumentsOldestUndeliveredEvent,
    DeferredEventWaitsUntilDueAndHoldsItsDocumentBack,
    DeferWithoutDelayMakesTheEventClaimableAgain,
    PruneDeletesDeliveredEventsBeforeTheCutoffOldestFirst,
    BacklogCountsUndeliveredEventsAndTheOldest, MarkDeliveredIgnoresUnknownSequences,
    AnotherInstanceNeverGetsClaimedRowsUntilTheirClaimRunsOut,
    RenewedClaimsOutlastTheirFirstTtlWhileRenewed, AClaimThatRanOutUntakenIsRenewed,
    RenewalCountsOnlyUndeliveredRowsThisInstanceStillClaims, PingAnswersTrue,
    ConcurrentIncrementsEndWithTheExactCount,
    ReservingAFreeKeyWinsAndTheNextReservationSeesItInFlight, KeysArePerCaller,
    AnExpiredRecordIsReservableAgain,
    ConcurrentReservationsOfOneKeyHaveExactlyOneWinner,
    CompletionInATransactionCommitsWithTheEffect,
    CompletionInATransactionRollsBackWithIt,
    CompletionOfAReservationTakenOverThrowsAndNothingCommits,
    CompletionWithoutEffectStoresTheFirstResponseOnly,
    ReleaseFreesOnlyItsOwnInFlightRecord,
    PruneDeletesOnlyExpiredRecordsInBoundedBatches);

}  // namespace docgate
