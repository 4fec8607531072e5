#pragma once

// The contract of the version history (API.md v1.1, Revisions; ADR 0008) that every DocumentStore
// keeps: each version with its own title, the newest review of each, and the drafts that are not
// kept. A typed suite over the factories of store_contract_fixture.h:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, DocumentVersionsContract, ::testing::Types<F>);

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "contract/store_contract_fixture.h"

namespace docgate {

template <typename Factory>
class DocumentVersionsContract : public StoreContractFixture<Factory> {
 protected:
  bool Drop(DocumentId id, std::int32_t version) {
    auto tx = this->store().Begin();
    const bool dropped = tx->DropUnsubmittedVersion(id, version);
    tx->Commit();
    return dropped;
  }
  std::vector<std::int32_t> KeptVersions(DocumentId id) {
    std::vector<std::int32_t> versions;
    for (const VersionSummary& line : this->store().ListVersions({id, std::nullopt, 100})) {
      versions.push_back(line.version);
    }
    return versions;
  }
  // A review of `version`, with `status`, committed.
  ReviewId AddReview(DocumentId id, std::int32_t version, ReviewStatus status) {
    Review review = ContractReview(id, status);
    review.document_version = version;
    return this->Add(review).id;
  }
};

TYPED_TEST_SUITE_P(DocumentVersionsContract);

TYPED_TEST_P(DocumentVersionsContract, AVersionRoundTripsEveryFieldInChinese) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentVersion written{id,
                                2,
                                "\u5165\u804c\u6307\u5357 (v2)",  // 入职指南
                                "\u7b2c\u4e00\u6b65\uff1a\u7533\u8bf7 VPN \u8d26\u53f7\u3002\n",
                                "\u5f20\u4e09",  // 张三
                                ContractTime(42)};
  this->Committed([&](StoreTransaction& tx) { tx.PutVersion(written); });
  EXPECT_EQ(this->store().FindVersion(id, 2), written);
  EXPECT_EQ(this->store().FindContent(id, 2), written.content);
  EXPECT_EQ(this->store().FindVersion(id, 1), std::nullopt);
  EXPECT_EQ(this->store().FindVersion(id + 1000, 2), std::nullopt);
}

TYPED_TEST_P(DocumentVersionsContract, HistoryIsNewestFirstWithTheNewestReviewOfEachVersion) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  this->Put(id, 1, "v1", "alice");
  this->Put(id, 2, "v2", "carol");
  this->Put(id, 3, "v3", "alice");
  this->Put(other, 1, "other", "mallory");
  this->AddReview(id, 1, ReviewStatus::kRejected);
  const ReviewId approved_v1 = this->AddReview(id, 1, ReviewStatus::kApproved);
  const ReviewId withdrawn_v2 = this->AddReview(id, 2, ReviewStatus::kWithdrawn);
  this->AddReview(other, 1, ReviewStatus::kPending);

  const std::vector<VersionSummary> history = this->store().ListVersions({id, std::nullopt, 100});
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0],
            (VersionSummary{
                3, "Onboarding guide", "alice", ContractTime(5), std::nullopt, std::nullopt, {}}));
  EXPECT_EQ(history[1], (VersionSummary{2,
                                        "Onboarding guide",
                                        "carol",
                                        ContractTime(5),
                                        withdrawn_v2,
                                        ReviewStatus::kWithdrawn,
                                        {}}));
  EXPECT_EQ(history[2], (VersionSummary{1,
                                        "Onboarding guide",
                                        "alice",
                                        ContractTime(5),
                                        approved_v1,
                                        ReviewStatus::kApproved,
                                        {}}));
  EXPECT_EQ(this->store().ListVersions({id + 1000, std::nullopt, 100}),
            std::vector<VersionSummary>{});
}

TYPED_TEST_P(DocumentVersionsContract, OnlyAVersionNoReviewWasBoundToIsDropped) {
  const DocumentId id = this->Add(ContractDocument()).id;
  for (std::int32_t v = 1; v <= 4; ++v) this->Put(id, v, "v" + std::to_string(v));
  this->AddReview(id, 1, ReviewStatus::kApproved);
  this->AddReview(id, 2, ReviewStatus::kWithdrawn);
  EXPECT_FALSE(this->Drop(id, 1)) << "an approved version is kept";
  EXPECT_FALSE(this->Drop(id, 2)) << "a submitted (withdrawn) version is kept";
  EXPECT_TRUE(this->Drop(id, 3)) << "a draft no review was bound to is dropped";
  EXPECT_FALSE(this->Drop(id, 3)) << "dropped once";
  EXPECT_FALSE(this->Drop(id, 9)) << "never written";
  EXPECT_EQ(this->KeptVersions(id), (std::vector<std::int32_t>{4, 2, 1}));
  EXPECT_EQ(this->store().FindVersion(id, 3), std::nullopt);
  EXPECT_EQ(this->store().FindContent(id, 4), "v4");
}

