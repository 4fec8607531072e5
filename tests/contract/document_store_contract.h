#pragma once

// The contract of DocumentStore and StoreTransaction (app/ports/document_store.h, app/ports/store_transaction.h): documents, reviews,
// every version's content and the transaction of a transition. The factory it is instantiated
// with, and the fixture, are in store_contract_fixture.h.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "contract/store_contract_fixture.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

template <typename Factory>
class DocumentStoreContract : public StoreContractFixture<Factory> {};

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
  doc.format = DocumentFormat::kText;
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

TYPED_TEST_P(DocumentStoreContract, EditorsAfterAVersionAreListedOnceEach) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  this->Put(id, 1, "v1", "alice");
  this->Put(id, 2, "v2", "\u5f20\u4e09");  // 张三
  this->Put(id, 3, "v3", "carol");
  this->Put(id, 4, "v4", "\u5f20\u4e09");
  this->Put(other, 1, "other", "mallory");
  const auto editors = [&](std::int32_t after) {
    auto tx = this->store().Begin();
    std::vector<UserId> found = tx->ListEditors(id, after);
    std::sort(found.begin(), found.end());  // the order is the database's collation
    return found;
  };
  EXPECT_EQ(editors(0), (std::vector<UserId>{"alice", "carol", "\u5f20\u4e09"}));
  EXPECT_EQ(editors(1), (std::vector<UserId>{"carol", "\u5f20\u4e09"}));
  EXPECT_EQ(editors(3), std::vector<UserId>{"\u5f20\u4e09"});
  EXPECT_EQ(editors(4), std::vector<UserId>{});
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

TYPED_TEST_P(DocumentStoreContract, FindDocumentsWithContentReadsEachInTheOrderAsked) {
  const Document doc = this->Add(ContractDocument());
  this->Put(doc.id, 1, "第一版：审核流程");
  const Document other = this->Add(ContractDocument());
  this->Put(other.id, 1, "other v1");
  const auto found = this->store().FindDocumentsWithContent(
      {{other.id, 1}, {doc.id, 1}, {doc.id, 2}, {12345, 1}, {other.id, 1}});
  ASSERT_EQ(found.size(), 5u);
  ASSERT_TRUE(found[0] && found[1] && found[2] && found[4]);
  EXPECT_EQ(found[0]->document, this->store().FindDocument(other.id));
  EXPECT_EQ(found[0]->content, "other v1");
  EXPECT_EQ(found[1]->document, this->store().FindDocument(doc.id));
  EXPECT_EQ(found[1]->content, "第一版：审核流程");
  EXPECT_EQ(found[2]->document, this->store().FindDocument(doc.id));
  EXPECT_EQ(found[2]->content, std::nullopt) << "no such version";
  EXPECT_FALSE(found[3].has_value()) << "no such document";
  EXPECT_EQ(found[4]->content, "other v1") << "asked twice, answered twice";
  EXPECT_TRUE(this->store().FindDocumentsWithContent({}).empty());
}

TYPED_TEST_P(DocumentStoreContract, FindDocumentWithContentReadsTheCurrentVersion) {
  Document doc = ContractDocument();
  doc.version = 1;
  doc = this->Add(doc);
  this->Put(doc.id, 1, "第一版：审核流程");
  auto found = this->store().FindDocumentWithContent(doc.id);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->document, doc);
  EXPECT_EQ(found->content, "第一版：审核流程");

  doc.version = 2;
  this->Update(doc);
  found = this->store().FindDocumentWithContent(doc.id);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->document.version, 2);
  EXPECT_EQ(found->content, std::nullopt) << "version 2 has no content yet";
  this->Put(doc.id, 2, "第二版：四眼原则");
  EXPECT_EQ(this->store().FindDocumentWithContent(doc.id)->content, "第二版：四眼原则");
  EXPECT_FALSE(this->store().FindDocumentWithContent(12345).has_value());
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
  EXPECT_TRUE(this->store().ListDocumentReviews({12345, std::nullopt, 100}).empty());
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
  tx->PutVersion(ContractVersion(doc.id, 1, "body", "alice"));
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
  tx->PutVersion(ContractVersion(doc.id, 1, "body", "alice"));
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
    tx->PutVersion(ContractVersion(id, 1, "body", "alice"));
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
    tx->PutVersion(ContractVersion(doc.id, 2, "v2", "alice"));
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
  changed.format = DocumentFormat::kText;
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
  EXPECT_THROW(this->store().Begin()->PutVersion(ContractVersion(12345, 1, "orphan", "alice")),
               StorageError);
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
  const DocumentId id = this->Add(ContractDocument()).id;
  this->Put(id, 1, "first");
  this->Add(ContractReview(id));
  for (const int limit : {0, -1}) {
    DocumentQuery documents;
    documents.limit = limit;
    ReviewQuery reviews;
    reviews.limit = limit;
    EXPECT_TRUE(this->store().ListDocuments(documents).empty()) << limit;
    EXPECT_TRUE(this->store().ListReviews(reviews).empty()) << limit;
    EXPECT_TRUE(this->store().ListVersions({id, std::nullopt, limit}).empty()) << limit;
    EXPECT_TRUE(this->store().ListDocumentReviews({id, std::nullopt, limit}).empty()) << limit;
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
  EXPECT_EQ(this->store().ListDocumentReviews({id, std::nullopt, 100}),
            (std::vector<Review>{r3, r2, r1}));
}

