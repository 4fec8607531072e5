#pragma once

// Quorums (API.md v1.2 "Review policy"; issue 38), below HTTP and on every backend: the review use
// cases (DocumentService) over the Stores of one database. A review needing N approvals collects
// them, each under the review's gate and row locks; the one that reaches N approves the review and
// the document and writes the one document.approved event, however many reviewers click at once.
// A typed suite over the factories of store_contract_fixture.h:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, ReviewQuorumContract, ::testing::Types<F>);

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "app/document_service.h"
#include "contract/store_contract_fixture.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"

namespace docgate {

template <typename Factory>
class ReviewQuorumContract : public ::testing::Test {
 protected:
  static Actor Author() { return Actor{"\u5f20\u4e09", "", true, false, false}; }  // 张三
  static Actor Reviewer(const UserId& id) { return Actor{id, "", false, true, false}; }

  // A document of Author's, submitted for `required` approvals (nullopt: the quorum).
  Transition Submitted(std::optional<std::int32_t> required) {
    auto doc = service_.Create(Author(), "\u503c\u73ed\u624b\u518c", "\u4ea4\u63a5\u73ed\u3002");
    EXPECT_TRUE(doc.ok());
    auto t = service_.Submit(Author(), doc->id, SubmitRequest{required, {}});
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().detail);
    return *t;
  }
  Result<Transition> Approve(ReviewId review, const UserId& reviewer,
                             std::optional<std::string> comment = std::nullopt) {
    clock_.Advance(std::chrono::milliseconds(1));  // approvals at distinct times
    return service_.Approve(Reviewer(reviewer), review, comment);
  }
  // The events of `type` written so far (each taken from the outbox once, marked delivered, and
  // kept).
  int EventsOf(EventType type) {
    for (auto batch = stores_.outbox->ClaimPending(1000); !batch.empty();
         batch = stores_.outbox->ClaimPending(1000)) {
      std::vector<std::int64_t> sequences;
      for (const OutboxEvent& event : batch) sequences.push_back(event.sequence);
      stores_.outbox->MarkDelivered(sequences, clock_.Now());
      seen_.insert(seen_.end(), batch.begin(), batch.end());
    }
    int count = 0;
    for (const OutboxEvent& event : seen_) count += event.type == type ? 1 : 0;
    return count;
  }
  static std::vector<UserId> Reviewers(const Review& review) {
    std::vector<UserId> ids;
    for (const Approval& approval : review.approvals) ids.push_back(approval.reviewer_id);
    return ids;
  }

  Factory factory_;
  Stores stores_ = factory_.Make();
  FakeClock clock_;
  FakeRandom random_;
  FakeLockGate gate_{clock_, random_};
  CountingWakeup wakeup_;
  DocumentService service_{*stores_.documents, gate_, clock_, random_, wakeup_};
  std::vector<OutboxEvent> seen_;
};

TYPED_TEST_SUITE_P(ReviewQuorumContract);

TYPED_TEST_P(ReviewQuorumContract, AtTheDefaultQuorumOneApprovalDecides) {
  const Transition submitted = this->Submitted(std::nullopt);
  EXPECT_EQ(submitted.review.required_approvals, 1);
  EXPECT_TRUE(submitted.review.approvals.empty());
  auto approved = this->Approve(submitted.review.id, "lisi", "\u6e05\u695a");  // 清楚
  ASSERT_TRUE(approved.ok());
  EXPECT_EQ(approved->review.status, ReviewStatus::kApproved);
  EXPECT_EQ(approved->document.status, DocumentStatus::kApproved);
  ASSERT_EQ(approved->review.approvals.size(), 1u);
  EXPECT_EQ(approved->review.approvals[0].reviewer_id, "lisi");
  EXPECT_EQ(approved->review.approvals[0].comment, "\u6e05\u695a");
  EXPECT_EQ(this->service_.GetReview(submitted.review.id)->approvals, approved->review.approvals);
  EXPECT_EQ(this->EventsOf(EventType::kApproved), 1);
}

