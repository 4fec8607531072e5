#include "core/lifecycle.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

namespace docgate {
namespace {

const TimePoint kClockStart{std::chrono::milliseconds{1'000}};
const TimePoint kT1{std::chrono::milliseconds{2'000}};

Actor Author() { return Actor{"alice", "", true, false, false}; }
Actor Reviewer() { return Actor{"bob", "", false, true, false}; }

Document DocIn(DocumentStatus status) {
  Document doc;
  doc.id = 7;
  doc.title = "t";
  doc.status = status;
  doc.version = 3;
  doc.author_id = "alice";
  doc.created_at = kClockStart;
  doc.updated_at = kClockStart;
  if (status == DocumentStatus::kPendingReview) doc.current_review_id = 40;
  return doc;
}

Review ReviewIn(ReviewStatus status) {
  Review review;
  review.id = 40;
  review.document_id = 7;
  review.document_version = 3;
  review.status = status;
  review.submitted_by = "alice";
  review.submitted_at = kClockStart;
  return review;
}

constexpr DocumentStatus kAllDocumentStates[] = {DocumentStatus::kDraft,
                                                 DocumentStatus::kPendingReview,
                                                 DocumentStatus::kApproved,
                                                 DocumentStatus::kRejected};
constexpr ReviewStatus kAllReviewStates[] = {ReviewStatus::kPending, ReviewStatus::kApproved,
                                             ReviewStatus::kRejected, ReviewStatus::kWithdrawn};

// ---- Edit and Submit depend on the document state only.

TEST(LifecycleTest, EditIsAllowedInEveryStateButPendingReview) {
  for (auto state : kAllDocumentStates) {
    SCOPED_TRACE(std::string(ToString(state)));
    Document doc = DocIn(state);
    if (state == DocumentStatus::kApproved) doc.approved_version = 3;
    const Document before = doc;
    const auto s = Edit(doc, /*changed=*/true, kT1);
    const bool allowed = state != DocumentStatus::kPendingReview;
    ASSERT_EQ(s.ok(), allowed);
    if (allowed) {
      EXPECT_EQ(doc.status, DocumentStatus::kDraft);
      EXPECT_EQ(doc.version, 4);
      EXPECT_EQ(doc.updated_at, kT1);
      EXPECT_EQ(doc.approved_version, before.approved_version);
    } else {
      EXPECT_EQ(s.error().code, ErrorCode::kInvalidState);
      EXPECT_NE(s.error().detail.find("withdraw"), std::string::npos) << s.error().detail;
      EXPECT_EQ(doc, before);
    }
  }
}

TEST(LifecycleTest, EditWithoutChangeKeepsVersionButLeavesRejected) {
  Document doc = DocIn(DocumentStatus::kRejected);
  ASSERT_TRUE(Edit(doc, /*changed=*/false, kT1).ok());
  EXPECT_EQ(doc.version, 3);
  EXPECT_EQ(doc.status, DocumentStatus::kDraft);
}

TEST(LifecycleTest, AChangeToAnApprovedDocumentStartsARevisionThatKeepsTheApprovedVersion) {
  Document doc = DocIn(DocumentStatus::kApproved);
  doc.approved_version = 3;
  doc.approved_at = kClockStart;
  doc.ingest_status = IngestStatus::kDone;
  ASSERT_TRUE(Edit(doc, /*changed=*/true, kT1).ok());
  EXPECT_EQ(doc.status, DocumentStatus::kDraft);
  EXPECT_EQ(doc.version, 4);
  EXPECT_EQ(doc.approved_version, 3) << "the approved version stays published";
  EXPECT_EQ(doc.approved_at, kClockStart);
  EXPECT_EQ(doc.ingest_status, IngestStatus::kDone) << "of the approved version, unchanged";
}

TEST(LifecycleTest, AnApprovedDocumentGivenNothingNewStaysAsItIs) {
  Document doc = DocIn(DocumentStatus::kApproved);
  doc.approved_version = 3;
  const Document before = doc;
  ASSERT_TRUE(Edit(doc, /*changed=*/false, kT1).ok());
  EXPECT_EQ(doc, before);
}

TEST(LifecycleTest, SubmitIsAllowedExactlyFromDraftAndRejected) {
  for (auto state : kAllDocumentStates) {
    SCOPED_TRACE(std::string(ToString(state)));
    Document doc = DocIn(state);
    const Document before = doc;
    auto review = Submit(doc, Author(), kT1);
    const bool allowed = state == DocumentStatus::kDraft || state == DocumentStatus::kRejected;
    ASSERT_EQ(review.ok(), allowed);
    if (allowed) {
      EXPECT_EQ(doc.status, DocumentStatus::kPendingReview);
      EXPECT_EQ(review->status, ReviewStatus::kPending);
      EXPECT_EQ(review->document_id, 7);
      EXPECT_EQ(review->document_version, 3) << "a review is bound to the submitted version";
      EXPECT_EQ(review->submitted_by, "alice");
      EXPECT_EQ(review->submitted_at, kT1);
      EXPECT_FALSE(review->decided_by.has_value());
      AttachReview(doc, 99);
      EXPECT_EQ(doc.current_review_id, 99);
    } else {
      EXPECT_EQ(review.error().code, ErrorCode::kInvalidState);
      EXPECT_EQ(doc, before);
    }
  }
}

// ---- Decisions depend on both rows: every (document state, review state) pair.

enum class Decision { kApprove, kReject, kWithdraw };

Status Apply(Decision d, Document& doc, Review& review) {
  switch (d) {
  case Decision::kApprove:
    return Approve(doc, review, Reviewer(), {}, std::string("lgtm"), kT1);
  case Decision::kReject:
    return Reject(doc, review, Reviewer(), {}, "needs work", kT1);
  case Decision::kWithdraw:
    return Withdraw(doc, review, Author(), kT1);
  }
  return Ok{};
}

class DecisionMatrixTest
    : public ::testing::TestWithParam<std::tuple<Decision, DocumentStatus, ReviewStatus>> {};

TEST_P(DecisionMatrixTest, AllowedOnlyForAPendingReviewOfAPendingDocument) {
  const auto [decision, doc_state, review_state] = GetParam();
  Document doc = DocIn(doc_state);
  doc.current_review_id = 40;  // even where the state would not have one: the state must decide
  Review review = ReviewIn(review_state);
  const Document doc_before = doc;
  const Review review_before = review;

  const auto s = Apply(decision, doc, review);
  const bool allowed =
      doc_state == DocumentStatus::kPendingReview && review_state == ReviewStatus::kPending;
  ASSERT_EQ(s.ok(), allowed);
  if (!allowed) {
    EXPECT_EQ(s.error().code, ErrorCode::kInvalidState);
    EXPECT_EQ(doc, doc_before) << "a refused transition changes nothing";
    EXPECT_EQ(review, review_before) << "a decided review never changes";
    return;
  }
  EXPECT_FALSE(doc.current_review_id.has_value());
  EXPECT_EQ(doc.updated_at, kT1);
  EXPECT_EQ(review.decided_at, kT1);
  switch (decision) {
    case Decision::kApprove:
      EXPECT_EQ(doc.status, DocumentStatus::kApproved);
      EXPECT_EQ(doc.approved_version, 3);
      EXPECT_EQ(doc.approved_at, kT1);
      EXPECT_EQ(doc.ingest_status, IngestStatus::kPending);
      EXPECT_EQ(review.status, ReviewStatus::kApproved);
      EXPECT_EQ(review.decided_by, "bob");
      EXPECT_EQ(review.comment, "lgtm");
      break;
    case Decision::kReject:
      EXPECT_EQ(doc.status, DocumentStatus::kRejected);
      EXPECT_FALSE(doc.approved_version.has_value());
      EXPECT_EQ(review.status, ReviewStatus::kRejected);
      EXPECT_EQ(review.comment, "needs work");
      break;
    case Decision::kWithdraw:
      EXPECT_EQ(doc.status, DocumentStatus::kDraft);
      EXPECT_EQ(review.status, ReviewStatus::kWithdrawn);
      EXPECT_EQ(review.decided_by, "alice");
      break;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllPairs, DecisionMatrixTest,
    ::testing::Combine(::testing::Values(Decision::kApprove, Decision::kReject,
                                         Decision::kWithdraw),
                       ::testing::ValuesIn(kAllDocumentStates),
                       ::testing::ValuesIn(kAllReviewStates)));

TEST(LifecycleTest, DecidingAReviewThatIsNotTheCurrentOneIsRefused) {
  for (auto decision : {Decision::kApprove, Decision::kReject, Decision::kWithdraw}) {
    Document doc = DocIn(DocumentStatus::kPendingReview);
    doc.current_review_id = 41;
    Review review = ReviewIn(ReviewStatus::kPending);
    const auto s = Apply(decision, doc, review);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, ErrorCode::kInvalidState);
    EXPECT_EQ(review.status, ReviewStatus::kPending);
  }
}

TEST(LifecycleTest, AReviewBoundToAnOlderVersionCannotBeApproved) {
  Document doc = DocIn(DocumentStatus::kPendingReview);
  doc.version = 4;
  Review review = ReviewIn(ReviewStatus::kPending);
  const auto s = Approve(doc, review, Reviewer(), {}, std::nullopt, kT1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidState);
}

TEST(LifecycleTest, TheAuthorCanNeverDecideTheirOwnDocumentEvenAsAdmin) {
  const Actor self_admin{"alice", "", true, true, true};
  Document doc = DocIn(DocumentStatus::kPendingReview);
  Review review = ReviewIn(ReviewStatus::kPending);
  auto approve = Approve(doc, review, self_admin, {}, std::nullopt, kT1);
  ASSERT_FALSE(approve.ok());
  EXPECT_EQ(approve.error().code, ErrorCode::kSelfReview);
  auto reject = Reject(doc, review, self_admin, {}, "no", kT1);
  ASSERT_FALSE(reject.ok());
  EXPECT_EQ(reject.error().code, ErrorCode::kSelfReview);
  EXPECT_EQ(review.status, ReviewStatus::kPending);
}

TEST(LifecycleTest, AnEditorOfTheVersionUnderReviewCannotDecideItEvenAsAdmin) {
  const Actor editing_admin{"carol", "", false, true, true};
  const std::vector<UserId> editors = {"alice", "carol"};
  Document doc = DocIn(DocumentStatus::kPendingReview);
  Review review = ReviewIn(ReviewStatus::kPending);
  auto approve =
      Approve(doc, review, editing_admin, editors, std::nullopt, kT1);
  ASSERT_FALSE(approve.ok());
  EXPECT_EQ(approve.error().code, ErrorCode::kSelfReview);
  EXPECT_NE(approve.error().detail.find("edited"), std::string::npos)
      << approve.error().detail;
  auto reject = Reject(doc, review, editing_admin, editors, "no", kT1);
  ASSERT_FALSE(reject.ok());
  EXPECT_EQ(reject.error().code, ErrorCode::kSelfReview);
  EXPECT_EQ(review.status, ReviewStatus::kPending);
  EXPECT_EQ(doc.status, DocumentStatus::kPendingReview);
  // Someone who edited nothing still decides.
  EXPECT_TRUE(
      Approve(doc, review, Reviewer(), editors, std::nullopt, kT1).ok());
}

TEST(LifecycleTest, RolesAndOwnership) {
  const Actor nobody{"zed", "", false, false, false};
  const Actor admin{"root", "", false, false, true};
  const Document doc = DocIn(DocumentStatus::kDraft);
  EXPECT_EQ(RequireAuthorRole(nobody).error().code, ErrorCode::kForbidden);
  EXPECT_EQ(RequireReviewerRole(Author()).error().code, ErrorCode::kForbidden);
  EXPECT_TRUE(RequireReviewerRole(admin).ok());
  EXPECT_TRUE(RequireAuthorRole(admin).ok());
  EXPECT_TRUE(RequireOwner(Author(), doc).ok());
  EXPECT_TRUE(RequireOwner(admin, doc).ok());
  const Actor other_author{"carol", "", true, false, false};
  EXPECT_EQ(RequireOwner(other_author, doc).error().code, ErrorCode::kForbidden);
}

TEST(ValidationTest, TitleCountsCharactersNotBytes) {
  EXPECT_EQ(ValidateTitle("").error().code, ErrorCode::kValidation);
  EXPECT_TRUE(ValidateTitle(std::string(200, 'a')).ok());
  EXPECT_FALSE(ValidateTitle(std::string(201, 'a')).ok());
  std::string cjk;
  for (int i = 0; i < 200; ++i) cjk += "\xE6\x96\x87";  // 200 x U+6587, 600 bytes
  EXPECT_TRUE(ValidateTitle(cjk).ok());
  EXPECT_FALSE(ValidateTitle(cjk + "\xE6\x96\x87").ok());
}

TEST(ValidationTest, RejectsInvalidUtf8) {
  EXPECT_FALSE(ValidateTitle("\xC3").ok());              // truncated sequence
  EXPECT_FALSE(ValidateTitle("\xC0\xAF").ok());          // overlong '/'
  EXPECT_FALSE(ValidateTitle("\xED\xA0\x80").ok());      // UTF-16 surrogate
  EXPECT_FALSE(ValidateContent("ok\xFF").ok());
  EXPECT_TRUE(ValidateContent("").ok());
  EXPECT_FALSE(ValidateContent(std::string("a\0b", 3)).ok());
  EXPECT_FALSE(ValidateTitle(std::string("a\0b", 3)).ok());
  EXPECT_TRUE(ValidateContent("\xF0\x9F\x98\x80").ok());  // U+1F600
}

TEST(ValidationTest, ReasonAndCommentBounds) {
  EXPECT_FALSE(ValidateReason("").ok());
  EXPECT_TRUE(ValidateReason(std::string(2000, 'r')).ok());
  EXPECT_FALSE(ValidateReason(std::string(2001, 'r')).ok());
  EXPECT_TRUE(ValidateComment("").ok());
  EXPECT_FALSE(ValidateComment(std::string(2001, 'c')).ok());
}

TEST(ModelTest, StatusNamesRoundTrip) {
  for (auto s : kAllDocumentStates) EXPECT_EQ(ParseDocumentStatus(ToString(s)), s);
  for (auto s : kAllReviewStates) EXPECT_EQ(ParseReviewStatus(ToString(s)), s);
  EXPECT_FALSE(ParseDocumentStatus("pending").has_value());
  EXPECT_EQ(ToString(EventType::kApproved), "document.approved");
  EXPECT_EQ(ParseEventType("document.withdrawn"), EventType::kWithdrawn);
}

}  // namespace
}  // namespace docgate