TYPED_TEST_P(DocumentVersionsContract, ADroppedVersionsEditorStaysListed) {
  const DocumentId id = this->Add(ContractDocument()).id;
  this->Put(id, 1, "v1", "alice");
  this->AddReview(id, 1, ReviewStatus::kApproved);
  this->Put(id, 2, "v2", "\u674e\u56db");  // 李四 writes a draft of the revision ...
  this->Put(id, 3, "v3", "alice");         // ... which alice replaces before submitting
  ASSERT_TRUE(this->Drop(id, 2));
  auto tx = this->store().Begin();
  std::vector<UserId> editors = tx->ListEditors(id, 1);
  std::sort(editors.begin(), editors.end());  // the order is the database's collation
  EXPECT_EQ(editors, (std::vector<UserId>{"alice", "\u674e\u56db"}))
      << "four eyes still sees who wrote the dropped draft";
}

// Issue 36, item 7: a kept version names everyone whose text is in it since the kept version
// before it, the editors of the drafts it replaced included, in the order they first wrote.
TYPED_TEST_P(DocumentVersionsContract, AKeptVersionNamesEveryEditorOfTheDraftsItReplaced) {
  const DocumentId id = this->Add(ContractDocument()).id;
  const DocumentId other = this->Add(ContractDocument()).id;
  this->Put(id, 1, "v1", "alice");
  this->AddReview(id, 1, ReviewStatus::kApproved);
  this->Put(id, 2, "v2", "\u674e\u56db");  // 李四 drafts a revision ...
  this->Put(id, 3, "v3", "alice");         // ... alice edits on top of it ...
  ASSERT_TRUE(this->Drop(id, 2));
  this->Put(id, 4, "v4", "\u674e\u56db");  // ... 李四 again ...
  ASSERT_TRUE(this->Drop(id, 3));
  this->Put(id, 5, "v5", "alice");  // ... and alice submits
  ASSERT_TRUE(this->Drop(id, 4));
  this->AddReview(id, 5, ReviewStatus::kPending);
  this->Put(id, 6, "v6", "bob");  // a draft after it: bob's alone
  this->Put(other, 1, "other", "mallory");

  using Editors = std::vector<std::pair<std::int32_t, UserId>>;
  EXPECT_EQ(this->store().ListVersionEditors(id, 1, 6),
            (Editors{{6, "bob"}, {5, "\u674e\u56db"}, {5, "alice"}, {1, "alice"}}));
  EXPECT_EQ(this->store().ListVersionEditors(id, 5, 5),
            (Editors{{5, "\u674e\u56db"}, {5, "alice"}}))
      << "a range that starts at a kept version still looks behind it";
  EXPECT_EQ(this->store().ListVersionEditors(id, 2, 4), Editors{}) << "dropped: not listed";
  EXPECT_EQ(this->store().ListVersionEditors(id + 1000, 1, 6), Editors{});
}

TYPED_TEST_P(DocumentVersionsContract, AnEditorsNewestVersionNeverMovesBack) {
  const DocumentId id = this->Add(ContractDocument()).id;
  this->Put(id, 5, "v5", "carol");
  this->Put(id, 2, "v2", "carol");  // an older version stored later (not a use case's order)
  auto tx = this->store().Begin();
  EXPECT_EQ(tx->ListEditors(id, 4), std::vector<UserId>{"carol"});
}

TYPED_TEST_P(DocumentVersionsContract, ADropIsUndoneWithItsTransaction) {
  const DocumentId id = this->Add(ContractDocument()).id;
  this->Put(id, 1, "v1");
  {
    auto tx = this->store().Begin();
    ASSERT_TRUE(tx->DropUnsubmittedVersion(id, 1));
    EXPECT_EQ(tx->ReadContent(id, 1), std::nullopt) << "the transaction sees its own drop";
  }
  EXPECT_EQ(this->store().FindContent(id, 1), "v1");
}

REGISTER_TYPED_TEST_SUITE_P(DocumentVersionsContract, AVersionRoundTripsEveryFieldInChinese,
                            HistoryIsNewestFirstWithTheNewestReviewOfEachVersion,
                            OnlyAVersionNoReviewWasBoundToIsDropped,
                            ADroppedVersionsEditorStaysListed,
                            AKeptVersionNamesEveryEditorOfTheDraftsItReplaced,
                            AnEditorsNewestVersionNeverMovesBack, ADropIsUndoneWithItsTransaction);

}  // namespace docgate
