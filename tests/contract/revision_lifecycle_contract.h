#pragma once

// Revisions end to end below HTTP (API.md v1.1, Revisions; ADR 0008), on every backend: the review
// use cases (DocumentService), the built-in consumers (preview projection and ingestion behind a
// ConsumerRunner) fed from the outbox, and what readers get (ReaderService), over the Stores of
// one database. A typed suite over the factories of store_contract_fixture.h:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, RevisionLifecycleContract, ::testing::Types<F>);

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "adapters/crypto/openssl_digest.h"
#include "app/consumer_runner.h"
#include "app/document_service.h"
#include "app/ingestion.h"
#include "app/preview_projection.h"
#include "app/reader_service.h"
#include "contract/store_contract_fixture.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"

namespace docgate {

template <typename Factory>
class RevisionLifecycleContract : public ::testing::Test {
 protected:
  RevisionLifecycleContract() {
    runner_.Register(projection_);
    runner_.Register(ingestion_);
  }

  static Actor Author(const UserId& id = "alice") { return Actor{id, "", true, false, false}; }
  static Actor Reviewer(const UserId& id = "bob") { return Actor{id, "", false, true, false}; }
  static Actor Admin(const UserId& id) { return Actor{id, "", true, true, true}; }

  // Every event in the outbox, in the outbox's order, marked delivered.
  std::vector<OutboxEvent> TakeEvents() {
    std::vector<OutboxEvent> taken;
    for (auto batch = outbox().ClaimPending(100); !batch.empty();
         batch = outbox().ClaimPending(100)) {
      std::vector<std::int64_t> sequences;
      for (const OutboxEvent& event : batch) sequences.push_back(event.sequence);
      outbox().MarkDelivered(sequences, clock_.Now());
      taken.insert(taken.end(), batch.begin(), batch.end());
    }
    return taken;
  }
  // Runs the consumers on every event in the outbox, in the outbox's order.
  void Deliver() {
    for (const OutboxEvent& event : TakeEvents()) {
      ASSERT_EQ(runner_.Run(event).outcome, ConsumeOutcome::kDone) << event.event_id;
    }
  }