TYPED_TEST_P(ReviewQuorumContract, BelowTheQuorumAnApprovalCountsAndDecidesNothing) {
  const Transition submitted = this->Submitted(3);
  EXPECT_EQ(submitted.review.required_approvals, 3);
  const ReviewId id = submitted.review.id;
  for (const char* reviewer : {"lisi", "wangwu"}) {
    auto counted = this->Approve(id, reviewer);
    ASSERT_TRUE(counted.ok()) << reviewer;
    EXPECT_EQ(counted->review.status, ReviewStatus::kPending);
    EXPECT_EQ(counted->document.status, DocumentStatus::kPendingReview);
    EXPECT_EQ(counted->review.decided_by, std::nullopt);
  }
  const Review stored = *this->service_.GetReview(id);
  EXPECT_EQ(this->Reviewers(stored), (std::vector<UserId>{"lisi", "wangwu"}));
  EXPECT_EQ(stored.status, ReviewStatus::kPending);
  EXPECT_EQ(this->service_.GetDocument(submitted.document.id)->status,
            DocumentStatus::kPendingReview);
  EXPECT_EQ(this->EventsOf(EventType::kApproved), 0);

  auto decided = this->Approve(id, "zhaoliu", "\u53ef\u4ee5\u53d1\u5e03");  // 可以发布
  ASSERT_TRUE(decided.ok());
  EXPECT_EQ(decided->review.status, ReviewStatus::kApproved);
  EXPECT_EQ(decided->review.decided_by, "zhaoliu") << "the approval that completed it";
  EXPECT_EQ(decided->review.comment, "\u53ef\u4ee5\u53d1\u5e03");
  EXPECT_EQ(decided->document.status, DocumentStatus::kApproved);
  EXPECT_EQ(decided->document.approved_version, submitted.review.document_version);
  EXPECT_EQ(this->Reviewers(decided->review), (std::vector<UserId>{"lisi", "wangwu", "zhaoliu"}));
  EXPECT_EQ(*this->service_.GetReview(id), decided->review);
  EXPECT_EQ(this->EventsOf(EventType::kApproved), 1);
  EXPECT_EQ(this->Approve(id, "sunqi").error().code, ErrorCode::kInvalidState)
      << "an approved review takes no more approvals";
}

TYPED_TEST_P(ReviewQuorumContract, AReviewerApprovesOnce) {
  const ReviewId id = this->Submitted(2).review.id;
  ASSERT_TRUE(this->Approve(id, "lisi").ok());
  const auto again = this->Approve(id, "lisi");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyVoted);
  EXPECT_EQ(this->Reviewers(*this->service_.GetReview(id)), std::vector<UserId>{"lisi"});
  EXPECT_EQ(this->service_.GetReview(id)->status, ReviewStatus::kPending);
}

TYPED_TEST_P(ReviewQuorumContract, OneRejectionRejectsWhateverTheApprovals) {
  const Transition submitted = this->Submitted(2);
  ASSERT_TRUE(this->Approve(submitted.review.id, "lisi").ok());
  auto rejected = this->service_.Reject(TestFixture::Reviewer("wangwu"), submitted.review.id,
                                        "\u7f3a\u5c11\u793a\u4f8b");  // 缺少示例
  ASSERT_TRUE(rejected.ok());
  EXPECT_EQ(rejected->review.status, ReviewStatus::kRejected);
  EXPECT_EQ(rejected->document.status, DocumentStatus::kRejected);
  EXPECT_EQ(this->Reviewers(rejected->review), std::vector<UserId>{"lisi"});
  EXPECT_EQ(this->EventsOf(EventType::kApproved), 0);
  EXPECT_EQ(this->EventsOf(EventType::kRejected), 1);
}

TYPED_TEST_P(ReviewQuorumContract, AWithdrawnReviewsApprovalsDoNotCarryOver) {
  const Transition submitted = this->Submitted(2);
  ASSERT_TRUE(this->Approve(submitted.review.id, "lisi").ok());
  ASSERT_TRUE(this->service_.Withdraw(TestFixture::Author(), submitted.document.id).ok());
  EXPECT_EQ(this->Approve(submitted.review.id, "wangwu").error().code, ErrorCode::kInvalidState);
  const Transition again = this->Submitted(std::nullopt);  // another document: the quorum, 1
  EXPECT_EQ(again.review.required_approvals, 1);
  auto resubmitted =
      this->service_.Submit(TestFixture::Author(), submitted.document.id, SubmitRequest{2, {}});
  ASSERT_TRUE(resubmitted.ok());
  EXPECT_TRUE(resubmitted->review.approvals.empty()) << "a new review starts with none";
  ASSERT_TRUE(this->Approve(resubmitted->review.id, "lisi").ok()) << "lisi may approve it again";
  EXPECT_EQ(this->service_.GetReview(resubmitted->review.id)->status, ReviewStatus::kPending);
  EXPECT_EQ(this->Reviewers(*this->service_.GetReview(submitted.review.id)),
            std::vector<UserId>{"lisi"})
      << "the withdrawn review keeps its history";
}

