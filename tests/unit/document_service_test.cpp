#include "app/document_service.h"

#include <gtest/gtest.h>

#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"
#include "fakes/fake_stores.h"
#include "support/test_actors.h"

namespace docgate {
namespace {

using std::chrono::milliseconds;

class DocumentServiceTest : public ::testing::Test {
 protected:
  Document MustCreate(const std::string& title = "Guide", const std::string& content = "body") {
    auto doc = service_.Create(kAlice, title, content);
    EXPECT_TRUE(doc.ok());
    return *doc;
  }
  Transition MustSubmit(DocumentId id) {
    auto t = service_.Submit(kAlice, id);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().detail);
    return *t;
  }
  std::vector<OutboxEvent> Events() { return fakes_.database->AllEvents(); }

  FakeClock clock_;
  FakeRandom random_;
  FakeStores fakes_ = OpenFakeStores();
  FakeLockGate gate_{clock_, random_};
  CountingWakeup wakeup_;
  DocumentService service_{*fakes_.stores.documents, gate_, clock_, random_, wakeup_};
};

TEST_F(DocumentServiceTest, CreateStoresVersionOneDraftWithContent) {
  auto doc = MustCreate("Onboarding", "hello");
  EXPECT_GT(doc.id, 0);
  EXPECT_EQ(doc.status, DocumentStatus::kDraft);
  EXPECT_EQ(doc.version, 1);
  EXPECT_EQ(doc.author_id, "alice");
  EXPECT_EQ(doc.ingest_status, IngestStatus::kNone);
  EXPECT_EQ(service_.GetContent(doc.id)->content, "hello");
  EXPECT_TRUE(Events().empty()) << "creation is not a review transition";
}

TEST_F(DocumentServiceTest, CreateNeedsTheAuthorRoleAndAValidTitle) {
  EXPECT_EQ(service_.Create(kBob, "t", "c").error().code, ErrorCode::kForbidden);
  EXPECT_EQ(service_.Create(kAlice, "", "c").error().code, ErrorCode::kValidation);
  EXPECT_EQ(service_.Create(kAlice, std::string(201, 'x'), "c").error().code,
            ErrorCode::kValidation);
}

TEST_F(DocumentServiceTest, SubmitTakesAndReleasesTheSubmitKeyAndWritesOneEvent) {
  auto doc = MustCreate();
  auto t = MustSubmit(doc.id);
  const std::string key = "doc:submit:" + std::to_string(doc.id);
  EXPECT_EQ(gate_.acquired_keys(), std::vector<std::string>{key});
  EXPECT_EQ(gate_.released_keys(), std::vector<std::string>{key});
  EXPECT_FALSE(gate_.real().RemainingTtl(key).has_value());
  EXPECT_EQ(t.document.status, DocumentStatus::kPendingReview);
  EXPECT_EQ(t.document.current_review_id, t.review.id);
  EXPECT_EQ(t.review.document_version, 1);
  const auto events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, EventType::kSubmitted);
  EXPECT_EQ(events[0].review_id, t.review.id);
  EXPECT_EQ(events[0].actor_id, "alice");
  EXPECT_EQ(wakeup_.count(), 1);
}

TEST_F(DocumentServiceTest, SubmitWhileTheKeyIsHeldIsLockBusyWithRetryAfterRoundedUp) {
  auto doc = MustCreate();
  ASSERT_EQ(gate_.real().Acquire("doc:submit:" + std::to_string(doc.id), milliseconds{8000})
                .outcome,
            AcquireOutcome::kAcquired);
  clock_.Advance(milliseconds{5500});
  auto r = service_.Submit(kAlice, doc.id);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kLockBusy);
  EXPECT_EQ(r.error().retry_after_seconds, 3);
  EXPECT_EQ(service_.GetDocument(doc.id)->status, DocumentStatus::kDraft);
}

TEST_F(DocumentServiceTest, ADeadGateDegradesToTheDatabaseDecision) {
  auto doc = MustCreate();
  gate_.SetBackendDown(true);
  auto first = service_.Submit(kAlice, doc.id);
  ASSERT_TRUE(first.ok());
  auto second = service_.Submit(kAlice, doc.id);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kInvalidState);
  EXPECT_EQ(Events().size(), 1u);
}

TEST_F(DocumentServiceTest, TheGateIsReleasedWhenTheTransitionIsRefusedOrTheStoreThrows) {
  auto doc = MustCreate();
  MustSubmit(doc.id);
  const std::string key = "doc:submit:" + std::to_string(doc.id);
  EXPECT_EQ(service_.Submit(kAlice, doc.id).error().code, ErrorCode::kInvalidState);
  EXPECT_FALSE(gate_.real().RemainingTtl(key).has_value());
  fakes_.database->FailNextBegin();
  EXPECT_THROW((void)service_.Withdraw(kAlice, doc.id), StorageUnavailable);
  EXPECT_FALSE(gate_.real().RemainingTtl(key).has_value());
  EXPECT_EQ(gate_.released_keys().size(), 3u);
}

