// The built-in consumers behind the inbox, on the fake store: the preview projection and ingestion
// react to approvals once however often an event is delivered, a stale event never wins, a
// failing consumer is retried and then parked (ingestion then says `failed`), a parked event can
// be replayed, and the reconciler re-enqueues an approval whose ingestion got stuck.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "adapters/crypto/openssl_digest.h"
#include "app/consumer_runner.h"
#include "app/document_service.h"
#include "app/ingestion.h"
#include "app/preview_projection.h"
#include "app/reader_service.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_event_source.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"
#include "fakes/fake_stores.h"
#include "support/test_actors.h"
#include "worker/event_worker.h"
#include "worker/reconciler.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

// Counts its calls and fails the first `failures` of them.
class FlakyConsumer final : public InboxConsumer {
 public:
  explicit FlakyConsumer(int failures) : failures_(failures) {}
  std::string_view Name() const override { return "flaky"; }
  void Handle(const OutboxEvent&, ConsumerTransaction&) override {
    ++calls_;
    if (calls_ <= failures_) throw std::runtime_error("flaky: attempt " + std::to_string(calls_));
  }
  void OnParked(const OutboxEvent& event) override { parked_.push_back(event.event_id); }
  int calls() const { return calls_; }
  const std::vector<std::string>& parked() const { return parked_; }

 private:
  int failures_;
  int calls_ = 0;
  std::vector<std::string> parked_;
};

// Fails on one event, whatever the attempt; counts its calls.
class PickyConsumer final : public InboxConsumer {
 public:
  explicit PickyConsumer(std::string refused) : refused_(std::move(refused)) {}
  std::string_view Name() const override { return "picky"; }
  void Handle(const OutboxEvent& event, ConsumerTransaction&) override {
    ++calls_;
    if (event.event_id == refused_) throw std::runtime_error("picky: refuses " + refused_);
  }
  int calls() const { return calls_; }

 private:
  std::string refused_;
  int calls_ = 0;
};

// An InboxStore that counts the consumer transactions begun through it (forwarding everything).
class CountingInbox final : public InboxStore {
 public:
  explicit CountingInbox(InboxStore& inner) : inner_(inner) {}
  std::unique_ptr<ConsumerTransaction> BeginConsumer() override {
    ++begun;
    return inner_.BeginConsumer();
  }
  ConsumerFailure RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                std::string_view error, int max_attempts, TimePoint at) override {
    return inner_.RecordFailure(consumer, event, error, max_attempts, at);
  }
  std::vector<ParkedEvent> ListParked(int limit) override { return inner_.ListParked(limit); }
  std::vector<OutboxEvent> Unpark(const std::optional<std::string>& event_id) override {
    return inner_.Unpark(event_id);
  }
  int PruneInbox(TimePoint cutoff, int limit) override { return inner_.PruneInbox(cutoff, limit); }

  int begun = 0;

 private:
  InboxStore& inner_;
};

// SHA-256 by OpenSSL, recording what it hashed: ingestion keys each chunk it writes.
class RecordingDigest final : public Digest {
 public:
  std::string Sha256Hex(std::string_view bytes) const override {
    hashed.emplace_back(bytes);
    return digest_.Sha256Hex(bytes);
  }
  std::string Sha256(std::string_view bytes) const override { return digest_.Sha256(bytes); }
  std::string HmacSha256(std::string_view key, std::string_view data) const override {
    return digest_.HmacSha256(key, data);
  }
  bool SameSecret(std::string_view a, std::string_view b) const override {
    return digest_.SameSecret(a, b);
  }
  mutable std::vector<std::string> hashed;

 private:
  OpenSslDigest digest_;
};

const std::string kContent =
    "Welcome aboard. This guide explains how reviews work at the company.\n\n"
    "Every document is reviewed before it is published. Reviewers approve or reject.\n\n"
    "Approved documents are chunked and indexed, so that search finds them.";

class ConsumersTest : public ::testing::Test {
 protected:
  ConsumersTest() {
    runner_.Register(projection_);
    runner_.Register(ingestion_);
  }

