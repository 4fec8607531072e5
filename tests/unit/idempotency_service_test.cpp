#include <gtest/gtest.h>

#include "app/idempotency.h"
#include "core/utf8.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"
#include "fakes/fake_stores.h"
#include "support/test_actors.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

IdempotentRequest Request(const std::string& fingerprint = "fp-1",
                          const std::string& caller = "alice", const std::string& key = "k-1") {
  return IdempotentRequest{caller, key, fingerprint};
}

// An answer without an effect, as RestApi stores one.
IdempotentOutcome Answer(const std::string& detail = "answer") {
  return IdempotentOutcome::Refused(MakeError(ErrorCode::kInvalidState, detail));
}

class IdempotencyServiceTest : public ::testing::Test {
 protected:
  IdempotencyDecision Begin(const IdempotentRequest& request = Request()) {
    return idempotency_.Begin(request);
  }
  IdempotencyDecision MustProceed(const IdempotentRequest& request = Request()) {
    auto decision = Begin(request);
    EXPECT_EQ(decision.verdict, IdempotencyVerdict::kProceed);
    EXPECT_FALSE(decision.owner.empty());
    return decision;
  }
  // The outcome replayed for `request`.
  IdempotentOutcome Replayed(const IdempotentRequest& request = Request()) {
    const auto decision = Begin(request);
    EXPECT_EQ(decision.verdict, IdempotencyVerdict::kReplay);
    return DecodeOutcome(decision.response);
  }

  FakeClock clock_;
  FakeRandom random_;
  FakeStores fakes_ = OpenFakeStores();
  FakeLockGate gate_{clock_, random_};
  CountingWakeup wakeup_;
  DocumentService service_{*fakes_.stores.documents, gate_, clock_, random_, wakeup_};
  IdempotencyService idempotency_{*fakes_.stores.idempotency, clock_, random_,
                                  IdempotencyConfig{24h, 30s, 2}};
};

TEST_F(IdempotencyServiceTest, TheFirstRequestProceedsAndTheSameOneMeanwhileIsInFlight) {
  MustProceed();
  EXPECT_EQ(Begin().verdict, IdempotencyVerdict::kInFlight);
  clock_.Advance(29'999ms);
  EXPECT_EQ(Begin().verdict, IdempotencyVerdict::kInFlight);
}

TEST_F(IdempotencyServiceTest, ADifferentRequestUnderTheKeyIsKeyReusedInFlightOrAnswered) {
  const auto first = MustProceed();
  EXPECT_EQ(Begin(Request("fp-2")).verdict, IdempotencyVerdict::kKeyReused);
  ASSERT_TRUE(idempotency_.CompleteWithoutEffect(Request(), first.owner, Answer()));
  EXPECT_EQ(Begin(Request("fp-2")).verdict, IdempotencyVerdict::kKeyReused);
  EXPECT_EQ(Begin().verdict, IdempotencyVerdict::kReplay);
}

TEST_F(IdempotencyServiceTest, KeysOfDifferentCallersAreIndependent) {
  MustProceed(Request("fp-1", "alice"));
  MustProceed(Request("fp-2", "carol"));
  EXPECT_EQ(Begin(Request("fp-1", "carol")).verdict, IdempotencyVerdict::kKeyReused);
}

TEST_F(IdempotencyServiceTest, TheHookStoresTheResponseWithTheEffectAndItIsReplayed) {
  const auto first = MustProceed();
  auto doc = service_.Create(kAlice, "Guide", "body", DocumentFormat::kMarkdown,
                             idempotency_.CompleteOnCommit(Request(), first.owner));
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(Replayed(), IdempotentOutcome::Created(*doc));
  // Transitions hand the review to the hook as well.
  const auto submit = MustProceed(Request("fp-s", "alice", "k-s"));
  auto t =
      service_.Submit(kAlice, doc->id, {},
                      idempotency_.CompleteOnCommit(Request("fp-s", "alice", "k-s"), submit.owner));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Replayed(Request("fp-s", "alice", "k-s")),
            IdempotentOutcome::Transitioned(t->document, t->review));
}

TEST_F(IdempotencyServiceTest, TheHookStoresExactlyWhatTheCreateAnswers) {
  const auto first = MustProceed();
  auto doc = service_.Create(kAlice, "指南", "body", DocumentFormat::kMarkdown,
                             idempotency_.CompleteOnCommit(Request(), first.owner));
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(Replayed(), IdempotentOutcome::Created(*doc));
}

TEST_F(IdempotencyServiceTest, AStoredResponseIsReplayedUntilTheTtlEnds) {
  const auto first = MustProceed();
  clock_.Advance(5s);
  ASSERT_TRUE(idempotency_.CompleteWithoutEffect(Request(), first.owner, Answer()));
  clock_.Advance(24h - 1ms);
  EXPECT_EQ(Replayed(), Answer());
  EXPECT_EQ(Begin(Request("fp-2")).verdict, IdempotencyVerdict::kKeyReused);
  clock_.Advance(1ms);
  MustProceed(Request("fp-2"));
}