TEST_F(DocumentServiceTest, ApproveDecidesOnceAndWritesExactlyOneApprovedEvent) {
  auto doc = MustCreate();
  auto submitted = MustSubmit(doc.id);
  auto approved = service_.Approve(kBob, submitted.review.id, std::string("ship it"));
  ASSERT_TRUE(approved.ok());
  EXPECT_EQ(approved->document.status, DocumentStatus::kApproved);
  EXPECT_EQ(approved->document.approved_version, 1);
  EXPECT_EQ(approved->document.ingest_status, IngestStatus::kPending);
  EXPECT_EQ(approved->review.decided_by, "bob");
  EXPECT_EQ(approved->review.comment, "ship it");

  EXPECT_EQ(service_.Approve(kDave, submitted.review.id, std::nullopt).error().code,
            ErrorCode::kInvalidState);
  EXPECT_EQ(service_.Reject(kDave, submitted.review.id, "late").error().code,
            ErrorCode::kInvalidState);
  int approvals = 0;
  for (const auto& e : Events()) approvals += e.type == EventType::kApproved;
  EXPECT_EQ(approvals, 1);
  EXPECT_EQ(service_.GetReview(submitted.review.id)->status, ReviewStatus::kApproved);
}

TEST_F(DocumentServiceTest, ApproveChecksRoleSelfReviewAndExistence) {
  auto doc = MustCreate();
  auto t = MustSubmit(doc.id);
  EXPECT_EQ(service_.Approve(kCarol, t.review.id, std::nullopt).error().code,
            ErrorCode::kForbidden);
  const Actor alice_admin{"alice", "", true, true, true};
  EXPECT_EQ(service_.Approve(alice_admin, t.review.id, std::nullopt).error().code,
            ErrorCode::kSelfReview);
  EXPECT_EQ(service_.Approve(kBob, 999, std::nullopt).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(service_.Reject(kBob, t.review.id, "").error().code, ErrorCode::kValidation);
  EXPECT_EQ(service_.GetReview(t.review.id)->status, ReviewStatus::kPending);
}

TEST_F(DocumentServiceTest, AnAdminWhoEditedTheSubmittedVersionCannotDecideIt) {
  const Actor admin{"erin", "Erin", false, false, true};
  auto doc = MustCreate("Guide", "v1");
  ASSERT_TRUE(
      service_.Edit(admin, doc.id, EditRequest{std::nullopt, "v2 by erin", 1, std::nullopt}).ok());
  ASSERT_TRUE(
      service_.Edit(kAlice, doc.id, EditRequest{"Guide, again", std::nullopt, 2, std::nullopt})
          .ok());
  auto t = service_.Submit(admin, doc.id);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->review.document_version, 3);
  EXPECT_EQ(service_.Approve(admin, t->review.id, std::nullopt).error().code,
            ErrorCode::kSelfReview);
  EXPECT_EQ(service_.Reject(admin, t->review.id, "mine").error().code,
            ErrorCode::kSelfReview);
  EXPECT_EQ(service_.GetReview(t->review.id)->status, ReviewStatus::kPending);
  // Someone who changed nothing decides; once approved, the editors of later
  // versions are counted from there.
  ASSERT_TRUE(service_.Approve(kBob, t->review.id, std::nullopt).ok());
  EXPECT_EQ(Events().back().type, EventType::kApproved);
}

TEST_F(DocumentServiceTest, RejectEditResubmitApproveBindsTheNewVersion) {
  auto doc = MustCreate("Guide", "v1");
  auto first = MustSubmit(doc.id);
  ASSERT_TRUE(service_.Reject(kBob, first.review.id, "typo").ok());
  EXPECT_EQ(service_.GetDocument(doc.id)->status, DocumentStatus::kRejected);

  auto edited = service_.Edit(kAlice, doc.id, EditRequest{std::nullopt, "v2", 1, std::nullopt});
  ASSERT_TRUE(edited.ok());
  EXPECT_EQ(edited->version, 2);
  EXPECT_EQ(edited->status, DocumentStatus::kDraft);

  auto second = MustSubmit(doc.id);
  EXPECT_EQ(second.review.document_version, 2);
  ASSERT_TRUE(service_.Approve(kBob, second.review.id, std::nullopt).ok());
  EXPECT_EQ(service_.GetDocument(doc.id)->approved_version, 2);
  EXPECT_EQ(service_.GetDocument(doc.id)->ingest_status, IngestStatus::kPending);
  auto history = service_.ReviewHistory(doc.id);
  ASSERT_EQ(history->items.size(), 2u);
  EXPECT_EQ(history->items[0].id, second.review.id) << "newest first";
}

