#include "worker/embedding_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/chunker.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_embedder.h"
#include "fakes/publishing_desk.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

// Three paragraphs, each a chunk of its own with the chunker below.
const std::string kShared = "审核通过后，文档被切分、向量化并建立全文索引。";
const std::string kHandbook = "评审手册：每篇文档发布前都要经过评审。\n\n" + kShared +
                              "\n\nRedis 锁是外层闸门，数据库的行锁才是真正的保证。";
const std::string kRunbook = "运维手册：Redis 不可用时退回数据库锁。\n\n" + kShared;

class EmbeddingWorkerTest : public ::testing::Test, protected PublishingDesk {
 protected:
  // Rounds until one claims nothing (at most 100).
  void Drain(EmbeddingWorker& worker) {
    for (int round = 0; round < 100 && worker.RunOnce(); ++round) {
    }
  }

  FakeEmbedder embedder_{8, 2};
  EmbeddingStore& store_ = *fakes_.stores.embeddings;
  EmbeddingWorker worker_{store_, embedder_, digest_, clock_, "worker-a"};
};

TEST_F(EmbeddingWorkerTest, AnApprovedVersionIsDoneOnceEveryDistinctTextIsEmbeddedOnce) {
  const DocumentId handbook = Publish("评审手册", kHandbook);
  const DocumentId runbook = Publish("运维手册", kRunbook);
  EXPECT_EQ(StatusOf(handbook), IngestStatus::kPending) << "chunked, not embedded yet";
  EXPECT_EQ(worker_.Backlog(), 4) << "3 + 2 paragraphs, one shared";

  Drain(worker_);

  EXPECT_EQ(StatusOf(handbook), IngestStatus::kDone);
  EXPECT_EQ(StatusOf(runbook), IngestStatus::kDone);
  EXPECT_EQ(worker_.Backlog(), 0);
  EXPECT_EQ(embedder_.total_embedded(), 4);
  EXPECT_EQ(embedder_.embedded().at(kShared), 1) << "the shared paragraph once";
  EXPECT_EQ(ingestion_.reused_vectors(), 0u)
      << "both were chunked before any vector was stored: the shared paragraph waited for one";
  EXPECT_EQ(worker_.counters().embedded.load(), 4u);
  EXPECT_EQ(worker_.counters().documents_done.load(), 2u);
  const auto vectors = store_.VectorsAfter(worker_.model(), 0, 100);
  ASSERT_EQ(vectors.size(), 4u);
  for (const StoredVector& stored : vectors) {
    EXPECT_EQ(stored.vector.size(), 8u);
  }
}

TEST_F(EmbeddingWorkerTest, AReapprovalOfUnchangedTextIsDoneWithoutARequest) {
  const DocumentId handbook = Publish("评审手册", kHandbook);
  Drain(worker_);
  const int calls = embedder_.calls();
  Edit(handbook, "评审手册（修订）", kHandbook);
  Approve(handbook);
  EXPECT_EQ(StatusOf(handbook), IngestStatus::kPending);

  EXPECT_FALSE(worker_.RunOnce()) << "nothing to claim";
  EXPECT_EQ(StatusOf(handbook), IngestStatus::kDone);
  EXPECT_EQ(embedder_.calls(), calls);
  EXPECT_EQ(embedder_.total_embedded(), 3);
  EXPECT_EQ(ingestion_.reused_vectors(), 3u) << "the three paragraphs' vectors were reused";
  Publish("运维手册", kRunbook);
  EXPECT_EQ(ingestion_.reused_vectors(), 4u) << "and the shared paragraph's, once more";
}

TEST_F(EmbeddingWorkerTest, AnOutageLeavesVersionsPendingAndDrainsWhenTheProviderIsBack) {
  const DocumentId handbook = Publish("评审手册", kHandbook);
  embedder_.SetUnavailable(true);
  EXPECT_THROW(worker_.RunOnce(), EmbeddingsUnavailable);
  EXPECT_EQ(StatusOf(handbook), IngestStatus::kPending);
  EXPECT_EQ(worker_.Backlog(), 3);
  EXPECT_EQ(worker_.counters().unavailable.load(), 1u);

  // The claims were given back: another worker takes the texts at once.
  FakeEmbedder other_provider{8, 2};
  EmbeddingWorker other(store_, other_provider, digest_, clock_, "worker-b");
  EXPECT_TRUE(other.RunOnce());
  EXPECT_EQ(other_provider.total_embedded(), 2);

  embedder_.SetUnavailable(false);
  Drain(worker_);
  EXPECT_EQ(StatusOf(handbook), IngestStatus::kDone);
  EXPECT_EQ(embedder_.total_embedded() + other_provider.total_embedded(), 3);
}

TEST_F(EmbeddingWorkerTest, ARefusedTextFailsItsVersionAndIsNeverSentAgain) {
  embedder_.RefuseTextsContaining("Redis 锁");
  const DocumentId handbook = Publish("评审手册", kHandbook);
  const DocumentId runbook = Publish("运维手册", kRunbook);
  Drain(worker_);
  EXPECT_EQ(StatusOf(handbook), IngestStatus::kFailed);
  EXPECT_EQ(StatusOf(runbook), IngestStatus::kDone) << "its texts were all embedded";
  EXPECT_EQ(worker_.counters().refused.load(), 1u);
  EXPECT_EQ(worker_.counters().documents_failed.load(), 1u);
  const int calls = embedder_.calls();
  EXPECT_FALSE(worker_.RunOnce());
  EXPECT_EQ(embedder_.calls(), calls);
  EXPECT_EQ(worker_.Backlog(), 0) << "a refusal is an answer";
}