TEST_F(IdempotencyServiceTest, AnUnansweredKeyIsFreeAgainWhenItsLeaseRunsOut) {
  const auto first = MustProceed();
  clock_.Advance(30s);
  const auto second = MustProceed();
  EXPECT_NE(second.owner, first.owner);
  // The first request can no longer answer: its refusal is dropped.
  EXPECT_FALSE(idempotency_.CompleteWithoutEffect(Request(), first.owner, Answer("late")));
  EXPECT_EQ(Begin().verdict, IdempotencyVerdict::kInFlight);
}

TEST_F(IdempotencyServiceTest, AnEffectWhoseLeaseWasTakenOverRollsBack) {
  const auto first = MustProceed();
  clock_.Advance(30s);
  MustProceed();
  EXPECT_THROW((void)service_.Create(kAlice, "Guide", "body", DocumentFormat::kMarkdown,
                                     idempotency_.CompleteOnCommit(Request(), first.owner)),
               StorageError);
  EXPECT_TRUE(fakes_.stores.documents->ListDocuments({}).empty());
}

TEST_F(IdempotencyServiceTest, AFailedUseCaseStoresNothingAndAbandonFreesTheKey) {
  const auto first = MustProceed();
  fakes_.database->FailNextCommit();
  EXPECT_THROW((void)service_.Create(kAlice, "Guide", "body", DocumentFormat::kMarkdown,
                                     idempotency_.CompleteOnCommit(Request(), first.owner)),
               StorageUnavailable);
  EXPECT_EQ(Begin().verdict, IdempotencyVerdict::kInFlight);
  idempotency_.Abandon(Request(), first.owner);
  MustProceed();
}

TEST_F(IdempotencyServiceTest, AbandonNeverDropsAnAnswer) {
  const auto first = MustProceed();
  ASSERT_TRUE(idempotency_.CompleteWithoutEffect(Request(), first.owner, Answer()));
  idempotency_.Abandon(Request(), first.owner);
  EXPECT_EQ(Replayed(), Answer());
}

TEST_F(IdempotencyServiceTest, PruneExpiredDeletesEveryExpiredRecordInBatches) {
  for (int i = 0; i < 5; ++i) MustProceed(Request("fp", "alice", "k-" + std::to_string(i)));
  const auto kept = MustProceed(Request("fp", "alice", "kept"));
  ASSERT_TRUE(
      idempotency_.CompleteWithoutEffect(Request("fp", "alice", "kept"), kept.owner, Answer("a")));
  EXPECT_EQ(idempotency_.PruneExpired(), 0);
  EXPECT_EQ(fakes_.database->IdempotencyKeyCount(), 6u);
  clock_.Advance(30s);
  EXPECT_EQ(idempotency_.PruneExpired(), 5);  // batches of 2: 2 + 2 + 1
  EXPECT_EQ(fakes_.database->IdempotencyKeyCount(), 1u);
  EXPECT_EQ(Replayed(Request("fp", "alice", "kept")), Answer("a"));
  clock_.Advance(24h);
  EXPECT_EQ(idempotency_.PruneExpired(), 1);
  EXPECT_EQ(fakes_.database->IdempotencyKeyCount(), 0u);
}

TEST(StoredRefusal, OnlyADecisionOnTheStateIsStored) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::kUnavailable); ++i) {
    const auto code = static_cast<ErrorCode>(i);
    EXPECT_EQ(IsStoredRefusal(code), code == ErrorCode::kInvalidState ||
                                         code == ErrorCode::kSelfReview ||
                                         code == ErrorCode::kAlreadyVoted)
        << ErrorCodeName(code);
  }
}

TEST(StoredRefusal, ALongDetailIsCutOnACodePointBoundary) {
  const std::string fits(kMaxStoredDetailBytes, 'd');
  EXPECT_EQ(StoredDetail(fits), fits);
  EXPECT_EQ(StoredDetail(fits + "d"), std::string(kMaxStoredDetailBytes - 3, 'd') + "\xE2\x80\xA6");

  std::string chinese;  // 300 characters of 3 bytes
  for (int i = 0; i < 100; ++i) chinese += "文档审";
  const std::string capped = StoredDetail(chinese);
  EXPECT_LE(capped.size(), kMaxStoredDetailBytes);
  EXPECT_GE(capped.size(), kMaxStoredDetailBytes - 2);
  EXPECT_TRUE(IsStorableText(capped));
  ASSERT_GE(capped.size(), 3u);
  EXPECT_EQ(capped.substr(capped.size() - 3), "\xE2\x80\xA6");  // …
  EXPECT_EQ(chinese.compare(0, capped.size() - 3, capped, 0, capped.size() - 3), 0);
}

}  // namespace
}  // namespace docgate