TEST_F(DocumentServiceTest, EditChecksOwnerIfMatchAndState) {
  auto doc = MustCreate();
  EXPECT_EQ(service_.Edit(kCarol, doc.id, EditRequest{"x", {}, {}, std::nullopt}).error().code,
            ErrorCode::kForbidden);
  EXPECT_EQ(service_.Edit(kAlice, doc.id, EditRequest{"x", {}, 7, std::nullopt}).error().code,
            ErrorCode::kVersionMismatch);
  EXPECT_EQ(service_.Edit(kAlice, doc.id, EditRequest{{}, {}, {}, std::nullopt}).error().code,
            ErrorCode::kValidation);
  EXPECT_EQ(service_.Edit(kAlice, 404, EditRequest{"x", {}, {}, std::nullopt}).error().code,
            ErrorCode::kNotFound);
  auto same = service_.Edit(kAlice, doc.id, EditRequest{"Guide", "body", 1, std::nullopt});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->version, 1) << "no change, no new version";
  auto renamed = service_.Edit(kAlice, doc.id, EditRequest{"Renamed", {}, {}, std::nullopt});
  EXPECT_EQ(renamed->version, 2);
  EXPECT_EQ(service_.GetContent(doc.id)->content, "body") << "content carried to the new version";
  MustSubmit(doc.id);
  EXPECT_EQ(service_.Edit(kAlice, doc.id, EditRequest{"y", {}, {}, std::nullopt}).error().code,
            ErrorCode::kInvalidState);
}

TEST_F(DocumentServiceTest, WithdrawReturnsToDraftAndAllowsAResubmit) {
  auto doc = MustCreate();
  auto t = MustSubmit(doc.id);
  EXPECT_EQ(service_.Withdraw(kCarol, doc.id).error().code, ErrorCode::kForbidden);
  auto w = service_.Withdraw(kAlice, doc.id);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->document.status, DocumentStatus::kDraft);
  EXPECT_EQ(w->review.status, ReviewStatus::kWithdrawn);
  EXPECT_EQ(service_.Withdraw(kAlice, doc.id).error().code, ErrorCode::kInvalidState);
  EXPECT_EQ(service_.Approve(kBob, t.review.id, std::nullopt).error().code,
            ErrorCode::kInvalidState);
  MustSubmit(doc.id);
  ASSERT_EQ(Events().size(), 3u);
  EXPECT_EQ(Events()[1].type, EventType::kWithdrawn);
}

TEST_F(DocumentServiceTest, ListPagesNewestFirstWithACursor) {
  std::vector<DocumentId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(MustCreate("d" + std::to_string(i)).id);
  auto first = service_.ListDocuments(ListDocumentsRequest{{}, {}, 2, {}});
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->items.size(), 2u);
  EXPECT_EQ(first->items[0].id, ids[4]);
  EXPECT_EQ(first->next, ids[3]);
  auto last = service_.ListDocuments(ListDocumentsRequest{{}, {}, 3, first->next});
  ASSERT_EQ(last->items.size(), 3u);
  EXPECT_EQ(last->items[2].id, ids[0]);
  EXPECT_FALSE(last->next.has_value());
  EXPECT_EQ(service_.ListDocuments(ListDocumentsRequest{{}, {}, 0, {}}).error().code,
            ErrorCode::kValidation);
  EXPECT_EQ(service_.ListDocuments(ListDocumentsRequest{{}, {}, 101, {}}).error().code,
            ErrorCode::kValidation);
}

TEST_F(DocumentServiceTest, ReviewQueueIsOldestFirstAndForReviewersOnly) {
  auto a = MustSubmit(MustCreate("a").id);
  auto b = MustSubmit(MustCreate("b").id);
  EXPECT_EQ(service_.ReviewQueue(kAlice, {}).error().code, ErrorCode::kForbidden);
  auto queue = service_.ReviewQueue(
      kBob, ListReviewsRequest{ReviewStatus::kPending, std::nullopt, 1, std::nullopt});
  ASSERT_TRUE(queue.ok());
  ASSERT_EQ(queue->items.size(), 1u);
  EXPECT_EQ(queue->items[0].review.id, a.review.id);
  EXPECT_EQ(queue->items[0].title, "a");
  auto rest = service_.ReviewQueue(
      kBob, ListReviewsRequest{ReviewStatus::kPending, std::nullopt, 1, queue->next});
  ASSERT_EQ(rest->items.size(), 1u);
  EXPECT_EQ(rest->items[0].review.id, b.review.id);
}

}  // namespace
}  // namespace docgate