TEST_F(EmbeddingWorkerTest, VectorsTheDatabaseCouldNotStoreAreStoredLaterWithoutAskingAgain) {
  const DocumentId handbook = Publish("评审手册", kHandbook);
  embedder_.DuringCall([this] { fakes_.database->SetUnavailable(true); });
  EXPECT_THROW(worker_.RunOnce(), StorageUnavailable);
  EXPECT_EQ(embedder_.total_embedded(), 2);
  embedder_.DuringCall({});
  fakes_.database->SetUnavailable(false);

  Drain(worker_);
  EXPECT_EQ(StatusOf(handbook), IngestStatus::kDone);
  EXPECT_EQ(embedder_.total_embedded(), 3) << "the two answered texts were not sent again";
}

TEST_F(EmbeddingWorkerTest, ChunksWrittenWithoutKeysAreKeyedAndEmbedded) {
  const DocumentId handbook = Publish("评审手册", kHandbook);
  {  // As a docgate before migration 0010 wrote them.
    auto tx = fakes_.stores.inbox->BeginConsumer();
    tx->ReplaceChunks(handbook, 1, "评审手册", SplitIntoChunks(kHandbook, ChunkerConfig{100, 0}),
                      {}, {});
    tx->Commit();
  }
  EXPECT_EQ(worker_.Backlog(), 0) << "texts without keys are not known yet";
  Drain(worker_);
  EXPECT_EQ(worker_.counters().keyed.load(), 3u);
  EXPECT_EQ(StatusOf(handbook), IngestStatus::kDone);
  EXPECT_EQ(embedder_.total_embedded(), 3);
}

TEST_F(EmbeddingWorkerTest, OrphansArePurgedOnlyAfterTheirGrace) {
  const DocumentId runbook = Publish("运维手册", kRunbook);
  Drain(worker_);
  Edit(runbook, std::nullopt, "运维手册：全部重写。");
  Approve(runbook);

  const TimePoint now =
      std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  FakeClock real_time(now);
  EmbeddingWorker soon(store_, embedder_, digest_, real_time, "worker-now");
  Drain(soon);
  EXPECT_EQ(soon.counters().purged.load(), 0u) << "within the grace";
  EXPECT_EQ(store_.VectorsAfter(worker_.model(), 0, 100).size(), 3u);

  real_time.Advance(11min);
  EXPECT_FALSE(soon.RunOnce());
  EXPECT_EQ(soon.counters().purged.load(), 2u) << "both old paragraphs";
  EXPECT_EQ(store_.VectorsAfter(worker_.model(), 0, 100).size(), 1u);
  EXPECT_EQ(StatusOf(runbook), IngestStatus::kDone);
}

TEST_F(EmbeddingWorkerTest, TextsOfVersionsNotPendingAreFoundByAFullScanAtStartAndThenNowAndThen) {
  Publish("评审手册", kHandbook);
  Drain(worker_);
  // A worker of another model (the setting changed): every version is done already.
  FakeEmbedder switched_embedder{8, 2, "other-model"};
  EmbeddingWorker switched(store_, switched_embedder, digest_, clock_, "worker-b");
  Drain(switched);
  EXPECT_EQ(switched_embedder.total_embedded(), 3)
      << "a full scan at its first round, continued while it found texts";

  Publish("运维手册", kRunbook);
  Drain(worker_);  // done for the first model before the other worker looks
  Drain(switched);
  EXPECT_EQ(switched_embedder.total_embedded(), 3) << "not pending, and no full scan is due";
  clock_.Advance(11min);
  Drain(switched);
  EXPECT_EQ(switched_embedder.total_embedded(), 4) << "the next full scan found its new text";
}

// Issue 17: with a poll of an hour, only ingestion's wake-up can have the worker embed a version
// approved while it waits.
TEST_F(EmbeddingWorkerTest, IngestionWakesAnIdleWorkerSoAVersionIsEmbeddedWithoutWaitingForAPoll) {
  EmbeddingWorkerConfig config;
  config.poll_interval = std::chrono::hours(1);
  EmbeddingWorker waiting(store_, embedder_, digest_, clock_, "worker-waiting", config);
  ingestion_.OnVectorsWanted([&waiting] { waiting.Wake(); });
  const auto done_soon = [this](DocumentId id) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (StatusOf(id) != IngestStatus::kDone) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(1ms);
    }
    return true;
  };
  const DocumentId handbook = Publish("评审手册", kHandbook);
  std::jthread running([&waiting](std::stop_token stop) { waiting.Run(stop); });
  ASSERT_TRUE(done_soon(handbook)) << "the first round";
  const DocumentId runbook = Publish("运维手册", kRunbook);
  EXPECT_TRUE(done_soon(runbook)) << "woken, not after the hour's poll";
  running.request_stop();
  running.join();
  EXPECT_EQ(embedder_.total_embedded(), 4);
}

}  // namespace
}  // namespace docgate