  DocumentId Create(const std::string& content, const Actor& author = Author()) {
    auto doc = service_.Create(author, kTitle, content);
    EXPECT_TRUE(doc.ok());
    return doc.ok() ? doc->id : 0;
  }
  Document Edit(DocumentId id, const std::string& content, const Actor& editor = Author()) {
    auto doc =
        service_.Edit(editor, id, EditRequest{std::nullopt, content, std::nullopt, std::nullopt});
    EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.error().detail);
    return doc.ok() ? *doc : Document{};
  }
  ReviewId Submit(DocumentId id, const Actor& author = Author()) {
    auto t = service_.Submit(author, id);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().detail);
    return t.ok() ? t->review.id : 0;
  }
  Transition Approve(ReviewId review, const Actor& reviewer = Reviewer()) {
    auto t = service_.Approve(reviewer, review, std::nullopt);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().detail);
    return t.ok() ? *t : Transition{};
  }
  // Creates, submits, approves and delivers: a published document.
  DocumentId Published(const std::string& content) {
    const DocumentId id = Create(content);
    Approve(Submit(id));
    Deliver();
    return id;
  }

  Document Doc(DocumentId id) { return *service_.GetDocument(id); }
  Preview PreviewOf(DocumentId id) {
    auto preview = reader_.GetPreview(id);
    EXPECT_TRUE(preview.ok());
    return preview.ok() ? *preview : Preview{};
  }
  // The versions of `id` among the hits of `word`.
  std::vector<std::int32_t> HitVersions(const std::string& word, DocumentId id) {
    std::vector<std::int32_t> versions;
    const auto hits = reader_.Search(word, 50);  // named: the loop would outlive a temporary
    EXPECT_TRUE(hits.ok());
    if (!hits.ok()) return versions;
    for (const SearchHit& hit : hits->items) {
      if (hit.document_id == id) versions.push_back(hit.version);
    }
    return versions;
  }
  std::vector<std::int32_t> KeptVersions(DocumentId id) {
    std::vector<std::int32_t> versions;
    const auto history = service_.ListVersions(id);
    EXPECT_TRUE(history.ok());
    if (!history.ok()) return versions;
    for (const VersionSummary& line : history->items) versions.push_back(line.version);
    return versions;
  }

  DocumentStore& store() { return *stores_.documents; }
  OutboxStore& outbox() { return *stores_.outbox; }

  // 入职指南: the title every document of this suite starts with.
  static constexpr char kTitle[] = "\u5165\u804c\u6307\u5357";
  // Content in Chinese with one English marker word each, which search finds on every backend.
  static constexpr char kV1[] = "\u7b2c\u4e00\u7248\uff1a\u7533\u8bf7 zeppelin \u8d26\u53f7\u3002";
  static constexpr char kV2[] = "\u7b2c\u4e8c\u7248\uff1a\u7533\u8bf7 dirigible \u8d26\u53f7\u3002";
  static constexpr char kV3[] = "\u7b2c\u4e09\u7248\uff1a\u7533\u8bf7 blimp \u8d26\u53f7\u3002";

  Factory factory_;
  Stores stores_ = factory_.Make();
  FakeClock clock_;
  FakeRandom random_;
  FakeLockGate gate_{clock_, random_};
  CountingWakeup wakeup_;
  DocumentService service_{*stores_.documents, gate_, clock_, random_, wakeup_};
  PreviewProjection projection_{*stores_.previews, *stores_.documents};
  OpenSslDigest digest_;
  Ingestion ingestion_{*stores_.inbox, ChunkerConfig{}, digest_};
  ConsumerRunner runner_{*stores_.inbox, clock_};
  ReaderService reader_{*stores_.documents, *stores_.previews, *stores_.chunks};
};

TYPED_TEST_SUITE_P(RevisionLifecycleContract);

TYPED_TEST_P(RevisionLifecycleContract, TheApprovedVersionIsServedUntilItsRevisionIsApproved) {
  const DocumentId id = this->Published(this->kV1);
  const Document revision = this->Edit(id, this->kV2);
  EXPECT_EQ(revision.status, DocumentStatus::kDraft);
  EXPECT_EQ(revision.version, 2);
  EXPECT_EQ(revision.approved_version, 1);
  EXPECT_EQ(revision.ingest_status, IngestStatus::kDone) << "of version 1, still published";

  const auto expect_version_1_published = [&](const char* when) {
    SCOPED_TRACE(when);
    EXPECT_EQ(this->PreviewOf(id).version, 1);
    EXPECT_EQ(this->PreviewOf(id).content, this->kV1);
    EXPECT_EQ(this->HitVersions("zeppelin", id), std::vector<std::int32_t>{1});
    EXPECT_TRUE(this->HitVersions("dirigible", id).empty());
  };
  expect_version_1_published("while the revision is a draft");
  const ReviewId review = this->Submit(id);
  this->Deliver();  // the submission's event moves nothing
  expect_version_1_published("while the revision is under review");

  const Transition approved = this->Approve(review);
  EXPECT_EQ(approved.document.approved_version, 2);
  EXPECT_EQ(this->PreviewOf(id).version, 2) << "the preview reads its own writes at once";
  this->Deliver();
  EXPECT_EQ(this->PreviewOf(id).content, this->kV2);
  EXPECT_EQ(this->HitVersions("dirigible", id), std::vector<std::int32_t>{2});
  EXPECT_TRUE(this->HitVersions("zeppelin", id).empty()) << "never both versions";
  EXPECT_EQ(this->stores_.chunks->ListChunks(id), std::vector<std::string>{this->kV2});
  EXPECT_EQ(this->Doc(id).ingest_status, IngestStatus::kDone);
}

