#pragma once

// Reviews as teams run them (API.md v1.2 "Review policy", "Comments", "Events"; issue 38), below
// HTTP and on every backend: votes below the quorum told as review.voted, assigned reviewers and
// their queue, comments on the lines of the version under review. The fixture is
// ReviewQuorumContract's (the review use cases over the Stores of one database). A typed suite:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, ReviewTeamContract, ::testing::Types<F>);

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "contract/review_quorum_contract.h"

namespace docgate {

template <typename Factory>
class ReviewTeamContract : public ReviewQuorumContract<Factory> {
 protected:
  using Base = ReviewQuorumContract<Factory>;
  static Actor Admin() { return Actor{"boss", "", false, false, true}; }
  static constexpr char kContent[] = "\u7b2c\u4e00\u884c\n\u7b2c\u4e8c\u884c\n\u7b2c\u4e09\u884c\n";

  // A document of Author's with three lines, submitted with `reviewers` assigned.
  Result<Transition> SubmitAssigning(std::vector<UserId> reviewers) {
    auto doc = this->service_.Create(Base::Author(), "\u90e8\u7f72\u624b\u518c", kContent);
    EXPECT_TRUE(doc.ok());
    return this->service_.Submit(Base::Author(), doc->id,
                                 SubmitRequest{std::nullopt, std::move(reviewers)});
  }
  Result<Review> Assign(ReviewId id, std::vector<UserId> add, std::vector<UserId> remove = {},
                        const Actor& actor = Base::Author()) {
    this->clock_.Advance(std::chrono::milliseconds(1));
    return this->service_.Assign(actor, id, AssigneeChange{std::move(add), std::move(remove)});
  }
  Result<ReviewComment> Comment(ReviewId id, std::string body,
                                std::optional<std::int32_t> line = std::nullopt,
                                std::optional<std::int64_t> parent = std::nullopt) {
    this->clock_.Advance(std::chrono::milliseconds(1));
    return this->service_.Comment(Base::Reviewer("lisi"), id,
                                  CommentRequest{std::move(body), line, parent});
  }
  // The events of `type` taken from the outbox so far, in commit order.
  std::vector<OutboxEvent> Events(EventType type) {
    this->EventsOf(type);  // drains the outbox into seen_
    std::vector<OutboxEvent> found;
    for (const OutboxEvent& event : this->seen_) {
      if (event.type == type) found.push_back(event);
    }
    return found;
  }
  std::vector<ReviewId> Queue(const UserId& assignee) {
    ListReviewsRequest request;
    request.assignee = assignee;
    auto page = this->service_.ReviewQueue(Base::Reviewer("lisi"), request);
    EXPECT_TRUE(page.ok());
    std::vector<ReviewId> ids;
    for (const QueuedReview& item : page->items) ids.push_back(item.review.id);
    return ids;
  }
};

TYPED_TEST_SUITE_P(ReviewTeamContract);

TYPED_TEST_P(ReviewTeamContract, AVoteBelowTheQuorumIsToldAsReviewVoted) {
  const Transition submitted = this->Submitted(3);
  ASSERT_TRUE(this->Approve(submitted.review.id, "lisi").ok());
  ASSERT_TRUE(this->Approve(submitted.review.id, "wangwu").ok());
  const auto voted = this->Events(EventType::kVoted);
  ASSERT_EQ(voted.size(), 2u);
  EXPECT_EQ(voted[0].reviewer_id, "lisi");
  EXPECT_EQ(voted[0].actor_id, "lisi");
  EXPECT_EQ(voted[1].reviewer_id, "wangwu");
  EXPECT_EQ(voted[1].review_id, submitted.review.id);
  EXPECT_EQ(voted[1].document_id, submitted.document.id);
  EXPECT_EQ(voted[1].version, submitted.review.document_version);
  EXPECT_EQ(voted[1].comment_id, std::nullopt);
  ASSERT_TRUE(this->Approve(submitted.review.id, "zhaoliu").ok());
  EXPECT_EQ(this->Events(EventType::kVoted).size(), 2u) << "the completing vote approves instead";
  const auto approved = this->Events(EventType::kApproved);
  ASSERT_EQ(approved.size(), 1u);
  EXPECT_EQ(approved[0].reviewer_id, std::nullopt);
}

TYPED_TEST_P(ReviewTeamContract, ReviewersAssignedAtSubmitAndLaterFillTheirQueues) {
  auto submitted = this->SubmitAssigning({"wangwu", "lisi", "wangwu"});  // read back by id
  ASSERT_TRUE(submitted.ok()) << submitted.error().detail;
  const ReviewId id = submitted->review.id;
  EXPECT_EQ(submitted->review.assignees, (std::vector<UserId>{"lisi", "wangwu"}));
  EXPECT_EQ(this->service_.GetReview(id)->assignees, (std::vector<UserId>{"lisi", "wangwu"}));
  const auto at_submit = this->Events(EventType::kAssigned);
  ASSERT_EQ(at_submit.size(), 2u);
  EXPECT_EQ(at_submit[0].reviewer_id, "lisi");
  EXPECT_EQ(at_submit[1].reviewer_id, "wangwu");
  EXPECT_EQ(at_submit[0].actor_id, TestFixture::Author().id);
  EXPECT_LT(this->Events(EventType::kSubmitted).back().sequence, at_submit[0].sequence);

  auto changed = this->Assign(id, {"\u8d75\u516d", "wangwu"}, {"lisi"});  // 赵六
  ASSERT_TRUE(changed.ok()) << changed.error().detail;
  EXPECT_EQ(changed->assignees, (std::vector<UserId>{"wangwu", "\u8d75\u516d"}));
  EXPECT_EQ(*this->service_.GetReview(id), *changed);
  EXPECT_EQ(this->Events(EventType::kAssigned).size(), 3u) << "only the one newly assigned";
  EXPECT_EQ(this->Queue("\u8d75\u516d"), std::vector<ReviewId>{id});
  EXPECT_EQ(this->Queue("lisi"), std::vector<ReviewId>{});

  auto again = this->Assign(id, {"wangwu"}, {"lisi"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *changed) << "what already holds changes nothing";
  EXPECT_EQ(this->Events(EventType::kAssigned).size(), 3u);
  // Assignment decides whose queue shows it, not who may vote.
  ASSERT_TRUE(this->Approve(id, "sunqi").ok());
}

TYPED_TEST_P(ReviewTeamContract, AnAssigneeWhoWroteTheVersionIsSelfReview) {
  auto refused = this->SubmitAssigning({"lisi", TestFixture::Author().id});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kSelfReview);
  EXPECT_TRUE(this->Events(EventType::kSubmitted).empty()) << "nothing of the submission stays";

  auto doc = this->service_.Create(TestFixture::Author(), "t", "a\n");
  ASSERT_TRUE(doc.ok());
  ASSERT_TRUE(
      this->service_.Edit(TestFixture::Admin(), doc->id, EditRequest{{}, "b\n", {}, std::nullopt})
          .ok());
  auto submitted = this->service_.Submit(TestFixture::Author(), doc->id);
  ASSERT_TRUE(submitted.ok());
  const auto edited_it = this->Assign(submitted->review.id, {"boss"});
  ASSERT_FALSE(edited_it.ok());
  EXPECT_EQ(edited_it.error().code, ErrorCode::kSelfReview) << "the admin edited the version";
  EXPECT_TRUE(this->service_.GetReview(submitted->review.id)->assignees.empty());
}

TYPED_TEST_P(ReviewTeamContract, OnlyTheAuthorOrAnAdminAssignsAndOnlyWhilePending) {
  auto submitted = this->SubmitAssigning({});
  ASSERT_TRUE(submitted.ok());
  const ReviewId id = submitted->review.id;
  const Actor other_author{"wangwu", "", true, false, false};
  EXPECT_EQ(this->Assign(id, {"lisi"}, {}, other_author).error().code, ErrorCode::kForbidden);
  EXPECT_EQ(this->Assign(id, {"lisi"}, {}, TestFixture::Reviewer("lisi")).error().code,
            ErrorCode::kForbidden);
  auto by_admin = this->Assign(id, {"lisi"}, {}, TestFixture::Admin());
  ASSERT_TRUE(by_admin.ok());
  EXPECT_EQ(by_admin->assignees, std::vector<UserId>{"lisi"});
  EXPECT_EQ(this->Assign(id, {}, {}).error().code, ErrorCode::kValidation);
  EXPECT_EQ(this->Assign(id, {"lisi"}, {"lisi"}).error().code, ErrorCode::kValidation);
  EXPECT_EQ(this->Assign(id, {""}).error().code, ErrorCode::kValidation);
  EXPECT_EQ(this->Assign(999, {"lisi"}).error().code, ErrorCode::kNotFound);
  std::vector<UserId> many;
  for (std::size_t i = 0; i < kMaxAssignees; ++i) many.push_back("r" + std::to_string(i));
  EXPECT_EQ(this->Assign(id, many).error().code, ErrorCode::kValidation)
      << "lisi and twenty more are above the bound";
  EXPECT_EQ(this->service_.GetReview(id)->assignees, std::vector<UserId>{"lisi"});

  ASSERT_TRUE(this->Approve(id, "wangwu").ok());
  EXPECT_EQ(this->Assign(id, {"zhaoliu"}).error().code, ErrorCode::kInvalidState);
}

TYPED_TEST_P(ReviewTeamContract, CommentsOnLinesRepliesAndPages) {
  auto submitted = this->SubmitAssigning({});
  ASSERT_TRUE(submitted.ok());
  const ReviewId id = submitted->review.id;
  auto on_line = this->Comment(id, "\u7b2c\u4e09\u884c\u8981\u6539", 3);  // 第三行要改
  ASSERT_TRUE(on_line.ok()) << on_line.error().detail;
  EXPECT_EQ(on_line->line, 3);
  EXPECT_EQ(on_line->review_id, id);
  EXPECT_EQ(on_line->document_version, submitted->review.document_version);
  EXPECT_EQ(on_line->author_id, "lisi");
  auto reply = this->Comment(id, "\u597d", std::nullopt, on_line->id);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->parent_id, on_line->id);
  EXPECT_GT(reply->id, on_line->id);