TYPED_TEST_P(ReviewQuorumContract, FourEyesHoldForEveryApproval) {
  const Transition submitted = this->Submitted(2);
  const Actor author_as_admin{TestFixture::Author().id, "", true, true, true};
  const auto own = this->service_.Approve(author_as_admin, submitted.review.id, std::nullopt);
  ASSERT_FALSE(own.ok());
  EXPECT_EQ(own.error().code, ErrorCode::kSelfReview);
  EXPECT_TRUE(this->service_.GetReview(submitted.review.id)->approvals.empty());
}

TYPED_TEST_P(ReviewQuorumContract, TheSubmissionMayAskForMoreApprovalsWithinBounds) {
  auto doc = this->service_.Create(TestFixture::Author(), "t", "c");
  ASSERT_TRUE(doc.ok());
  for (const std::int32_t bad : {0, -1, 11}) {
    const auto refused =
        this->service_.Submit(TestFixture::Author(), doc->id, SubmitRequest{bad, {}});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().code, ErrorCode::kValidation) << bad;
  }
  EXPECT_EQ(this->service_.GetDocument(doc->id)->status, DocumentStatus::kDraft);
  auto ten = this->service_.Submit(TestFixture::Author(), doc->id, SubmitRequest{10, {}});
  ASSERT_TRUE(ten.ok());
  EXPECT_EQ(this->service_.GetReview(ten->review.id)->required_approvals, 10);
}

// Six reviewers approve a review needing two at the same moment, many times over: the database's
// row locks (the gate refuses some with LOCK_BUSY, and they retry) let exactly two approvals in,
// the second approves, and one document.approved is written.
TYPED_TEST_P(ReviewQuorumContract, SimultaneousApprovalsRecordExactlyTheQuorum) {
  constexpr int kRounds = 5;
  constexpr int kReviewers = 6;
  for (int round = 0; round < kRounds; ++round) {
    const Transition submitted = this->Submitted(2);
    std::latch start(kReviewers);
    std::atomic<int> counted{0};
    std::atomic<int> approving{0};
    std::atomic<int> other{0};
    std::vector<std::thread> threads;
    for (int r = 0; r < kReviewers; ++r) {
      threads.emplace_back([&, r] {
        const Actor reviewer = TestFixture::Reviewer("reviewer-" + std::to_string(r));
        start.arrive_and_wait();
        for (;;) {
          auto t = this->service_.Approve(reviewer, submitted.review.id, std::nullopt);
          if (!t.ok() && t.error().code == ErrorCode::kLockBusy) continue;
          if (!t.ok()) {
            other.fetch_add(t.error().code == ErrorCode::kInvalidState ? 1 : 1000);
          } else if (t->review.status == ReviewStatus::kApproved) {
            approving.fetch_add(1);
          } else {
            counted.fetch_add(1);
          }
          return;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(counted.load(), 1) << "round " << round;
    EXPECT_EQ(approving.load(), 1) << "round " << round;
    EXPECT_EQ(other.load(), kReviewers - 2) << "round " << round << ": only INVALID_STATE";
    const Review stored = *this->service_.GetReview(submitted.review.id);
    EXPECT_EQ(stored.status, ReviewStatus::kApproved);
    EXPECT_EQ(stored.approvals.size(), 2u);
    // At one instant (this clock stands still) approvals are listed by reviewer id; the one that
    // completed the review is its decider.
    const std::vector<UserId> ids = TestFixture::Reviewers(stored);
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << "round " << round;
    EXPECT_NE(std::find(ids.begin(), ids.end(), stored.decided_by.value_or("")), ids.end());
  }
  EXPECT_EQ(this->EventsOf(EventType::kApproved), kRounds);
}

REGISTER_TYPED_TEST_SUITE_P(ReviewQuorumContract, AtTheDefaultQuorumOneApprovalDecides,
                            BelowTheQuorumAnApprovalCountsAndDecidesNothing, AReviewerApprovesOnce,
                            OneRejectionRejectsWhateverTheApprovals,
                            AWithdrawnReviewsApprovalsDoNotCarryOver, FourEyesHoldForEveryApproval,
                            TheSubmissionMayAskForMoreApprovalsWithinBounds,
                            SimultaneousApprovalsRecordExactlyTheQuorum);

}  // namespace docgate