TYPED_TEST_P(DocumentStoreContract, ListDocumentReviewsPagesWithLimitAndExclusiveBefore) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  std::vector<ReviewId> ids;  // oldest first
  for (int i = 0; i < 5; ++i) {
    ids.push_back(this->Add(ContractReview(id, ReviewStatus::kWithdrawn)).id);
    this->Add(ContractReview(other, ReviewStatus::kWithdrawn));
  }
  const auto page = [&](std::optional<ReviewId> before) {
    std::vector<ReviewId> found;
    for (const Review& review : this->store().ListDocumentReviews({id, before, 2})) {
      found.push_back(review.id);
    }
    return found;
  };
  EXPECT_EQ(page(std::nullopt), (std::vector<ReviewId>{ids[4], ids[3]}));
  EXPECT_EQ(page(ids[3]), (std::vector<ReviewId>{ids[2], ids[1]}));
  EXPECT_EQ(page(ids[1]), (std::vector<ReviewId>{ids[0]}));
  EXPECT_TRUE(page(ids[0]).empty());
}

TYPED_TEST_P(DocumentStoreContract, ListVersionsPagesNewestFirstWithLimitAndExclusiveBefore) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  for (std::int32_t v = 1; v <= 5; ++v) {
    this->Put(id, v, "\u7b2c" + std::to_string(v) + "\u7248");  // 第N版
    this->Put(other, v, "other");
  }
  const auto page = [&](std::optional<std::int32_t> before) {
    std::vector<std::int32_t> found;
    for (const VersionSummary& line : this->store().ListVersions({id, before, 2})) {
      found.push_back(line.version);
    }
    return found;
  };
  EXPECT_EQ(page(std::nullopt), (std::vector<std::int32_t>{5, 4}));
  EXPECT_EQ(page(4), (std::vector<std::int32_t>{3, 2}));
  EXPECT_EQ(page(2), (std::vector<std::int32_t>{1}));
  EXPECT_TRUE(page(1).empty());
}

// The title is the document's as it is now, read with the review (a rename shows at once).
TYPED_TEST_P(DocumentStoreContract, ListReviewsCarriesTheCurrentTitleOfEachDocument) {
  Document first = ContractDocument();
  first.title = "\u5165\u804c\u6307\u5357";  // 入职指南
  first = this->Add(first);
  Document second = ContractDocument();
  second.title = "\u90e8\u7f72\u624b\u518c";  // 部署手册
  second = this->Add(second);
  const Review r1 = this->Add(ContractReview(first.id));
  const Review r2 = this->Add(ContractReview(second.id));
  // 部署手册（第二版）
  second.title = "\u90e8\u7f72\u624b\u518c\uff08\u7b2c\u4e8c\u7248\uff09";
  this->Update(second);
  EXPECT_EQ(this->store().ListReviews({}),
            (std::vector<QueuedReview>{{r1, first.title}, {r2, second.title}}));
}

TYPED_TEST_P(DocumentStoreContract, RequiredApprovalsRoundTrip) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  Review one = ContractReview(id, ReviewStatus::kRejected);
  one.required_approvals = 1;
  one = this->Add(one);
  Review three = ContractReview(other);
  three.required_approvals = 3;
  three = this->Add(three);
  EXPECT_EQ(this->store().FindReview(one.id), one);
  EXPECT_EQ(this->store().FindReview(three.id), three);
  EXPECT_EQ(this->store().Begin()->LockReview(three.id), three);
  EXPECT_EQ(this->store().ListDocumentReviews({other, std::nullopt, 100}),
            std::vector<Review>{three});
  EXPECT_EQ(this->store().ListReviews({}),
            (std::vector<QueuedReview>{{one, "Onboarding guide"}, {three, "Onboarding guide"}}));
}

TYPED_TEST_P(DocumentStoreContract, RequiredApprovalsOutsideOneToTenThrowsStorageError) {
  const DocumentId id = this->Add(ContractDocument()).id;
  for (const std::int32_t required : {0, 11, -1}) {
    Review review = ContractReview(id);
    review.required_approvals = required;
    EXPECT_THROW(this->store().Begin()->InsertReview(review), StorageError) << required;
  }
  Review ten = ContractReview(id);
  ten.required_approvals = 10;
  EXPECT_EQ(this->store().FindReview(this->Add(ten).id)->required_approvals, 10);
}