  EXPECT_EQ(this->Comment(id, "x", 4).error().code, ErrorCode::kValidation) << "3 lines only";
  EXPECT_EQ(this->Comment(id, "x", 0).error().code, ErrorCode::kValidation);
  EXPECT_EQ(this->Comment(id, "").error().code, ErrorCode::kValidation);
  EXPECT_EQ(this->Comment(id, " \n\t").error().code, ErrorCode::kValidation);
  EXPECT_EQ(this->Comment(id, std::string(4001, 'x')).error().code, ErrorCode::kValidation);
  EXPECT_EQ(this->Comment(999, "x").error().code, ErrorCode::kNotFound);
  auto other = this->SubmitAssigning({});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(this->Comment(other->review.id, "x", std::nullopt, on_line->id).error().code,
            ErrorCode::kValidation)
      << "a reply stays on its review";
  EXPECT_EQ(this->Comment(id, "x", std::nullopt, 999).error().code, ErrorCode::kValidation);
  ASSERT_TRUE(this->Comment(id, std::string(4000, 'x')).ok());
  ASSERT_TRUE(this->Comment(id, "\u6700\u540e\u4e00\u6761").ok());

  const auto commented = this->Events(EventType::kCommented);
  ASSERT_EQ(commented.size(), 4u);
  EXPECT_EQ(commented[0].comment_id, on_line->id);
  EXPECT_EQ(commented[1].comment_id, reply->id);
  EXPECT_EQ(commented[0].actor_id, "lisi");
  EXPECT_EQ(commented[0].reviewer_id, std::nullopt);