TYPED_TEST_P(RevisionLifecycleContract, ARejectedRevisionLeavesTheApprovedVersionPublished) {
  const DocumentId id = this->Published(this->kV1);
  this->Edit(id, this->kV2);
  auto rejected = this->service_.Reject(this->Reviewer(), this->Submit(id), "\u8bf7\u8865\u5145");
  ASSERT_TRUE(rejected.ok());
  this->Deliver();
  const Document doc = this->Doc(id);
  EXPECT_EQ(doc.status, DocumentStatus::kRejected);
  EXPECT_EQ(doc.version, 2);
  EXPECT_EQ(doc.approved_version, 1);
  EXPECT_EQ(this->PreviewOf(id).version, 1);
  EXPECT_EQ(this->HitVersions("zeppelin", id), std::vector<std::int32_t>{1});
  EXPECT_TRUE(this->HitVersions("dirigible", id).empty());

  // The author reworks the rejected revision; its approval publishes the rework.
  this->Edit(id, this->kV3);
  this->Approve(this->Submit(id));
  this->Deliver();
  EXPECT_EQ(this->PreviewOf(id).version, 3);
  EXPECT_EQ(this->HitVersions("blimp", id), std::vector<std::int32_t>{3});
  EXPECT_TRUE(this->HitVersions("zeppelin", id).empty());
}

TYPED_TEST_P(RevisionLifecycleContract, AnApprovalOfAnOlderVersionIsInvalidState) {
  const DocumentId id = this->Published(this->kV1);
  this->Edit(id, this->kV2);
  const ReviewId v2_review = this->Submit(id);
  ASSERT_TRUE(this->service_.Withdraw(this->Author(), id).ok());
  this->Edit(id, this->kV3);
  this->Submit(id);
  auto stale = this->service_.Approve(this->Reviewer(), v2_review, std::nullopt);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code, ErrorCode::kInvalidState);
  EXPECT_EQ(this->Doc(id).approved_version, 1);
}

TYPED_TEST_P(RevisionLifecycleContract, AStaleApprovalEventNeverMovesThePublishedVersionBack) {
  const DocumentId id = this->Create(this->kV1);
  this->Approve(this->Submit(id));
  this->Edit(id, this->kV2);
  this->Approve(this->Submit(id));
  // Both approvals' events, delivered newest first: the older one finds version 1 superseded.
  std::vector<OutboxEvent> approvals;
  for (const OutboxEvent& event : this->TakeEvents()) {
    if (event.type == EventType::kApproved) approvals.push_back(event);
  }
  ASSERT_EQ(approvals.size(), 2u);
  EXPECT_EQ(approvals[0].version, 1);
  EXPECT_EQ(approvals[1].version, 2) << "events carry the version";
  std::reverse(approvals.begin(), approvals.end());
  for (const OutboxEvent& event : approvals) {
    EXPECT_EQ(this->runner_.Run(event).outcome, ConsumeOutcome::kDone);
  }
  EXPECT_EQ(this->PreviewOf(id).version, 2);
  EXPECT_EQ(this->PreviewOf(id).content, this->kV2);
  EXPECT_EQ(this->HitVersions("dirigible", id), std::vector<std::int32_t>{2});
  EXPECT_TRUE(this->HitVersions("zeppelin", id).empty());
}