// Every read of a review carries its approvals, in the order they were given: decided_at, a tie
// by reviewer id (byte order: "bob" before "张三"), whatever order they were added in. Each
// review of a page gets its own.
TYPED_TEST_P(DocumentStoreContract, ApprovalsAreReadBackInOrderByEveryRead) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  Review review = ContractReview(id);
  review.required_approvals = 3;
  review = this->Add(review);
  Review other_review = ContractReview(other);
  other_review.required_approvals = 2;
  other_review = this->Add(other_review);
  const Approval zhang{"\u5f20\u4e09", "\u540c\u610f\uff0c\u5199\u5f97\u5f88\u6e05\u695a",
                       ContractTime(50)};  // 张三: 同意，写得很清楚
  const Approval carol{"carol", std::nullopt, ContractTime(40)};
  const Approval bob{"bob", "fine by me", ContractTime(50)};
  const Approval zhang_of_other{"\u5f20\u4e09", std::nullopt, ContractTime(45)};
  this->Committed([&](StoreTransaction& tx) {
    tx.AddApproval(review.id, zhang);
    tx.AddApproval(other_review.id, zhang_of_other);
    tx.AddApproval(review.id, carol);
    tx.AddApproval(review.id, bob);
  });
  review.approvals = {carol, bob, zhang};
  other_review.approvals = {zhang_of_other};
  EXPECT_EQ(this->store().Begin()->LockReview(review.id), review);
  EXPECT_EQ(this->store().FindReview(review.id), review);
  EXPECT_EQ(this->store().FindReview(other_review.id), other_review);
  EXPECT_EQ(this->store().ListReviews({}), (std::vector<QueuedReview>{
                                               {review, "Onboarding guide"},
                                               {other_review, "Onboarding guide"},
                                           }));
  EXPECT_EQ(this->store().ListDocumentReviews({id, std::nullopt, 100}),
            std::vector<Review>{review});
  EXPECT_EQ(this->store().ListDocumentReviews({other, std::nullopt, 100}),
            std::vector<Review>{other_review});
}

TYPED_TEST_P(DocumentStoreContract, ReviewWithoutApprovalsReadsAnEmptyList) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const Review review = this->Add(ContractReview(id));
  EXPECT_TRUE(this->store().FindReview(review.id)->approvals.empty());
  EXPECT_TRUE(this->store().Begin()->LockReview(review.id)->approvals.empty());
  EXPECT_TRUE(this->store().ListReviews({}).at(0).review.approvals.empty());
  EXPECT_TRUE(this->store().ListDocumentReviews({id, std::nullopt, 100}).at(0).approvals.empty());
}

// InsertReview stores no approvals (AddApproval does), and a decision keeps those recorded.
TYPED_TEST_P(DocumentStoreContract, ApprovalsAreRecordedByAddApprovalOnly) {
  const DocumentId id = this->Add(ContractDocument()).id;
  Review review = ContractReview(id);
  review.required_approvals = 2;
  review.approvals = {Approval{"mallory", "forged", ContractTime(1)}};
  review = this->Add(review);
  review.approvals.clear();
  EXPECT_EQ(this->store().FindReview(review.id), review);
  const Approval bob{"bob", std::nullopt, ContractTime(50)};
  const Approval zhang{"\u5f20\u4e09", "\u53ef\u4ee5", ContractTime(60)};  // 张三: 可以
  this->Committed([&](StoreTransaction& tx) { tx.AddApproval(review.id, bob); });
  Review decided = review;
  decided.status = ReviewStatus::kApproved;
  decided.decided_by = zhang.reviewer_id;
  decided.decided_at = zhang.decided_at;
  decided.comment = zhang.comment;
  this->Committed([&](StoreTransaction& tx) {
    tx.AddApproval(review.id, zhang);
    Review tampered = decided;
    tampered.required_approvals = 7;
    tampered.approvals.clear();
    tx.UpdateReview(tampered);
  });
  decided.approvals = {bob, zhang};
  EXPECT_EQ(this->store().FindReview(review.id), decided);
}

