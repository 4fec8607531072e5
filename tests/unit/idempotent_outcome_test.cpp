// The stored form of an idempotent answer (app/idempotent_outcome.h, ADR 0007): every outcome comes
// back field for field, Chinese and emoji included, as ASCII text; any other text is refused with
// StorageError naming what is wrong, never a crash or a half-read outcome.

#include "app/idempotent_outcome.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "app/idempotency.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

constexpr TimePoint kT0{1'764'600'000'123ms};

Document Draft() {
  Document d;
  d.id = 17;
  d.title = "入职指南 — 第二版 🚀 \"quoted\" 100% \\ back";
  d.status = DocumentStatus::kDraft;
  d.version = 3;
  d.author_id = "张伟";
  d.created_at = kT0;
  d.updated_at = kT0 + 5s;
  return d;
}

Transition Approved() {
  Document d = Draft();
  d.status = DocumentStatus::kApproved;
  d.current_review_id = 40;
  d.approved_version = 3;
  d.approved_at = kT0 + 1h;
  d.ingest_status = IngestStatus::kPending;
  Review r;
  r.id = 40;
  r.document_id = d.id;
  r.document_version = 3;
  r.status = ReviewStatus::kApproved;
  r.submitted_by = "张伟";
  r.submitted_at = kT0 + 10s;
  r.decided_by = "李娜";
  r.decided_at = kT0 + 1h;
  r.comment = "写得很好。\nSecond line\twith a tab, and %41 not an escape";
  return {d, r};
}

void ExpectRoundTrip(const IdempotentOutcome& outcome) {
  const std::string stored = EncodeOutcome(outcome);
  EXPECT_TRUE(IsEncodedOutcome(stored));
  for (const char c : stored) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (byte >= 0x20 && byte < 0x7F)) << "ASCII lines only: " << stored;
  }
  EXPECT_EQ(DecodeOutcome(stored), outcome) << stored;
  EXPECT_EQ(EncodeOutcome(DecodeOutcome(stored)), stored);
}

TEST(IdempotentOutcome, ACreatedDocumentRoundTrips) {
  ExpectRoundTrip(IdempotentOutcome::Created(Draft()));
}

TEST(IdempotentOutcome, ATransitionRoundTripsWithEveryOptionalFieldSetOrNot) {
  const Transition approved = Approved();
  ExpectRoundTrip(IdempotentOutcome::Transitioned(approved.document, approved.review));
  Review pending = approved.review;
  pending.status = ReviewStatus::kPending;
  pending.decided_by.reset();
  pending.decided_at.reset();
  pending.comment.reset();
  ExpectRoundTrip(IdempotentOutcome::Transitioned(Draft(), pending));
  pending.comment = "";  // an empty comment is not an absent one
  ExpectRoundTrip(IdempotentOutcome::Transitioned(Draft(), pending));
}

TEST(IdempotentOutcome, ARefusalRoundTripsWithItsDetailCapped) {
  for (const ErrorCode code : {ErrorCode::kInvalidState, ErrorCode::kSelfReview}) {
    ExpectRoundTrip(IdempotentOutcome::Refused(MakeError(code, "文档 17 处于草稿状态；不能撤回")));
  }
  std::string chinese;
  for (int i = 0; i < 300; ++i) chinese += "审";
  const auto refused = IdempotentOutcome::Refused(MakeError(ErrorCode::kSelfReview, chinese));
  EXPECT_EQ(refused.detail, StoredDetail(chinese));
  EXPECT_LE(refused.detail.size(), kMaxStoredDetailBytes);
  ExpectRoundTrip(refused);
}

TEST(IdempotentOutcome, CommentsAndAssigneesRoundTrip) {
  Transition t = Approved();
  t.review.assignees = {"\u674e\u56db", "reviewer-2"};
  ExpectRoundTrip(IdempotentOutcome::Transitioned(t.document, t.review));
  ReviewComment comment{7,
                        t.review.id,
                        3,
                        "\u738b\u4e94",
                        "\u7b2c\u4e8c\u6b65\u5199\u9519\u4e86%\n\u6362\u884c",
                        12,
                        5,
                        t.review.submitted_at};
  ExpectRoundTrip(IdempotentOutcome::Commented(comment));
  comment.line.reset();
  comment.parent_id.reset();
  ExpectRoundTrip(IdempotentOutcome::Commented(comment));
}

TEST(IdempotentOutcome, FieldsItDoesNotKnowAreIgnored) {
  const auto outcome = IdempotentOutcome::Created(Draft());
  EXPECT_EQ(DecodeOutcome(EncodeOutcome(outcome) + "document.labels a,b\n"), outcome);
}

TEST(IdempotentOutcome, AnOutcomeAboveTheBoundIsRefusedNotStored) {
  Document d = Draft();
  d.title = std::string(kMaxStoredOutcomeBytes, 't');
  EXPECT_THROW(EncodeOutcome(IdempotentOutcome::Created(d)), std::length_error);
}

TEST(IdempotentOutcome, TextThatIsNotUtf8WithoutNulIsRefusedNotStored) {
  Document d = Draft();
  d.title = "caf\xC3";
  EXPECT_THROW(EncodeOutcome(IdempotentOutcome::Created(d)), std::invalid_argument);
  d.title = std::string("a\0b", 3);
  EXPECT_THROW(EncodeOutcome(IdempotentOutcome::Created(d)), std::invalid_argument);
}

TEST(IdempotentOutcome, AnOlderRecordIsNotAnEncodedOutcome) {
  // What docgate stored before ADR 0007: the HTTP response as a JSON envelope.
  EXPECT_FALSE(IsEncodedOutcome(R"({"status":201,"headers":[],"body":""})"));
  EXPECT_FALSE(IsEncodedOutcome(""));
}

TEST(IdempotentOutcome, UnreadableTextIsAStorageErrorThatSaysWhy) {
  const std::string good = EncodeOutcome(IdempotentOutcome::Created(Draft()));
  const std::string header = std::string(kOutcomeFormat) + "1\n";
  const auto replace = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},
      {"not an outcome\n", "does not begin"},
      {std::string(kOutcomeFormat) + "2\nkind created\n", "format version '2'"},
      {header + "kind bogus\n", "field kind has no valid value"},
      {header + "kind created\n", "field document.id is missing"},
      {header + "kind refused\nrefusal.code NOPE\nrefusal.detail x\n", "field refusal.code"},
      {header + "kind refused\nrefusal.code INVALID_STATE\n", "refusal.detail is missing"},
      {header + "kind refused\nkind refused\n", "given twice"},
      {header + "kind transitioned\nnospace\n", "not \"name value\""},
      {good.substr(0, good.size() - 1), "not ended"},
      {replace("document.id 17", "document.id 99999999999999999999"), "not a number in range"},
      {replace("document.version 3", "document.version 3x"), "not a number"},
      {replace("document.status draft", "document.status done"), "document.status"},
      {replace("document.created_at 2025", "document.created_at x2025"), "document.created_at"},
      {replace("document.author_id ", "document.author_id %E5%"), "malformed %-escape"},
      {replace("document.author_id ", "document.author_id %FF"), "not UTF-8 without NUL"},
      {replace("document.author_id ", "document.author_id %00"), "not UTF-8 without NUL"},
      {replace("kind created", "kind transitioned"), "field review.id is missing"},
  };
  for (const auto& [text, why] : cases) {
    try {
      (void)DecodeOutcome(text);
      ADD_FAILURE() << "decoded: " << text;
    } catch (const StorageError& e) {
      EXPECT_NE(std::string(e.what()).find("stored idempotent outcome is unreadable"),
                std::string::npos);
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace docgate