  // Creates a document, submits it and approves it; returns its approval event.
  OutboxEvent Approve(const std::string& content = kContent) {
    auto doc = service_.Create(kAlice, "Review handbook", content);
    EXPECT_TRUE(doc.ok());
    auto submitted = service_.Submit(kAlice, doc->id);
    EXPECT_TRUE(submitted.ok());
    EXPECT_TRUE(service_.Approve(kBob, submitted->review.id, std::nullopt).ok());
    return LastEvent();
  }
  OutboxEvent LastEvent() { return fakes_.database->AllEvents().back(); }
  Document Doc(DocumentId id) { return *documents_.FindDocument(id); }

  FakeClock clock_;
  FakeRandom random_;
  FakeStores fakes_ = OpenFakeStores();
  DocumentStore& documents_ = *fakes_.stores.documents;
  InboxStore& inbox_ = *fakes_.stores.inbox;
  OutboxStore& outbox_ = *fakes_.stores.outbox;
  ChunkIndex& chunks_ = *fakes_.stores.chunks;
  FakeLockGate gate_{clock_, random_};
  CountingWakeup wakeup_;
  DocumentService service_{documents_, gate_, clock_, random_, wakeup_};
  ChunkerConfig chunker_{80, 20};  // small, so that kContent makes several chunks
  RecordingDigest digest_;
  PreviewStore& previews_ = *fakes_.stores.previews;
  PreviewProjection projection_{previews_, documents_};
  Ingestion ingestion_{inbox_, chunker_, digest_};
  ConsumerRunner runner_{inbox_, clock_, ConsumerRunnerConfig{3}};
  ReaderService reader_{documents_, previews_, chunks_};
};

TEST_F(ConsumersTest, AnApprovalBecomesThePreviewAndItsChunksAndIngestionIsDone) {
  const OutboxEvent approved = Approve();
  ASSERT_EQ(approved.type, EventType::kApproved);
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kPending);
  // The preview reads its own writes: served from the database before the
  // projection has run.
  EXPECT_EQ(previews_.Find(approved.document_id), std::nullopt);
  const auto early = reader_.GetPreview(approved.document_id);
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(early->version, 1);
  EXPECT_EQ(early->content, kContent);
  EXPECT_EQ(early->approved_at, approved.occurred_at);

  const ConsumeResult result = runner_.Run(approved);
  EXPECT_EQ(result.outcome, ConsumeOutcome::kDone);
  EXPECT_FALSE(result.parked);

  ASSERT_TRUE(previews_.Find(approved.document_id).has_value());
  const auto preview = reader_.GetPreview(approved.document_id);
  ASSERT_TRUE(preview.ok());
  EXPECT_EQ(preview->version, 1);
  EXPECT_EQ(preview->content, kContent);
  EXPECT_EQ(preview->approved_at, approved.occurred_at);
  const auto expected_chunks = SplitIntoChunks(kContent, chunker_);
  ASSERT_GE(expected_chunks.size(), 3u);
  EXPECT_EQ(chunks_.ListChunks(approved.document_id), expected_chunks);
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone);
  EXPECT_EQ(digest_.hashed, expected_chunks) << "each chunk keyed once";
  const auto hits = reader_.Search("chunked", 10);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->items.size(), 1u);
  EXPECT_EQ(hits->items[0].document_id, approved.document_id);
  EXPECT_EQ(hits->items[0].title, "Review handbook");
}