TYPED_TEST_P(RevisionLifecycleContract, HistoryKeepsSubmittedVersionsAndTheCurrentOneOnly) {
  const DocumentId id = this->Published(this->kV1);                          // v1 approved
  for (int i = 0; i < 5; ++i) this->Edit(id, "draft " + std::to_string(i));  // v2..v6
  EXPECT_EQ(this->KeptVersions(id), (std::vector<std::int32_t>{6, 1}))
      << "storage grows with versions, not with edits";
  const ReviewId rejected = this->Submit(id);                                 // v6 submitted ...
  ASSERT_TRUE(this->service_.Reject(this->Reviewer(), rejected, "no").ok());  // ... rejected
  this->Edit(id, this->kV3);  // v7, the current draft
  EXPECT_EQ(this->KeptVersions(id), (std::vector<std::int32_t>{7, 6, 1}));

  const auto history = this->service_.ListVersions(id)->items;
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].review_id, std::nullopt);
  EXPECT_EQ(history[1].review_id, rejected);
  EXPECT_EQ(history[1].review_status, ReviewStatus::kRejected);
  EXPECT_EQ(history[2].review_status, ReviewStatus::kApproved);
  EXPECT_EQ(history[2].title, this->kTitle);
  EXPECT_EQ(history[2].edited_by, "alice");

  const auto v1 = this->service_.GetVersion(id, 1);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->content, this->kV1);
  EXPECT_EQ(v1->title, this->kTitle);
  EXPECT_EQ(this->service_.GetVersion(id, 7)->content, this->kV3);
  for (const std::int32_t gone : {3, 8, 0}) {
    const auto missing = this->service_.GetVersion(id, gone);
    ASSERT_FALSE(missing.ok()) << gone;
    EXPECT_EQ(missing.error().code, ErrorCode::kNotFound) << gone;
  }
  EXPECT_NE(this->service_.GetVersion(id, 3).error().detail.find("not kept"), std::string::npos);
  EXPECT_EQ(this->service_.ListVersions(id + 1000).error().code, ErrorCode::kNotFound);
}

TYPED_TEST_P(RevisionLifecycleContract, ATitleChangeIsAVersionWithItsOwnTitle) {
  const DocumentId id = this->Published(this->kV1);
  auto renamed = this->service_.Edit(this->Author(), id,
                                     EditRequest{"\u65b0\u5458\u5de5\u6307\u5357", std::nullopt,
                                                 std::nullopt, std::nullopt});  // 新员工指南
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(renamed->version, 2);
  EXPECT_EQ(this->service_.GetVersion(id, 2)->title, "\u65b0\u5458\u5de5\u6307\u5357");
  EXPECT_EQ(this->service_.GetVersion(id, 2)->content, this->kV1);
  EXPECT_EQ(this->service_.GetVersion(id, 1)->title, this->kTitle);
}

TYPED_TEST_P(RevisionLifecycleContract, AnApprovedDocumentGivenNothingNewStaysPublished) {
  const DocumentId id = this->Published(this->kV1);
  const Document before = this->Doc(id);
  EXPECT_EQ(this->Edit(id, this->kV1), before);
  EXPECT_EQ(this->Doc(id), before);
}

TYPED_TEST_P(RevisionLifecycleContract, FourEyesCoverEveryEditorOfTheRevisionOnly) {
  const Actor carol = this->Admin("carol");
  const Actor dave = this->Admin("\u738b\u4e94");  // 王五
  const DocumentId id = this->Create(this->kV1);
  this->Edit(id, this->kV2, carol);      // carol writes v2 of the first draft ...
  this->Approve(this->Submit(id));       // ... which bob approves
  this->Edit(id, this->kV3);             // alice revises: v3
  this->Edit(id, "\u4fee\u8ba2", dave);  // 王五 writes v4 ...
  this->Edit(id, this->kV1);             // ... which alice replaces (v4 is not kept)
  const ReviewId review = this->Submit(id);

  auto by_dave = this->service_.Approve(dave, review, std::nullopt);
  ASSERT_FALSE(by_dave.ok());
  EXPECT_EQ(by_dave.error().code, ErrorCode::kSelfReview)
      << "an editor of the revision, though their version was dropped";
  auto by_alice = this->service_.Approve(this->Admin("alice"), review, std::nullopt);
  ASSERT_FALSE(by_alice.ok());
  EXPECT_EQ(by_alice.error().code, ErrorCode::kSelfReview) << "the author, always";
  EXPECT_TRUE(this->service_.Approve(carol, review, std::nullopt).ok())
      << "carol's edits were reviewed with version 2; she wrote nothing of the revision";
}