  std::vector<ReviewComment> all;
  PageRequest page{3, std::nullopt};
  for (int pages = 1;; ++pages) {
    auto listed = this->service_.ListComments(id, page);
    ASSERT_TRUE(listed.ok());
    all.insert(all.end(), listed->items.begin(), listed->items.end());
    if (!listed->next) {
      EXPECT_EQ(pages, 2);
      break;
    }
    page.after = listed->next;
  }
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0], *on_line);
  EXPECT_EQ(all[1], *reply);
  EXPECT_EQ(all[3].body, "\u6700\u540e\u4e00\u6761");
  EXPECT_EQ(this->service_.ListComments(999).error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(this->service_.ListComments(other->review.id)->items.empty());

  ASSERT_TRUE(this->service_.Withdraw(TestFixture::Author(), submitted->document.id).ok());
  EXPECT_EQ(this->Comment(id, "x").error().code, ErrorCode::kInvalidState);
  EXPECT_EQ(this->service_.ListComments(id)->items.size(), 4u) << "kept after the decision";
}

TYPED_TEST_P(ReviewTeamContract, ANewReviewStartsWithoutTheOldOnesAssigneesAndVotes) {
  const Transition submitted = *this->SubmitAssigning({"lisi"});
  ASSERT_TRUE(this->service_.Withdraw(TestFixture::Author(), submitted.document.id).ok());
  auto again = this->service_.Submit(TestFixture::Author(), submitted.document.id);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->review.assignees.empty());
  EXPECT_TRUE(again->review.approvals.empty());
  EXPECT_EQ(this->Queue("lisi"), std::vector<ReviewId>{});
}