TYPED_TEST_P(DocumentStoreContract, SecondApprovalBySameReviewerThrowsStorageError) {
  const DocumentId id = this->Add(ContractDocument()).id;
  Review review = ContractReview(id);
  review.required_approvals = 2;
  review = this->Add(review);
  const Approval first{"\u5f20\u4e09", "\u540c\u610f", ContractTime(50)};  // 张三: 同意
  this->Committed([&](StoreTransaction& tx) { tx.AddApproval(review.id, first); });
  {  // the error may come with the next statement, by Commit at the latest (AddApproval's comment)
    auto tx = this->store().Begin();
    EXPECT_THROW(
        {
          tx->AddApproval(review.id, Approval{"\u5f20\u4e09", "again", ContractTime(60)});
          tx->Commit();
        },
        StorageError);
  }
  {
    auto tx = this->store().Begin();
    tx->AddApproval(review.id, Approval{"bob", std::nullopt, ContractTime(55)});
    EXPECT_THROW(
        {
          tx->AddApproval(review.id, Approval{"bob", std::nullopt, ContractTime(56)});
          tx->Commit();
        },
        StorageError)
        << "a second approval within one transaction";
  }
  EXPECT_EQ(this->store().FindReview(review.id)->approvals, std::vector<Approval>{first});
}

TYPED_TEST_P(DocumentStoreContract, ApprovalOfAMissingReviewThrowsStorageError) {
  auto tx = this->store().Begin();
  EXPECT_THROW(
      {
        tx->AddApproval(12345, Approval{"bob", "ok", ContractTime(1)});
        tx->Commit();
      },
      StorageError);
}

TYPED_TEST_P(DocumentStoreContract, ApprovalsOfATransactionRolledBackAreDiscarded) {
  const DocumentId id = this->Add(ContractDocument()).id;
  Review review = ContractReview(id);
  review.required_approvals = 2;
  review = this->Add(review);
  const Approval zhang{"\u5f20\u4e09", std::nullopt, ContractTime(50)};
  {
    auto tx = this->store().Begin();
    tx->AddApproval(review.id, zhang);
    EXPECT_EQ(tx->LockReview(review.id)->approvals, std::vector<Approval>{zhang})
        << "the transaction sees its own approval";
  }
  EXPECT_EQ(this->store().FindReview(review.id), review);
  EXPECT_TRUE(this->store().Begin()->LockReview(review.id)->approvals.empty());
  EXPECT_TRUE(this->store().ListReviews({}).at(0).review.approvals.empty());
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

REGISTER_TYPED_TEST_SUITE_P(
    DocumentStoreContract, DocumentRoundTripsEveryField, DocumentWithoutOptionalsRoundTrips,
    ReviewRoundTripsEveryField, PendingReviewWithoutDecisionRoundTrips,
    InsertIgnoresGivenIdsAndAssignsAscendingOnes, ContentRoundTripsExactBytes,
    EditorsAfterAVersionAreListedOnceEach, ContentIsKeptPerVersion,
    FindDocumentsWithContentReadsEachInTheOrderAsked, FindDocumentWithContentReadsTheCurrentVersion,
    ContentOfAVersionIsNeverOverwritten, MissingRowsAreNullopt, LockAndReadOfMissingIdAreNullopt,
    TransactionSeesItsOwnWrites, UncommittedWritesAreInvisibleOutside, CommitMakesEveryWriteVisible,
    DestructionWithoutCommitDiscardsInserts, DestructionWithoutCommitDiscardsUpdates,
    TransactionIsUnusableAfterCommit, NextTransactionBeginsAfterOneEnds,
    UpdateDocumentOverwritesMutableColumns, UpdateDocumentClearsOptionals,
    UpdateDocumentKeepsAuthorAndCreationTime, UpdateReviewRecordsTheDecisionOnly,
    UpdateOfMissingRowThrowsStorageError, SecondPendingReviewOfADocumentThrowsStorageError,
    ReopeningADecidedReviewBesideAPendingOneThrowsStorageError,
    NewPendingReviewIsAllowedOnceTheLastIsDecided,
    ReviewOrContentOfMissingDocumentThrowsStorageError, ListDocumentsIsNewestFirst,
    ListDocumentsFiltersByStatusAndAuthor, ListDocumentsBeforeIsAnExclusiveCursor,
    ListDocumentsPagesWithLimitAndCursor, NonPositiveLimitReturnsNothing,
    ListReviewsIsOldestFirstAndFiltersByStatus, ListReviewsPagesWithLimitAndExclusiveAfter,
    ListDocumentReviewsIsNewestFirstForThatDocumentOnly,
    ListDocumentReviewsPagesWithLimitAndExclusiveBefore,
    ListVersionsPagesNewestFirstWithLimitAndExclusiveBefore,
    ListReviewsCarriesTheCurrentTitleOfEachDocument, RequiredApprovalsRoundTrip,
    RequiredApprovalsOutsideOneToTenThrowsStorageError, ApprovalsAreReadBackInOrderByEveryRead,
    ReviewWithoutApprovalsReadsAnEmptyList, ApprovalsAreRecordedByAddApprovalOnly,
    SecondApprovalBySameReviewerThrowsStorageError, ApprovalOfAMissingReviewThrowsStorageError,
    ApprovalsOfATransactionRolledBackAreDiscarded, PingAnswersTrue,
    ConcurrentIncrementsEndWithTheExactCount);

}  // namespace docgate