TYPED_TEST_P(RevisionLifecycleContract, RacingRevisionsWithIfMatchStartExactlyOne) {
  constexpr int kEditors = 6;
  const DocumentId id = this->Published(this->kV1);
  std::atomic<int> started{0}, mismatched{0};
  std::latch go(kEditors);
  std::vector<std::thread> editors;
  for (int i = 0; i < kEditors; ++i) {
    editors.emplace_back([&, i] {
      go.arrive_and_wait();
      auto result = this->service_.Edit(
          this->Author(), id,
          EditRequest{std::nullopt, "racer " + std::to_string(i), 1, std::nullopt});
      if (result.ok()) {
        ++started;
      } else if (result.error().code == ErrorCode::kVersionMismatch) {
        ++mismatched;
      }
    });
  }
  for (std::thread& editor : editors) editor.join();
  EXPECT_EQ(started.load(), 1);
  EXPECT_EQ(mismatched.load(), kEditors - 1);
  const Document doc = this->Doc(id);
  EXPECT_EQ(doc.version, 2);
  EXPECT_EQ(doc.approved_version, 1);
  EXPECT_EQ(this->KeptVersions(id), (std::vector<std::int32_t>{2, 1}));
}

TYPED_TEST_P(RevisionLifecycleContract, AnEditRacingAnApprovalNeverChangesWhatWasApproved) {
  const DocumentId id = this->Published(this->kV1);
  this->Edit(id, this->kV2);
  const ReviewId review = this->Submit(id);
  std::latch go(2);
  Result<Transition> approval = MakeError(ErrorCode::kInvalidState, "not run");
  Result<Document> edit = MakeError(ErrorCode::kInvalidState, "not run");
  std::thread reviewer([&] {
    go.arrive_and_wait();
    approval = this->service_.Approve(this->Reviewer(), review, std::nullopt);
  });
  std::thread author([&] {
    go.arrive_and_wait();
    edit = this->service_.Edit(this->Author(), id,
                               EditRequest{std::nullopt, this->kV3, std::nullopt, std::nullopt});
  });
  reviewer.join();
  author.join();
  ASSERT_TRUE(approval.ok()) << "a pending review cannot be edited away";
  this->Deliver();
  const Document doc = this->Doc(id);
  EXPECT_EQ(doc.approved_version, 2);
  EXPECT_EQ(this->PreviewOf(id).content, this->kV2);
  EXPECT_EQ(this->HitVersions("dirigible", id), std::vector<std::int32_t>{2});
  if (edit.ok()) {  // the edit came second: it started the next revision
    EXPECT_EQ(doc.version, 3);
    EXPECT_EQ(doc.status, DocumentStatus::kDraft);
  } else {  // the edit came first and found the review pending
    EXPECT_EQ(edit.error().code, ErrorCode::kInvalidState);
    EXPECT_EQ(doc.version, 2);
    EXPECT_EQ(doc.status, DocumentStatus::kApproved);
  }
}

REGISTER_TYPED_TEST_SUITE_P(
    RevisionLifecycleContract, TheApprovedVersionIsServedUntilItsRevisionIsApproved,
    ARejectedRevisionLeavesTheApprovedVersionPublished, AnApprovalOfAnOlderVersionIsInvalidState,
    AStaleApprovalEventNeverMovesThePublishedVersionBack,
    HistoryKeepsSubmittedVersionsAndTheCurrentOneOnly, ATitleChangeIsAVersionWithItsOwnTitle,
    AnApprovedDocumentGivenNothingNewStaysPublished, FourEyesCoverEveryEditorOfTheRevisionOnly,
    RacingRevisionsWithIfMatchStartExactlyOne, AnEditRacingAnApprovalNeverChangesWhatWasApproved);

}  // namespace docgate