// The store's own rules under the use cases: a second assignment and a reply to a missing comment
// are refused by the database; events carry their review fields through the outbox.
TYPED_TEST_P(ReviewTeamContract, TheStoreRefusesDuplicatesAndKeepsEventFields) {
  auto submitted = this->SubmitAssigning({"lisi"});
  ASSERT_TRUE(submitted.ok());
  const ReviewId id = submitted->review.id;
  {
    auto tx = this->stores_.documents->Begin();
    ASSERT_TRUE(tx->LockReview(id));
    EXPECT_THROW(tx->AddAssignee(id, "lisi", "x", this->clock_.Now()), StorageError);
  }
  {
    auto tx = this->stores_.documents->Begin();
    ASSERT_TRUE(tx->LockReview(id));
    EXPECT_FALSE(tx->RemoveAssignee(id, "nobody"));
    EXPECT_TRUE(tx->RemoveAssignee(id, "lisi"));
  }  // rolled back
  EXPECT_EQ(this->service_.GetReview(id)->assignees, std::vector<UserId>{"lisi"});
  {
    auto tx = this->stores_.documents->Begin();
    ASSERT_TRUE(tx->LockReview(id));
    ReviewComment orphan{0, id, 1, "lisi", "x", std::nullopt, 12345, this->clock_.Now()};
    EXPECT_THROW(tx->InsertComment(orphan), StorageError);
  }
  auto comment = this->Comment(id, "\u6ce8\u610f", 1);  // 注意
  ASSERT_TRUE(comment.ok());
  const auto commented = this->Events(EventType::kCommented);
  ASSERT_EQ(commented.size(), 1u);
  EXPECT_EQ(commented[0].comment_id, comment->id);
  EXPECT_EQ(this->Events(EventType::kAssigned).at(0).reviewer_id, "lisi");
}

REGISTER_TYPED_TEST_SUITE_P(ReviewTeamContract, AVoteBelowTheQuorumIsToldAsReviewVoted,
                            ReviewersAssignedAtSubmitAndLaterFillTheirQueues,
                            AnAssigneeWhoWroteTheVersionIsSelfReview,
                            OnlyTheAuthorOrAnAdminAssignsAndOnlyWhilePending,
                            CommentsOnLinesRepliesAndPages,
                            ANewReviewStartsWithoutTheOldOnesAssigneesAndVotes,
                            TheStoreRefusesDuplicatesAndKeepsEventFields);

}  // namespace docgate