TEST_F(ConsumersTest, TheSameEventFiveTimesHasEachEffectOnce) {
  const OutboxEvent approved = Approve();
  FlakyConsumer counting(0);
  runner_.Register(counting);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(runner_.Run(approved).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(counting.calls(), 1);
  EXPECT_EQ(digest_.hashed, SplitIntoChunks(kContent, chunker_)) << "ingested once";
  EXPECT_EQ(chunks_.ListChunks(approved.document_id), SplitIntoChunks(kContent, chunker_));
}

TEST_F(ConsumersTest, EventsOtherThanApprovalsChangeNothing) {
  auto doc = service_.Create(kAlice, "Draft", "text");
  ASSERT_TRUE(service_.Submit(kAlice, doc->id).ok());
  const OutboxEvent submitted = LastEvent();
  EXPECT_EQ(runner_.Run(submitted).outcome, ConsumeOutcome::kDone);
  EXPECT_FALSE(previews_.Find(doc->id));
  EXPECT_TRUE(chunks_.ListChunks(doc->id).empty());
  EXPECT_EQ(Doc(doc->id).ingest_status, IngestStatus::kNone);
}

// Approved documents are final, so an out-of-order approval of an older version is made by hand:
// the document is approved at version 2, then an approval event of version 1 arrives.
TEST_F(ConsumersTest, AStaleApprovalNeverReplacesANewerOne) {
  auto doc = service_.Create(kAlice, "Guide", "version one words");
  auto first = service_.Submit(kAlice, doc->id);
  ASSERT_TRUE(service_.Reject(kBob, first->review.id, "more").ok());
  ASSERT_TRUE(
      service_
          .Edit(kAlice, doc->id, EditRequest{std::nullopt, "version two words", 1, std::nullopt})
          .ok());
  auto second = service_.Submit(kAlice, doc->id);
  ASSERT_TRUE(service_.Approve(kBob, second->review.id, std::nullopt).ok());
  const OutboxEvent v2 = LastEvent();
  ASSERT_EQ(v2.version, 2);
  OutboxEvent v1 = v2;
  v1.event_id = "stale-approval-of-version-1";
  v1.version = 1;

  // In one batch, in either order, and one at a time: version 2 wins.
  EXPECT_EQ(runner_.RunBatch(std::vector{v1, v2}).size(), 2u);
  EXPECT_EQ(previews_.Find(doc->id)->version, 2);
  EXPECT_EQ(chunks_.ListChunks(doc->id), std::vector<std::string>{"version two words"});
  EXPECT_EQ(runner_.Run(v2).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(runner_.Run(v1).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(previews_.Find(doc->id)->version, 2);
  EXPECT_EQ(previews_.Find(doc->id)->content, "version two words");
  EXPECT_EQ(chunks_.ListChunks(doc->id), std::vector<std::string>{"version two words"});
  EXPECT_EQ(Doc(doc->id).ingest_status, IngestStatus::kDone);

  // The store's guard by itself, on a second document: v4 stays when v3 comes after it, and v5
  // replaces it.
  const DocumentId other = service_.Create(kAlice, "Other", "x")->id;
  EXPECT_TRUE(previews_.Project(PreviewRecord{other, 4, "v4", clock_.Now()}));
  EXPECT_FALSE(previews_.Project(PreviewRecord{other, 3, "v3", clock_.Now()}));
  EXPECT_EQ(previews_.Find(other)->content, "v4");
  EXPECT_TRUE(previews_.Project(PreviewRecord{other, 5, "v5", clock_.Now()}));
  EXPECT_EQ(previews_.Find(other)->content, "v5");
}

TEST_F(ConsumersTest, AFailingConsumerIsRetriedThenParkedAndReplayable) {
  const OutboxEvent approved = Approve();
  FlakyConsumer flaky(3);  // fails every attempt up to the limit of 3
  runner_.Register(flaky);

  ConsumeResult result = runner_.Run(approved);
  EXPECT_EQ(result.outcome, ConsumeOutcome::kFailed);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_NE(result.error.find("flaky: attempt 1"), std::string::npos) << result.error;
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone)
      << "the other consumers ran and are not run again";
  EXPECT_EQ(runner_.Run(approved).attempts, 2);
  result = runner_.Run(approved);
  EXPECT_EQ(result.outcome, ConsumeOutcome::kDone);
  EXPECT_TRUE(result.parked);
  EXPECT_EQ(flaky.parked(), std::vector<std::string>{approved.event_id});
  EXPECT_EQ(runner_.Run(approved).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(flaky.calls(), 3) << "a parked event is not retried";

  const auto parked = inbox_.ListParked(10);
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_EQ(parked[0].consumer, "flaky");
  EXPECT_EQ(parked[0].event.event_id, approved.event_id);
  EXPECT_EQ(parked[0].attempts, 3);
  EXPECT_EQ(parked[0].last_error, "flaky: attempt 3");

  const auto unparked = inbox_.Unpark(approved.event_id);
  ASSERT_EQ(unparked.size(), 1u);
  EXPECT_EQ(runner_.Run(approved).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(flaky.calls(), 4) << "replayed: it runs again and now succeeds";
  EXPECT_TRUE(inbox_.ListParked(10).empty());
}

TEST_F(ConsumersTest, ParkedIngestionMarksTheVersionFailed) {
  const OutboxEvent approved = Approve("");  // no chunk at all is still a success
  ASSERT_EQ(runner_.Run(approved).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone);
  EXPECT_TRUE(chunks_.ListChunks(approved.document_id).empty());

  // Ingestion whose every attempt fails, as when its database writes keep failing.
  class FailingIngestion final : public InboxConsumer {
   public:
    explicit FailingIngestion(Ingestion& ingestion) : ingestion_(ingestion) {}
    std::string_view Name() const override { return ingestion_.Name(); }
    void Handle(const OutboxEvent&, ConsumerTransaction&) override {
      throw std::runtime_error("chunk writes refused");
    }
    void OnParked(const OutboxEvent& event) override { ingestion_.OnParked(event); }

   private:
    Ingestion& ingestion_;
  } failing(ingestion_);
  ConsumerRunner runner(inbox_, clock_, ConsumerRunnerConfig{2});
  runner.Register(failing);
  const OutboxEvent second = Approve();
  EXPECT_EQ(runner.Run(second).outcome, ConsumeOutcome::kFailed);
  EXPECT_EQ(Doc(second.document_id).ingest_status, IngestStatus::kPending);
  EXPECT_TRUE(runner.Run(second).parked);
  EXPECT_EQ(Doc(second.document_id).ingest_status, IngestStatus::kFailed);
  EXPECT_TRUE(chunks_.ListChunks(second.document_id).empty())
      << "nothing of a failed attempt stays";
}

TEST_F(ConsumersTest, AfterCommitActionsRunOnceTheEffectCommittedAndNeverForAFailedAttempt) {
  const OutboxEvent approved = Approve();
  // A consumer that asks to count its effect after the commit, then fails its first attempt
  // after asking.
  class Counting final : public InboxConsumer {
   public:
    std::string_view Name() const override { return "counting"; }
    void Handle(const OutboxEvent&, ConsumerTransaction& tx) override {
      tx.AfterCommit([this] { ++counted; });
      if (++attempts == 1) throw std::runtime_error("the first attempt fails after asking");
      tx.AfterCommit([this] { committed_before_counting = ++counted == 2; });
    }
    int attempts = 0;
    int counted = 0;
    bool committed_before_counting = false;
  } counting;
  ConsumerRunner runner(inbox_, clock_, ConsumerRunnerConfig{3});
  runner.Register(counting);

  EXPECT_EQ(runner.Run(approved).outcome, ConsumeOutcome::kFailed);
  EXPECT_EQ(counting.counted, 0) << "the failed attempt rolled back: nothing to count";
  EXPECT_EQ(runner.Run(approved).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(counting.counted, 2) << "both actions of the committed attempt, once each";
  EXPECT_TRUE(counting.committed_before_counting) << "in the order they were asked for";
  EXPECT_EQ(runner.Run(approved).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(counting.attempts, 2) << "a redelivery is skipped";
  EXPECT_EQ(counting.counted, 2);
}

TEST_F(ConsumersTest, APermanentFailureIsParkedAtItsFirstAttempt) {
  const OutboxEvent approved = Approve();
  class Refusing final : public InboxConsumer {
   public:
    std::string_view Name() const override { return "refusing"; }
    void Handle(const OutboxEvent&, ConsumerTransaction&) override {
      ++calls;
      throw PermanentConsumerError("refusing: never possible");
    }
    void OnParked(const OutboxEvent& event) override { parked.push_back(event.event_id); }
    int calls = 0;
    std::vector<std::string> parked;
  } refusing;
  runner_.Register(refusing);  // the runner parks other failures at the third attempt

  const ConsumeResult result = runner_.Run(approved);
  EXPECT_EQ(result.outcome, ConsumeOutcome::kDone);
  EXPECT_TRUE(result.parked);
  EXPECT_EQ(result.error, "refusing: refusing: never possible");
  EXPECT_EQ(refusing.parked, std::vector<std::string>{approved.event_id});
  EXPECT_EQ(runner_.Run(approved).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(refusing.calls, 1) << "a parked event is not retried";
  EXPECT_EQ(runner_.counters().failed, 1u);
  EXPECT_EQ(runner_.counters().parked, 1u);
  const auto parked = inbox_.ListParked(10);
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_EQ(parked[0].consumer, "refusing");
  EXPECT_EQ(parked[0].attempts, 1);
  EXPECT_EQ(parked[0].last_error, "refusing: never possible");
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone)
      << "the other consumers ran";
}

// Issue 12: a megabyte paragraph of closers took the chunker hours while the consumer held its
// transaction. It is chunked in linear time now, and as it makes more than kMaxChunksPerDocument
// chunks of 80 bytes, the chunking stops there and the event is parked at once.
TEST_F(ConsumersTest, ContentOfTooManyChunksIsParkedAtOnceAndIngestionFails) {
  const std::string content(1 << 20, ')');
  ASSERT_GT(content.size() / (chunker_.max_bytes - chunker_.overlap_bytes), kMaxChunksPerDocument);
  const OutboxEvent approved = Approve(content);

  const ConsumeResult result = runner_.Run(approved);
  EXPECT_EQ(result.outcome, ConsumeOutcome::kDone);
  EXPECT_TRUE(result.parked);
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kFailed);
  EXPECT_TRUE(chunks_.ListChunks(approved.document_id).empty());
  EXPECT_TRUE(digest_.hashed.empty());
  const auto parked = inbox_.ListParked(10);
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_EQ(parked[0].consumer, "ingestion");
  EXPECT_EQ(parked[0].attempts, 1);
  EXPECT_EQ(parked[0].last_error, "the content makes more than 10000 chunks of at most 80 bytes");
  EXPECT_EQ(reader_.GetPreview(approved.document_id)->content, content)
      << "the preview projection is not held up";
}

TEST_F(ConsumersTest, AnUnavailableDatabaseIsNotCountedAsAnAttempt) {
  const OutboxEvent approved = Approve();
  fakes_.database->SetUnavailable(true);
  EXPECT_THROW(runner_.Run(approved), StorageUnavailable);
  fakes_.database->SetUnavailable(false);
  EXPECT_TRUE(inbox_.ListParked(10).empty());
  EXPECT_EQ(runner_.Run(approved).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone);
}

TEST_F(ConsumersTest, TheRunnerAsAnInProcessConsumerThrowsWhileAConsumerFails) {
  const OutboxEvent approved = Approve();
  FlakyConsumer flaky(1);
  runner_.Register(flaky);
  EXPECT_THROW(runner_.Handle(approved), std::runtime_error);
  EXPECT_NO_THROW(runner_.Handle(approved));
  EXPECT_EQ(flaky.calls(), 2);
}

TEST_F(ConsumersTest, ABatchCostsEachConsumerOneTransactionAndHasEachEffectOnce) {
  const std::vector<std::string> contents = {kContent, "第二篇：审核流程的中文说明。",
                                             "Third: mixed 中英文 text"};
  std::vector<OutboxEvent> batch;
  for (const std::string& content : contents) batch.push_back(Approve(content));
  batch.push_back(batch[0]);  // published twice, taken in one batch
  CountingInbox counting(inbox_);
  ConsumerRunner runner(counting, clock_, ConsumerRunnerConfig{3});
  runner.Register(projection_);
  runner.Register(ingestion_);

  const std::vector<ConsumeResult> results = runner.RunBatch(batch);
  ASSERT_EQ(results.size(), batch.size());
  for (const ConsumeResult& result : results) {
    EXPECT_EQ(result.outcome, ConsumeOutcome::kDone) << result.error;
    EXPECT_FALSE(result.parked);
  }
  EXPECT_EQ(counting.begun, 2) << "one transaction per consumer for the whole batch";
  EXPECT_EQ(runner.counters().processed.load(), 6u);
  EXPECT_EQ(runner.counters().skipped.load(), 2u) << "the repeat, once per consumer";
  std::vector<std::string> every_chunk;
  for (std::size_t i = 0; i < contents.size(); ++i) {
    const DocumentId id = batch[i].document_id;
    const auto chunks = SplitIntoChunks(contents[i], chunker_);
    EXPECT_EQ(chunks_.ListChunks(id), chunks);
    EXPECT_EQ(Doc(id).ingest_status, IngestStatus::kDone);
    ASSERT_TRUE(previews_.Find(id).has_value());
    EXPECT_EQ(previews_.Find(id)->content, contents[i]);
    every_chunk.insert(every_chunk.end(), chunks.begin(), chunks.end());
  }
  std::ranges::sort(every_chunk);
  std::ranges::sort(digest_.hashed);
  EXPECT_EQ(digest_.hashed, every_chunk) << "each document ingested once";
  const auto hits = reader_.Search("审核流程", 10);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->items.size(), 1u);
  EXPECT_EQ(hits->items[0].document_id, batch[1].document_id);

  EXPECT_EQ(runner.RunBatch(batch).size(), batch.size());
  EXPECT_EQ(runner.counters().processed.load(), 6u) << "a redelivered batch changes nothing";
}

TEST_F(ConsumersTest, AConsumerFailingOnOneEventOfABatchRunsItsEventsOneAtATime) {
  const std::vector<OutboxEvent> batch = {Approve(), Approve("第二篇"), Approve("third")};
  PickyConsumer picky(batch[1].event_id);
  CountingInbox counting(inbox_);
  ConsumerRunner runner(counting, clock_, ConsumerRunnerConfig{3});
  runner.Register(picky);
  runner.Register(ingestion_);

  const std::vector<ConsumeResult> results = runner.RunBatch(batch);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(results[1].outcome, ConsumeOutcome::kFailed);
  EXPECT_EQ(results[1].attempts, 1) << "one attempt counted, though Handle ran twice";
  EXPECT_NE(results[1].error.find("picky: refuses"), std::string::npos) << results[1].error;
  EXPECT_EQ(results[2].outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(runner.counters().failed.load(), 1u);
  // The batch runs in event_id order up to the failure, then each event alone.
  const int refused_at = static_cast<int>(std::ranges::count_if(
      batch, [&](const OutboxEvent& event) { return event.event_id < batch[1].event_id; }));
  EXPECT_EQ(picky.calls(), refused_at + 1 + 3);
  EXPECT_EQ(counting.begun, 1 + 3 + 1) << "picky's batch, then one each; ingestion's batch";
  for (const OutboxEvent& event : batch) {
    EXPECT_EQ(Doc(event.document_id).ingest_status, IngestStatus::kDone)
        << "the other consumer is not held back";
  }
  // Redelivered, only the failed event is picky's to do again.
  const std::vector<ConsumeResult> again = runner.RunBatch(batch);
  EXPECT_EQ(again[1].outcome, ConsumeOutcome::kFailed);
  EXPECT_EQ(again[1].attempts, 2);
  EXPECT_EQ(again[0].outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(runner.counters().processed.load(), 2u + 3u) << "picky: 2, ingestion: 3, once each";
}

TEST_F(ConsumersTest, TheQueueWorkerRunsWhatHasArrivedAsOneBatchUpToItsSize) {
  std::vector<OutboxEvent> approvals;
  for (int i = 0; i < 5; ++i) approvals.push_back(Approve("文档 " + std::to_string(i)));
  FakeEventSource source(&clock_);
  EventWorkerConfig config;
  config.batch_size = 3;
  CountingInbox counting(inbox_);
  ConsumerRunner runner(counting, clock_, ConsumerRunnerConfig{3});
  runner.Register(ingestion_);
  EventWorker worker(source, runner, config);
  for (const OutboxEvent& approved : approvals) source.Publish(approved);

  ASSERT_TRUE(worker.RunOnce());
  EXPECT_EQ(worker.counters().processed.load(), 3u) << "a full batch";
  EXPECT_EQ(counting.begun, 1);
  ASSERT_TRUE(worker.RunOnce());
  EXPECT_EQ(worker.counters().processed.load(), 5u) << "what was left";
  EXPECT_EQ(counting.begun, 2);
  EXPECT_FALSE(worker.RunOnce());
  EXPECT_EQ(source.settlements(), std::vector<std::string>(5, "ack"));
  EXPECT_EQ(source.unsettled(), 0u);
  for (const OutboxEvent& approved : approvals) {
    EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone);
  }
  EventWorkerConfig too_big;
  too_big.batch_size = 1001;
  EXPECT_EQ(ValidateEventWorkerConfig(too_big), "DOCGATE_CONSUMER_BATCH must be 1..1000, got 1001");
}

TEST_F(ConsumersTest, TheReconcilerReEnqueuesAnApprovalWhoseIngestionIsStuck) {
  const OutboxEvent approved = Approve();
  // The relay delivered both events (a document's next one is claimable once the one before it
  // is delivered), but no consumer ever processed them (the messages were lost).
  for (auto claimed = outbox_.ClaimPending(10); !claimed.empty();
       claimed = outbox_.ClaimPending(10)) {
    std::vector<std::int64_t> sequences;
    for (const auto& event : claimed) sequences.push_back(event.sequence);
    outbox_.MarkDelivered(sequences, clock_.Now());
  }

  CountingWakeup relay;
  Reconciler reconciler(outbox_, clock_, &relay, ReconcilerConfig{5min, 1min, 10});
  EXPECT_EQ(reconciler.RunOnce(), 0) << "not stuck yet";
  clock_.Advance(6min);
  EXPECT_EQ(reconciler.RunOnce(), 1);
  EXPECT_EQ(relay.count(), 1);
  EXPECT_EQ(reconciler.RunOnce(), 0) << "re-enqueued, so no longer stuck";
  const auto again = outbox_.ClaimPending(10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].event_id, approved.event_id) << "the same event, so consumers dedupe it";

  EXPECT_EQ(runner_.Run(again[0]).outcome, ConsumeOutcome::kDone);
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone);
  outbox_.MarkDelivered({again[0].sequence}, clock_.Now());
  clock_.Advance(6min);
  EXPECT_EQ(reconciler.RunOnce(), 0) << "done is not stuck";
}

TEST_F(ConsumersTest, SearchValidatesItsQueryAndLimit) {
  EXPECT_EQ(reader_.Search("", std::nullopt).error().code, ErrorCode::kValidation);
  EXPECT_EQ(reader_.Search(" \t ", std::nullopt).error().code, ErrorCode::kValidation);
  EXPECT_EQ(reader_.Search(std::string(257, 'a'), std::nullopt).error().code,
            ErrorCode::kValidation);
  EXPECT_EQ(reader_.Search("\xff", std::nullopt).error().code, ErrorCode::kValidation);
  EXPECT_EQ(reader_.Search("guide", 0).error().code, ErrorCode::kValidation);
  EXPECT_EQ(reader_.Search("guide", 51).error().code, ErrorCode::kValidation);
  EXPECT_TRUE(reader_.Search(std::string(256, 'a'), 50).ok());
  EXPECT_EQ(reader_.GetPreview(999).error().code, ErrorCode::kNotFound);
}

TEST_F(ConsumersTest, TheQueueWorkerAcksRetriesWithBackoffAndParks) {
  const OutboxEvent approved = Approve();
  FlakyConsumer flaky(3);
  runner_.Register(flaky);
  FakeEventSource source(&clock_);
  EventWorker worker(source, runner_, EventWorkerConfig{1ms, 1s, 4s, 1ms, 1ms});
  source.Publish(approved);
  source.PublishBody("{\"not\": \"an event\"}", "junk");

  // One batch: the event fails (back through the retry queue after 1 s), the junk is parked.
  ASSERT_TRUE(worker.RunOnce());
  EXPECT_EQ(worker.counters().retried.load(), 1u);
  EXPECT_EQ(worker.counters().parked.load(), 1u);
  EXPECT_FALSE(worker.RunOnce()) << "the retry waits out its delay";
  clock_.Advance(1s);
  ASSERT_TRUE(worker.RunOnce());  // second failure: 2 s
  clock_.Advance(1s);
  EXPECT_FALSE(worker.RunOnce()) << "the delay doubled";
  clock_.Advance(1s);
  ASSERT_TRUE(worker.RunOnce());  // third failure: parked
  EXPECT_EQ(worker.counters().retried.load(), 2u);
  EXPECT_EQ(worker.counters().parked.load(), 2u);
  EXPECT_EQ(worker.counters().processed.load(), 0u);
  const auto parked = source.parked();
  ASSERT_EQ(parked.size(), 2u);
  EXPECT_NE(parked[1].park_reason.find("flaky: attempt 3"), std::string::npos) << parked[1].park_reason;
  EXPECT_EQ(source.unsettled(), 0u);
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone);

  // Replayed after the cause is gone: processed and acked.
  inbox_.Unpark(approved.event_id);
  ASSERT_EQ(source.ReplayParked(approved.event_id, 10).size(), 1u);
  ASSERT_TRUE(worker.RunOnce());
  EXPECT_EQ(worker.counters().processed.load(), 1u);
  EXPECT_EQ(flaky.calls(), 4);
  EXPECT_EQ(source.parked().size(), 1u) << "the junk stays parked";
}

TEST_F(ConsumersTest, AMessageInFlightWhenTheConnectionDropsIsRedeliveredAndDoneOnce) {
  const OutboxEvent approved = Approve();
  FakeEventSource source(&clock_);
  EventWorker worker(source, runner_);
  source.Publish(approved);
  auto message = source.Receive(1ms);  // taken by a worker that then dies before settling it
  ASSERT_TRUE(message);
  ASSERT_EQ(runner_.Run(*message->event).outcome, ConsumeOutcome::kDone);
  source.DropConnection();
  EXPECT_THROW(worker.RunOnce(), EventSinkUnavailable);
  ASSERT_TRUE(worker.RunOnce());
  EXPECT_EQ(worker.counters().processed.load(), 1u);
  EXPECT_EQ(runner_.counters().skipped.load(), 2u) << "both consumers had committed already";
  EXPECT_EQ(digest_.hashed, SplitIntoChunks(kContent, chunker_)) << "ingested once";
}

// Found by bench/storm.sh with one instance's database link cut: the worker took messages it could
// not process and left them unsettled on a healthy broker connection, where they stayed for good
// (2 of 559 approvals never ingested).
TEST_F(ConsumersTest, AMessageTheDatabaseCannotTakeGoesBackThroughTheRetryQueue) {
  const OutboxEvent approved = Approve();
  const OutboxEvent second = Approve("第二篇");
  FakeEventSource source(&clock_);
  EventWorker worker(source, runner_, EventWorkerConfig{1ms, 1s, 4s, 1ms, 1ms});
  source.Publish(approved);
  source.Publish(second);
  fakes_.database->SetUnavailable(true);

  EXPECT_THROW(worker.RunOnce(), StorageUnavailable);
  EXPECT_EQ(source.unsettled(), 0u) << "held by this worker, they would never come back";
  EXPECT_EQ(source.settlements(), std::vector<std::string>(2, "retry")) << "the whole batch";
  EXPECT_EQ(worker.counters().retried.load(), 2u);

  fakes_.database->SetUnavailable(false);
  EXPECT_TRUE(inbox_.ListParked(10).empty()) << "an outage is no attempt";
  EXPECT_FALSE(worker.RunOnce()) << "back after the retry delay";
  clock_.Advance(1s);
  ASSERT_TRUE(worker.RunOnce());
  EXPECT_EQ(worker.counters().processed.load(), 2u);
  EXPECT_EQ(Doc(approved.document_id).ingest_status, IngestStatus::kDone);
  EXPECT_EQ(Doc(second.document_id).ingest_status, IngestStatus::kDone);
}

}  // namespace
}  // namespace docgate
