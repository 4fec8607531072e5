#pragma once

// The contract of EmbeddingStore (app/ports/embedding_store.h), with what the consumer transaction's
// ReplaceChunks does to it (the chunks' keys, orphans). Instantiate with a factory of
// DocumentStoreContract:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, EmbeddingStoreContract, ::testing::Types<F>);
//
// Keys are computed as ingestion computes them (EmbeddingTextKey). Claims are on the caller's
// clock (ContractTime); orphans are marked on the database's, which no test controls, so purges
// are asked about times long before and long after any clock a test runs on.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <latch>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/crypto/openssl_digest.h"
#include "app/embedding_text_key.h"
#include "app/ports/embedding_store.h"
#include "contract/consumer_contract_fixture.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

template <typename Factory>
class EmbeddingStoreContract : public ConsumerContractFixture<Factory> {
 protected:
  // How long the tests' claims last, on the caller's clock.
  static constexpr std::int64_t kLeaseMs = 60'000;

  static EmbeddingModel Model() { return EmbeddingModel{"text-embedding-3-small", 4}; }
  static EmbeddingModel OtherName() { return EmbeddingModel{"bge-m3", 4}; }
  static EmbeddingModel OtherDimensions() { return EmbeddingModel{"text-embedding-3-small", 8}; }

  // 2000-01-01 and 2100-01-01: before and after any time the database's clock marks an orphan.
  static TimePoint FarPast() { return TimePoint{std::chrono::milliseconds{946'684'800'000}}; }
  static TimePoint FarFuture() { return TimePoint{std::chrono::milliseconds{4'102'444'800'000}}; }

  EmbeddingStore& embeddings() { return *this->stores_.embeddings; }

  std::string Key(const std::string& text) const { return EmbeddingTextKey(digest_, text); }
  std::set<std::string> Keys(const std::vector<std::string>& texts) const {
    std::set<std::string> keys;
    for (const std::string& text : texts) keys.insert(Key(text));
    return keys;
  }

  // Ingests `texts` as the chunks of `version`, each with its key, as ingestion does, the chunk at
  // ordinal n in section "第 n+1 节"; committed.
  void IngestKeyed(DocumentId id, std::int32_t version, const std::vector<std::string>& texts) {
    std::vector<std::string> keys;
    std::vector<std::string> sections;
    for (const std::string& text : texts) {
      keys.push_back(Key(text));
      sections.push_back("第 " + std::to_string(sections.size() + 1) + " 节");
    }
    auto tx = this->inbox().BeginConsumer();
    tx->ReplaceChunks(id, version, "知识库指南", texts, sections, keys);
    tx->Commit();
  }

  // A document approved at version 1 whose chunks are `texts`, keyed; ingest_status `ingest`.
  DocumentId AddIngested(const std::vector<std::string>& texts,
                         IngestStatus ingest = IngestStatus::kPending) {
    const DocumentId id = this->AddDocument(1, ingest).id;
    IngestKeyed(id, 1, texts);
    return id;
  }

  // Claims keys of Model() for `owner` at ContractTime(at), for kLeaseMs.
  std::vector<TextToEmbed> ClaimFor(const std::string& owner, std::int64_t at = 0, int limit = 100,
                                    ClaimScope scope = ClaimScope::kAll) {
    return embeddings().Claim(Model(), owner, ContractTime(at), ContractTime(at + kLeaseMs), limit,
                              scope);
  }
  static std::set<std::string> ClaimedKeys(const std::vector<TextToEmbed>& claimed) {
    std::set<std::string> keys;
    for (const TextToEmbed& text : claimed) keys.insert(text.text_key);
    return keys;
  }

  // A vector of Model()'s size that `seed` tells apart.
  static std::vector<float> VectorOf(float seed) { return {seed, -seed, seed / 4, 1e-30f}; }
  static EmbeddingResult Embedded(const std::string& key, std::vector<float> vector) {
    EmbeddingResult result;
    result.text_key = key;
    result.vector = std::move(vector);
    return result;
  }
  static EmbeddingResult Refused(const std::string& key) {
    EmbeddingResult result;
    result.text_key = key;
    result.refusal = "content policy";
    return result;
  }
  void StoreVector(const std::string& text, float seed, const std::string& owner = "worker-1") {
    embeddings().Store(Model(), {Embedded(Key(text), VectorOf(seed))}, owner);
  }
  void StoreRefusal(const std::string& text, const std::string& owner = "worker-1") {
    embeddings().Store(Model(), {Refused(Key(text))}, owner);
  }

  std::set<std::string> StoredKeys(const EmbeddingModel& model) {
    std::set<std::string> keys;
    for (const StoredVector& stored : embeddings().VectorsAfter(model, 0, 1000)) {
      keys.insert(stored.text_key);
    }
    return keys;
  }

  std::string IngestOf(DocumentId id) {
    const std::optional<Document> doc = this->store().FindDocument(id);
    return doc ? std::string(ToString(doc->ingest_status)) : "no such document";
  }
  // What SettleDocuments returned, by id, with the statuses spelt out.
  using SettledList = std::vector<std::pair<DocumentId, std::string>>;
  static SettledList Settled(const std::vector<SettledDocument>& settled) {
    SettledList statuses;
    for (const SettledDocument& doc : settled) {
      statuses.emplace_back(doc.id, std::string(ToString(doc.status)));
    }
    std::sort(statuses.begin(), statuses.end());
    return statuses;
  }
  static std::vector<std::uint32_t> Bits(const std::vector<float>& vector) {
    std::vector<std::uint32_t> bits;
    for (float value : vector) bits.push_back(std::bit_cast<std::uint32_t>(value));
    return bits;
  }

  OpenSslDigest digest_;
};

TYPED_TEST_SUITE_P(EmbeddingStoreContract);

// Claims.

TYPED_TEST_P(EmbeddingStoreContract, ClaimReturnsEachMissingKeyOnceWithOneOfItsTexts) {
  const std::string shared = "审核通过后，文档被切分并建立索引。";
  const std::string lock = "Redis 锁是外层闸门";
  const std::string own = "Each reviewer signs off once.";
  this->AddIngested({shared, lock});
  this->AddIngested({own, shared});
  const std::vector<TextToEmbed> claimed = this->ClaimFor("worker-1");
  EXPECT_EQ(claimed.size(), 3u) << "the shared paragraph is one key, claimed once";
  EXPECT_EQ(this->ClaimedKeys(claimed), this->Keys({shared, lock, own}));
  for (const TextToEmbed& text : claimed) {
    EXPECT_EQ(this->Key(text.text), text.text_key) << text.text;
  }
}

TYPED_TEST_P(EmbeddingStoreContract, TextsThatNormaliseAlikeShareOneKeyAndOneClaim) {
  const std::string composed = "Caf\xC3\xA9 的菜单";     // U+00E9
  const std::string decomposed = "Cafe\xCC\x81 的菜单";  // e + U+0301
  ASSERT_EQ(this->Key(composed), this->Key(decomposed));
  this->AddIngested({composed});
  this->AddIngested({decomposed});
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 1);
  const std::vector<TextToEmbed> claimed = this->ClaimFor("worker-1");
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].text_key, this->Key(composed));
  EXPECT_TRUE(claimed[0].text == composed || claimed[0].text == decomposed) << claimed[0].text;
}

TYPED_TEST_P(EmbeddingStoreContract, ALiveClaimIsNobodyElsesAndAnExpiredOneIsTakenOver) {
  const std::string first = "审核通过后，文档被切分并建立索引。";
  const std::string second = "Redis 锁是外层闸门";
  this->AddIngested({first, second});
  const std::int64_t lease = this->kLeaseMs;
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-1", 0)), this->Keys({first, second}));
  EXPECT_TRUE(this->ClaimFor("worker-2", 0).empty());
  EXPECT_TRUE(this->ClaimFor("worker-1", 1).empty()) << "not even its owner claims it again";
  EXPECT_TRUE(this->ClaimFor("worker-2", lease - 1).empty()) << "live until its expiry";
  const std::vector<TextToEmbed> taken = this->ClaimFor("worker-2", lease);
  EXPECT_EQ(this->ClaimedKeys(taken), this->Keys({first, second}))
      << "a claim whose expiry is not after `now` is taken over";
  EXPECT_TRUE(this->ClaimFor("worker-3", lease).empty()) << "worker-2's claims are live";
  EXPECT_TRUE(this->ClaimFor("worker-3", 2 * lease - 1).empty());
  EXPECT_EQ(this->ClaimFor("worker-3", 2 * lease).size(), 2u);
}

TYPED_TEST_P(EmbeddingStoreContract, ClaimHonoursItsLimit) {
  const std::vector<std::string> texts = {"第一段", "第二段", "第三段", "第四段", "第五段"};
  this->AddIngested(texts);
  std::set<std::string> all;
  for (const auto& [owner, expected] : std::vector<std::pair<std::string, std::size_t>>{
           {"worker-1", 2}, {"worker-2", 2}, {"worker-3", 1}, {"worker-4", 0}}) {
    const std::vector<TextToEmbed> claimed = this->ClaimFor(owner, 0, 2);
    EXPECT_EQ(claimed.size(), expected) << owner;
    for (const TextToEmbed& text : claimed) {
      EXPECT_TRUE(all.insert(text.text_key).second) << "claimed twice: " << text.text;
    }
  }
  EXPECT_EQ(all, this->Keys(texts));
}

TYPED_TEST_P(EmbeddingStoreContract, ClaimSkipsAnsweredKeysAndChunksOutsideApprovedVersions) {
  const std::string stored = "审核通过后，文档被切分并建立索引。";
  const std::string refused = "被拒绝的段落";
  const std::string missing = "Redis 锁是外层闸门";
  this->AddIngested({stored, refused, missing});
  this->StoreVector(stored, 1);
  this->StoreRefusal(refused);
  const DocumentId unkeyed = this->AddDocument(1, IngestStatus::kPending).id;
  this->Ingest(unkeyed, 1, "Guide", {"没有键的段落"});
  const DocumentId stale = this->AddDocument(2, IngestStatus::kPending).id;
  this->IngestKeyed(stale, 1, {"旧版本的段落"});
  const DocumentId draft = this->AddDocument().id;
  this->IngestKeyed(draft, 1, {"草稿里的段落"});
  const std::vector<TextToEmbed> claimed = this->ClaimFor("worker-1");
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].text_key, this->Key(missing));
  EXPECT_EQ(claimed[0].text, missing);
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 1) << "claimed is not answered";
}

TYPED_TEST_P(EmbeddingStoreContract, APendingScopeClaimTakesPendingVersionsOldestDocumentFirst) {
  const std::string of_done = "已完成版本的段落";
  const std::string of_failed = "失败版本的段落";
  const std::string older = "较早文档的段落";
  const std::string shared = "两篇文档共有的段落";
  const std::string newer = "较新文档的段落";
  this->AddIngested({of_done}, IngestStatus::kDone);
  this->AddIngested({of_failed}, IngestStatus::kFailed);
  this->AddIngested({older, shared});
  this->AddIngested({shared, newer});
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-1", 0, 2, ClaimScope::kPending)),
            this->Keys({older, shared}))
      << "the older document's texts first";
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-2", 0, 100, ClaimScope::kPending)),
            this->Keys({newer}))
      << "the shared text is claimed already; done and failed versions are not looked at";
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-3", 0, 100, ClaimScope::kAll)),
            this->Keys({of_done, of_failed}))
      << "a full scan finds the texts of versions that are not pending";
  EXPECT_TRUE(this->ClaimFor("worker-4", 0, 100, ClaimScope::kAll).empty());
}

// Store and Release.

TYPED_TEST_P(EmbeddingStoreContract, AStoredKeyIsNeverClaimedAgainAndKeepsItsFirstAnswer) {
  const std::string text = "审核通过后，文档被切分并建立索引。";
  const std::string refused = "被拒绝的段落";
  const std::string key = this->Key(text);
  const std::int64_t lease = this->kLeaseMs;
  this->AddIngested({text, refused});
  ASSERT_EQ(this->ClaimFor("worker-1", 0).size(), 2u);
  ASSERT_EQ(this->ClaimFor("worker-2", lease).size(), 2u) << "worker-1's claims expired";
  // worker-1 answers late, but first: its answers are kept.
  this->embeddings().Store(
      this->Model(), {this->Embedded(key, this->VectorOf(1)), this->Refused(this->Key(refused))},
      "worker-1");
  this->embeddings().Store(this->Model(),
                           {this->Embedded(key, this->VectorOf(2)),
                            this->Embedded(this->Key(refused), this->VectorOf(3))},
                           "worker-2");
  this->embeddings().Store(this->Model(), {this->Refused(key)}, "worker-3");
  const std::vector<StoredVector> vectors = this->embeddings().VectorsAfter(this->Model(), 0, 10);
  ASSERT_EQ(vectors.size(), 1u) << "the refusal stays a refusal";
  EXPECT_EQ(vectors[0].text_key, key);
  EXPECT_EQ(vectors[0].vector, this->VectorOf(1));
  EXPECT_TRUE(this->ClaimFor("worker-3", 10 * lease).empty());
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 0);
}

TYPED_TEST_P(EmbeddingStoreContract,
             AVectorOfTheWrongSizeIsAStorageErrorAndStoresNothingOfItsCall) {
  const std::string first = "Redis 锁是外层闸门";
  const std::string second = "审核通过后，文档被切分并建立索引。";
  this->AddIngested({first, second});
  EXPECT_THROW(this->embeddings().Store(this->Model(),
                                        {this->Embedded(this->Key(first), this->VectorOf(1)),
                                         this->Embedded(this->Key(second), {1.0f, 2.0f, 3.0f})},
                                        "worker-1"),
               StorageError);
  EXPECT_THROW(this->embeddings().Store(
                   this->Model(),
                   {this->Embedded(this->Key(first), {1.0f, 2.0f, 3.0f, 4.0f, 5.0f})}, "worker-1"),
               StorageError);
  EXPECT_THROW(
      this->embeddings().Store(this->OtherDimensions(),
                               {this->Embedded(this->Key(first), this->VectorOf(1))}, "worker-1"),
      StorageError)
      << "4 floats for a model of 8";
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 2);
  EXPECT_TRUE(this->StoredKeys(this->Model()).empty());
  EXPECT_TRUE(this->StoredKeys(this->OtherDimensions()).empty());
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-2")), this->Keys({first, second}));
  this->embeddings().Store(
      this->Model(),
      {this->Embedded(this->Key(first), this->VectorOf(1)), this->Refused(this->Key(second))},
      "worker-2");
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 0)
      << "a refusal needs no floats; a right vector beside it is stored";
  EXPECT_EQ(this->StoredKeys(this->Model()), this->Keys({first}));
}

TYPED_TEST_P(EmbeddingStoreContract, ReleaseGivesTheOwnersKeysBackAtOnce) {
  const std::string a = "审核通过后，文档被切分并建立索引。";
  const std::string b = "Redis 锁是外层闸门";
  const std::string c = "第三段";
  this->AddIngested({a, b, c});
  ASSERT_EQ(this->ClaimFor("worker-1").size(), 3u);
  this->embeddings().Release(this->Model(), "worker-2", {this->Key(a)});
  EXPECT_TRUE(this->ClaimFor("worker-3").empty()) << "worker-2 held none of them";
  this->embeddings().Release(this->OtherName(), "worker-1", {this->Key(a)});
  EXPECT_TRUE(this->ClaimFor("worker-3").empty()) << "worker-1 held no claim of that model";
  this->embeddings().Release(this->Model(), "worker-1", {this->Key(a), this->Key(b)});
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-3")), this->Keys({a, b}));
  EXPECT_TRUE(this->ClaimFor("worker-4").empty()) << "c is still worker-1's";
}

// SettleDocuments.

TYPED_TEST_P(EmbeddingStoreContract, SettleMarksDocumentsDoneOnceEveryKeyHasAVectorAndOnlyOnce) {
  const std::string shared = "审核通过后，文档被切分并建立索引。";
  const std::string of_a = "Redis 锁是外层闸门";
  const std::string of_b = "B 的段落";
  const std::string of_c = "C 的段落";
  const DocumentId a = this->AddIngested({shared, of_a});
  const DocumentId b = this->AddIngested({of_b, shared});
  const DocumentId c = this->AddIngested({shared, of_c});
  EXPECT_TRUE(this->embeddings().SettleDocuments(this->Model(), 10).empty());
  this->embeddings().Store(this->Model(),
                           {this->Embedded(this->Key(shared), this->VectorOf(1)),
                            this->Embedded(this->Key(of_a), this->VectorOf(2)),
                            this->Embedded(this->Key(of_b), this->VectorOf(3))},
                           "worker-1");
  using SettledList = typename TestFixture::SettledList;
  EXPECT_EQ(this->Settled(this->embeddings().SettleDocuments(this->Model(), 10)),
            (SettledList{{a, "done"}, {b, "done"}}));
  EXPECT_EQ(this->IngestOf(a), "done");
  EXPECT_EQ(this->IngestOf(b), "done");
  EXPECT_EQ(this->IngestOf(c), "pending") << "C 的段落 has no vector yet";
  EXPECT_TRUE(this->embeddings().SettleDocuments(this->Model(), 10).empty())
      << "settled documents are pending no more";
  this->StoreVector(of_c, 4);
  EXPECT_EQ(this->Settled(this->embeddings().SettleDocuments(this->Model(), 10)),
            (SettledList{{c, "done"}}));
  EXPECT_EQ(this->IngestOf(c), "done");
}

TYPED_TEST_P(EmbeddingStoreContract, ARefusedChunkFailsItsDocumentOnceEveryChunkHasAnAnswer) {
  const std::string good = "审核通过后，文档被切分并建立索引。";
  const std::string refused = "被拒绝的段落";
  const std::string late = "Redis 锁是外层闸门";
  const DocumentId doc = this->AddIngested({good, refused, late});
  this->StoreVector(good, 1);
  this->StoreRefusal(refused);
  EXPECT_TRUE(this->embeddings().SettleDocuments(this->Model(), 10).empty());
  EXPECT_EQ(this->IngestOf(doc), "pending") << "one chunk has no answer yet";
  this->StoreVector(late, 2);
  using SettledList = typename TestFixture::SettledList;
  EXPECT_EQ(this->Settled(this->embeddings().SettleDocuments(this->Model(), 10)),
            (SettledList{{doc, "failed"}}));
  EXPECT_EQ(this->IngestOf(doc), "failed");
  EXPECT_TRUE(this->embeddings().SettleDocuments(this->Model(), 10).empty());
}

TYPED_TEST_P(EmbeddingStoreContract, SettleLeavesDocumentsNotPendingOrAwaitingAnotherVersion) {
  const std::string of_done = "已完成的段落";
  const std::string of_failed = "失败过的段落";
  const std::string of_stale = "旧版本的段落";
  const DocumentId done = this->AddIngested({of_done}, IngestStatus::kDone);
  const DocumentId failed = this->AddIngested({of_failed}, IngestStatus::kFailed);
  const DocumentId stale = this->AddDocument(2, IngestStatus::kPending).id;
  this->IngestKeyed(stale, 1, {of_stale});
  this->StoreVector(of_done, 1);
  this->StoreVector(of_failed, 2);
  this->StoreVector(of_stale, 3);
  EXPECT_TRUE(this->embeddings().SettleDocuments(this->Model(), 10).empty());
  EXPECT_EQ(this->IngestOf(done), "done");
  EXPECT_EQ(this->IngestOf(failed), "failed");
  EXPECT_EQ(this->IngestOf(stale), "pending") << "its approval is still to be ingested";
  this->IngestKeyed(stale, 2, {of_stale});
  using SettledList = typename TestFixture::SettledList;
  EXPECT_EQ(this->Settled(this->embeddings().SettleDocuments(this->Model(), 10)),
            (SettledList{{stale, "done"}}));
}

TYPED_TEST_P(EmbeddingStoreContract, SettleHonoursItsLimit) {
  const std::vector<DocumentId> docs = {
      this->AddIngested({"第一篇"}), this->AddIngested({"第二篇"}), this->AddIngested({"第三篇"})};
  this->StoreVector("第一篇", 1);
  this->StoreVector("第二篇", 2);
  this->StoreVector("第三篇", 3);
  EXPECT_EQ(this->embeddings().SettleDocuments(this->Model(), 2).size(), 2u);
  EXPECT_EQ(this->embeddings().SettleDocuments(this->Model(), 2).size(), 1u);
  EXPECT_TRUE(this->embeddings().SettleDocuments(this->Model(), 2).empty());
  for (DocumentId id : docs) EXPECT_EQ(this->IngestOf(id), "done") << id;
}

// CountMissing and models.

TYPED_TEST_P(EmbeddingStoreContract,
             CountMissingCountsDistinctKeysOfApprovedVersionsUntilAnswered) {
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 0);
  const std::string shared = "审核通过后，文档被切分并建立索引。";
  const std::string a = "Redis 锁是外层闸门";
  const std::string b = "被拒绝的段落";
  this->AddIngested({shared, a});
  this->AddIngested({b, shared, b});
  const DocumentId stale = this->AddDocument(2, IngestStatus::kPending).id;
  this->IngestKeyed(stale, 1, {"旧版本的段落"});
  const DocumentId draft = this->AddDocument().id;
  this->IngestKeyed(draft, 1, {"草稿里的段落"});
  const DocumentId unkeyed = this->AddDocument(1, IngestStatus::kPending).id;
  this->Ingest(unkeyed, 1, "Guide", {"没有键的段落"});
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 3);
  EXPECT_EQ(this->ClaimFor("worker-1").size(), 3u);
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 3) << "a claim is no answer";
  this->StoreVector(a, 1);
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 2);
  this->StoreRefusal(b);
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 1);
  this->StoreVector(shared, 2);
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 0);
  EXPECT_EQ(this->embeddings().CountMissing(this->OtherName()), 3);
  EXPECT_EQ(this->embeddings().CountMissing(this->OtherDimensions()), 3);
}

TYPED_TEST_P(EmbeddingStoreContract, AnotherModelNameOrSizeHasClaimsAndVectorsOfItsOwn) {
  const std::string a = "审核通过后，文档被切分并建立索引。";
  const std::string b = "Redis 锁是外层闸门";
  const DocumentId doc = this->AddIngested({a, b});
  const TimePoint now = ContractTime(0);
  const TimePoint until = ContractTime(this->kLeaseMs);
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-1")), this->Keys({a, b}));
  EXPECT_EQ(this->ClaimedKeys(this->embeddings().Claim(this->OtherName(), "worker-2", now, until,
                                                       10, ClaimScope::kAll)),
            this->Keys({a, b}))
      << "worker-1's claims are of another model";
  EXPECT_EQ(this->ClaimedKeys(this->embeddings().Claim(this->OtherDimensions(), "worker-2", now,
                                                       until, 10, ClaimScope::kAll)),
            this->Keys({a, b}));
  this->embeddings().Store(this->Model(),
                           {this->Embedded(this->Key(a), this->VectorOf(1)),
                            this->Embedded(this->Key(b), this->VectorOf(2))},
                           "worker-1");
  const std::vector<float> wide = {1, 2, 3, 4, 5, 6, 7, 8};
  this->embeddings().Store(this->OtherDimensions(), {this->Embedded(this->Key(a), wide)},
                           "worker-2");
  EXPECT_TRUE(this->StoredKeys(this->OtherName()).empty());
  EXPECT_EQ(this->StoredKeys(this->OtherDimensions()), this->Keys({a}));
  for (const StoredVector& stored : this->embeddings().VectorsAfter(this->Model(), 0, 10)) {
    EXPECT_EQ(stored.vector.size(), 4u) << "only the model's own vectors";
  }
  EXPECT_EQ(this->StoredKeys(this->Model()), this->Keys({a, b}));
  EXPECT_EQ(this->embeddings().CountMissing(this->OtherDimensions()), 1);
  EXPECT_EQ(this->embeddings().CountMissing(this->OtherName()), 2);
  EXPECT_TRUE(this->embeddings().SettleDocuments(this->OtherName(), 10).empty());
  EXPECT_EQ(this->IngestOf(doc), "pending");
  using SettledList = typename TestFixture::SettledList;
  EXPECT_EQ(this->Settled(this->embeddings().SettleDocuments(this->Model(), 10)),
            (SettledList{{doc, "done"}}));
}

// ConsumerTransaction::CountStoredVectors (ingestion's cache hits).

TYPED_TEST_P(EmbeddingStoreContract, CountStoredVectorsCountsKeysWithAVectorOfTheModelWithRepeats) {
  const std::string stored = "审核通过后，文档被切分并建立索引。";
  const std::string refused = "Redis 锁是外层闸门";
  const std::string other_size = "outbox 与业务写入同一事务";
  const std::string missing = "尚未嵌入的段落";
  this->AddIngested({stored, refused, other_size, missing});
  this->StoreVector(stored, 1);
  this->StoreRefusal(refused);
  this->embeddings().Store(this->OtherDimensions(),
                           {this->Embedded(this->Key(other_size), {1, 2, 3, 4, 5, 6, 7, 8})},
                           "worker-2");
  const std::vector<std::string> keys = {this->Key(stored), this->Key(refused), this->Key(stored),
                                         this->Key(other_size), this->Key(missing)};
  auto tx = this->inbox().BeginConsumer();
  EXPECT_EQ(tx->CountStoredVectors(this->Model(), keys), 2u)
      << "the stored text twice; a refusal, another size's vector and no vector count nothing";
  EXPECT_EQ(tx->CountStoredVectors(this->OtherDimensions(), keys), 1u);
  EXPECT_EQ(tx->CountStoredVectors(this->OtherName(), keys), 0u);
  EXPECT_EQ(tx->CountStoredVectors(this->Model(), {}), 0u);
}

// VectorsAfter.

TYPED_TEST_P(EmbeddingStoreContract, VectorsAfterPagesThroughInStoreOrderWithoutRefusals) {
  const std::vector<std::string> texts = {"第一段", "第二段", "Redis 锁是外层闸门",
                                          "审核通过后，文档被切分并建立索引。", "被拒绝的段落"};
  this->AddIngested(texts);
  this->StoreVector(texts[3], 3);
  this->StoreVector(texts[0], 0.5f);
  this->StoreRefusal(texts[4]);
  this->StoreVector(texts[1], 1);
  this->StoreVector(texts[2], 2);
  this->embeddings().Store(this->OtherName(),
                           {this->Embedded(this->Key(texts[0]), this->VectorOf(9))}, "worker-1");
  const std::vector<StoredVector> all = this->embeddings().VectorsAfter(this->Model(), 0, 100);
  ASSERT_EQ(all.size(), 4u);
  const std::vector<std::string> order = {texts[3], texts[0], texts[1], texts[2]};
  const std::vector<float> seeds = {3, 0.5f, 1, 2};
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].text_key, this->Key(order[i])) << i;
    EXPECT_EQ(all[i].vector, this->VectorOf(seeds[i])) << i;
    EXPECT_GT(all[i].id, i == 0 ? 0 : all[i - 1].id) << i;
  }
  const std::vector<StoredVector> first = this->embeddings().VectorsAfter(this->Model(), 0, 2);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].id, all[0].id);
  EXPECT_EQ(first[1].id, all[1].id);
  const std::vector<StoredVector> second =
      this->embeddings().VectorsAfter(this->Model(), first[1].id, 2);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].id, all[2].id);
  EXPECT_EQ(second[1].id, all[3].id);
  EXPECT_TRUE(this->embeddings().VectorsAfter(this->Model(), second[1].id, 2).empty());
  EXPECT_EQ(this->embeddings().VectorsAfter(this->Model(), all[0].id, 100).size(), 3u);
  const std::vector<StoredVector> other = this->embeddings().VectorsAfter(this->OtherName(), 0, 10);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].vector, this->VectorOf(9));
}

TYPED_TEST_P(EmbeddingStoreContract, StoredVectorsComeBackBitForBit) {
  const EmbeddingModel model{"bit-exact", 8};
  const std::string text = "审核通过后，文档被切分并建立索引。";
  this->AddIngested({text});
  const std::vector<float> values = {0.1f,
                                     -2.5f,
                                     1e-30f,
                                     -1e-30f,
                                     -0.0f,
                                     std::numeric_limits<float>::denorm_min(),
                                     std::numeric_limits<float>::max(),
                                     std::numeric_limits<float>::lowest()};
  this->embeddings().Store(model, {this->Embedded(this->Key(text), values)}, "worker-1");
  const std::vector<StoredVector> stored = this->embeddings().VectorsAfter(model, 0, 10);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].text_key, this->Key(text));
  EXPECT_EQ(this->Bits(stored[0].vector), this->Bits(values));
}

// Orphans.

TYPED_TEST_P(EmbeddingStoreContract, AnOrphanIsPurgedAfterItsMarkAndIsMissingOnlyIfUsedAgain) {
  const std::string gone = "审核通过后，文档被切分并建立索引。";
  const std::string kept = "Redis 锁是外层闸门";
  const std::string refused = "被拒绝的段落";
  const DocumentId doc = this->AddIngested({gone, kept, refused});
  this->embeddings().Store(
      this->Model(),
      {this->Embedded(this->Key(gone), this->VectorOf(1)),
       this->Embedded(this->Key(kept), this->VectorOf(2)), this->Refused(this->Key(refused))},
      "worker-1");
  this->embeddings().Store(this->OtherName(), {this->Embedded(this->Key(gone), this->VectorOf(3))},
                           "worker-1");
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 100), 0) << "no orphan yet";
  std::vector<std::int64_t> ids;
  std::int64_t kept_id = 0;
  for (const StoredVector& stored : this->embeddings().VectorsAfter(this->Model(), 0, 10)) {
    ids.push_back(stored.id);
    if (stored.text_key == this->Key(kept)) kept_id = stored.id;
  }
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(this->embeddings().VectorIds(this->Model()), ids)
      << "the model's vectors, ascending; no refusal, no other model's";
  this->IngestKeyed(doc, 1, {kept});
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarPast(), 100), 0)
      << "they became orphans now, not before 2000";
  EXPECT_EQ(this->StoredKeys(this->Model()), this->Keys({gone, kept}));
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 100), 3)
      << "gone's vectors of both models and the refusal";
  EXPECT_EQ(this->StoredKeys(this->Model()), this->Keys({kept}));
  EXPECT_EQ(this->embeddings().VectorIds(this->Model()), std::vector<std::int64_t>{kept_id})
      << "a purged vector's id is gone";
  EXPECT_TRUE(this->StoredKeys(this->OtherName()).empty());
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 0) << "no chunk has the purged keys";
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 100), 0);
  this->IngestKeyed(doc, 1, {kept, gone});
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 1);
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-2")), this->Keys({gone}));
}

TYPED_TEST_P(EmbeddingStoreContract, AKeyAnotherDocumentsChunkStillHasIsNeverPurged) {
  const std::string shared = "审核通过后，文档被切分并建立索引。";
  const std::string own = "Redis 锁是外层闸门";
  const std::string old = "旧版本的段落";
  const DocumentId a = this->AddIngested({shared, own, old});
  const DocumentId b = this->AddIngested({shared});
  const DocumentId stale = this->AddDocument(2, IngestStatus::kPending).id;
  this->IngestKeyed(stale, 1, {old});
  this->StoreVector(shared, 1);
  this->StoreVector(own, 2);
  this->StoreVector(old, 3);
  this->IngestKeyed(a, 1, {"全新的段落"});
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 100), 1) << "own only";
  EXPECT_EQ(this->StoredKeys(this->Model()), this->Keys({shared, old}))
      << "a chunk of any version keeps its key's vector";
  this->IngestKeyed(b, 1, {});
  this->IngestKeyed(stale, 2, {});
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 100), 2);
  EXPECT_TRUE(this->StoredKeys(this->Model()).empty());
}

TYPED_TEST_P(EmbeddingStoreContract, AKeyThatComesBackBeforeThePurgeIsNoOrphan) {
  const std::string back = "Redis 锁是外层闸门";
  const std::string moved = "审核通过后，文档被切分并建立索引。";
  const std::string other = "别的段落";
  const DocumentId a = this->AddIngested({back, moved});
  const DocumentId b = this->AddIngested({other});
  this->StoreVector(back, 1);
  this->StoreVector(moved, 2);
  this->IngestKeyed(a, 1, {"临时的段落"});
  this->IngestKeyed(a, 1, {back});
  this->IngestKeyed(b, 1, {other, moved});
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 100), 0);
  EXPECT_EQ(this->StoredKeys(this->Model()), this->Keys({back, moved}));
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-1")), this->Keys({other}))
      << "the keys that came back keep their vectors";
}

TYPED_TEST_P(EmbeddingStoreContract, PurgeOrphansHonoursItsLimitAndCountsWhatItDeleted) {
  const std::vector<std::string> orphans = {"第一段", "第二段", "第三段"};
  const std::string keep = "Redis 锁是外层闸门";
  const DocumentId doc = this->AddIngested({orphans[0], orphans[1], orphans[2], keep});
  this->StoreVector(orphans[0], 1);
  this->StoreVector(orphans[1], 2);
  this->StoreVector(orphans[2], 3);
  this->StoreVector(keep, 4);
  this->IngestKeyed(doc, 1, {keep});
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 2), 2);
  EXPECT_EQ(this->StoredKeys(this->Model()).size(), 2u);
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 2), 1);
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 2), 0);
  EXPECT_EQ(this->StoredKeys(this->Model()), this->Keys({keep}));
}

TYPED_TEST_P(EmbeddingStoreContract, AVectorStoredAfterItsChunkWentIsAnOrphan) {
  const std::string late = "审核通过后，文档被切分并建立索引。";
  const DocumentId doc = this->AddIngested({late});
  ASSERT_EQ(this->ClaimFor("worker-1").size(), 1u);
  this->IngestKeyed(doc, 1, {"替换后的段落"});
  this->StoreVector(late, 1, "worker-1");
  EXPECT_EQ(this->StoredKeys(this->Model()), this->Keys({late}));
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarPast(), 100), 0);
  EXPECT_EQ(this->embeddings().PurgeOrphans(this->FarFuture(), 100), 1);
  EXPECT_TRUE(this->StoredKeys(this->Model()).empty());
}

// Chunks without keys.

TYPED_TEST_P(EmbeddingStoreContract, ChunksWithoutAKeyAreListedInDocumentAndOrdinalOrder) {
  const DocumentId first = this->AddDocument(1, IngestStatus::kPending).id;
  const DocumentId second = this->AddDocument(1, IngestStatus::kPending).id;
  const DocumentId keyed = this->AddDocument(1, IngestStatus::kPending).id;
  EXPECT_TRUE(this->embeddings().ChunksWithoutKey(10).empty());
  this->Ingest(second, 1, "Guide", {"第二篇第一段", "第二篇第二段"});
  this->Ingest(first, 1, "Guide",
               {"审核通过后，文档被切分并建立索引。", "Redis 锁是外层闸门", "third paragraph"});
  this->IngestKeyed(keyed, 1, {"有键的段落"});
  const std::vector<UnkeyedChunk> listed = this->embeddings().ChunksWithoutKey(10);
  ASSERT_EQ(listed.size(), 5u);
  std::vector<DocumentId> ids;
  std::vector<std::string> contents;
  for (const UnkeyedChunk& chunk : listed) {
    ids.push_back(chunk.document_id);
    contents.push_back(chunk.content);
  }
  EXPECT_EQ(ids, (std::vector<DocumentId>{first, first, first, second, second}));
  EXPECT_EQ(contents,
            (std::vector<std::string>{"审核通过后，文档被切分并建立索引。", "Redis 锁是外层闸门",
                                      "third paragraph", "第二篇第一段", "第二篇第二段"}));
  EXPECT_LT(listed[0].ordinal, listed[1].ordinal);
  EXPECT_LT(listed[1].ordinal, listed[2].ordinal);
  EXPECT_LT(listed[3].ordinal, listed[4].ordinal);
  const std::vector<UnkeyedChunk> limited = this->embeddings().ChunksWithoutKey(2);
  ASSERT_EQ(limited.size(), 2u);
  EXPECT_EQ(limited[0].content, contents[0]);
  EXPECT_EQ(limited[1].content, contents[1]);
}

TYPED_TEST_P(EmbeddingStoreContract, SetKeysMakesChunksClaimableAndTheirDocumentSettleable) {
  const std::vector<std::string> texts = {"审核通过后，文档被切分并建立索引。",
                                          "Redis 锁是外层闸门"};
  const DocumentId doc = this->AddDocument(1, IngestStatus::kPending).id;
  this->Ingest(doc, 1, "Guide", texts);
  EXPECT_TRUE(this->ClaimFor("worker-1").empty()) << "a chunk without a key is not claimed";
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 0);
  EXPECT_TRUE(this->embeddings().SettleDocuments(this->Model(), 10).empty())
      << "a chunk without a key has no vector";
  std::vector<ChunkKey> keys;
  for (const UnkeyedChunk& chunk : this->embeddings().ChunksWithoutKey(10)) {
    keys.push_back(ChunkKey{chunk.document_id, chunk.ordinal, this->Key(chunk.content)});
  }
  ASSERT_EQ(keys.size(), 2u);
  this->embeddings().SetKeys(keys);
  EXPECT_TRUE(this->embeddings().ChunksWithoutKey(10).empty());
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 2);
  const std::vector<TextToEmbed> claimed = this->ClaimFor("worker-1");
  EXPECT_EQ(this->ClaimedKeys(claimed), this->Keys(texts));
  std::vector<EmbeddingResult> results;
  for (const TextToEmbed& text : claimed) {
    EXPECT_EQ(this->Key(text.text), text.text_key) << text.text;
    results.push_back(this->Embedded(text.text_key, this->VectorOf(1)));
  }
  this->embeddings().Store(this->Model(), results, "worker-1");
  using SettledList = typename TestFixture::SettledList;
  EXPECT_EQ(this->Settled(this->embeddings().SettleDocuments(this->Model(), 10)),
            (SettledList{{doc, "done"}}));
}

TYPED_TEST_P(EmbeddingStoreContract, SetKeysSkipsChunksThatAreGone) {
  const DocumentId replaced = this->AddDocument(1, IngestStatus::kPending).id;
  const DocumentId kept = this->AddDocument(1, IngestStatus::kPending).id;
  const DocumentId emptied = this->AddDocument(1, IngestStatus::kPending).id;
  this->Ingest(replaced, 1, "Guide", {"第一段", "第二段", "第三段"});
  this->Ingest(kept, 1, "Guide", {"Redis 锁是外层闸门"});
  this->Ingest(emptied, 1, "Guide", {"被删掉的段落"});
  std::vector<ChunkKey> keys;
  for (const UnkeyedChunk& chunk : this->embeddings().ChunksWithoutKey(10)) {
    keys.push_back(ChunkKey{chunk.document_id, chunk.ordinal, this->Key(chunk.content)});
  }
  ASSERT_EQ(keys.size(), 5u);
  const std::vector<std::string> replacing = {"审核通过后，文档被切分并建立索引。", "新的第二段"};
  this->IngestKeyed(replaced, 1, replacing);
  this->Ingest(emptied, 1, "Guide", {});
  EXPECT_NO_THROW(this->embeddings().SetKeys(keys));
  EXPECT_TRUE(this->embeddings().ChunksWithoutKey(10).empty());
  EXPECT_EQ(this->chunks().ListChunks(replaced), replacing);
  EXPECT_EQ(this->ClaimedKeys(this->ClaimFor("worker-1")),
            this->Keys({replacing[0], replacing[1], "Redis 锁是外层闸门"}))
      << "the chunks that replaced the listed ones keep their own keys";
}

// Concurrency.

TYPED_TEST_P(EmbeddingStoreContract, ConcurrentWorkersClaimEveryKeyExactlyOnce) {
  constexpr int kWorkers = 4;
  constexpr int kKeys = 60;
  constexpr int kDocuments = 12;
  std::vector<std::string> texts;
  for (int k = 0; k < kKeys; ++k) {
    texts.push_back("第" + std::to_string(k) + "段：审核通过后，文档被切分并建立索引。");
  }
  // Each text is in two documents.
  for (int d = 0; d < kDocuments; ++d) {
    std::vector<std::string> chunks;
    for (int j = 0; j < 10; ++j) chunks.push_back(texts[(5 * d + j) % kKeys]);
    this->AddIngested(chunks);
  }
  ASSERT_EQ(this->embeddings().CountMissing(this->Model()), kKeys);
  std::mutex mutex;
  std::map<std::string, int> claims;
  std::latch go(kWorkers);
  std::vector<std::thread> workers;
  for (int i = 0; i < kWorkers; ++i) {
    workers.emplace_back([&, i] {
      const std::string owner = "worker-" + std::to_string(i);
      // Half of them look at pending versions only, as workers do between full scans.
      const ClaimScope scope = i % 2 == 0 ? ClaimScope::kPending : ClaimScope::kAll;
      go.arrive_and_wait();
      for (auto batch = this->ClaimFor(owner, 0, 7, scope); !batch.empty();
           batch = this->ClaimFor(owner, 0, 7, scope)) {
        std::vector<EmbeddingResult> results;
        {
          std::lock_guard<std::mutex> lock(mutex);
          for (const TextToEmbed& text : batch) {
            ++claims[text.text_key];
            results.push_back(this->Embedded(text.text_key, this->VectorOf(static_cast<float>(i))));
          }
        }
        this->embeddings().Store(this->Model(), results, owner);
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  std::set<std::string> claimed;
  for (const auto& [key, times] : claims) {
    EXPECT_EQ(times, 1) << key;
    claimed.insert(key);
  }
  EXPECT_EQ(claimed, this->Keys(texts));
  EXPECT_EQ(this->embeddings().CountMissing(this->Model()), 0);
  EXPECT_EQ(this->embeddings().VectorsAfter(this->Model(), 0, 1000).size(),
            static_cast<std::size_t>(kKeys));
  EXPECT_EQ(this->embeddings().SettleDocuments(this->Model(), 100).size(),
            static_cast<std::size_t>(kDocuments));
}

TYPED_TEST_P(EmbeddingStoreContract, ApprovedChunksWithKeysFindsEveryApprovedChunkOfTheKeys) {
  const std::string shared = "审核通过后，文档被切分并建立索引。";
  const DocumentId first = this->AddIngested({"Redis 锁是外层闸门", shared});
  const DocumentId second = this->AddIngested({shared});
  const DocumentId stale = this->AddDocument(2, IngestStatus::kPending).id;
  this->IngestKeyed(stale, 1, {shared});  // chunks of a version that is not the approved one
  EXPECT_TRUE(this->embeddings().ApprovedChunksWithKeys({}).empty());
  EXPECT_TRUE(this->embeddings().ApprovedChunksWithKeys({this->Key("无此段落")}).empty());

  const std::vector<KeyedChunk> found =
      this->embeddings().ApprovedChunksWithKeys({this->Key(shared), this->Key("无此段落")});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].document_id, first);
  EXPECT_EQ(found[0].ordinal, 1);
  EXPECT_EQ(found[0].version, 1);
  EXPECT_EQ(found[0].title, "知识库指南");
  EXPECT_EQ(found[0].content, shared);
  EXPECT_EQ(found[0].text_key, this->Key(shared));
  EXPECT_EQ(found[0].section, "第 2 节");
  EXPECT_EQ(found[1].document_id, second);
  EXPECT_EQ(found[1].section, "第 1 节");
  EXPECT_EQ(found[1].ordinal, 0);
  EXPECT_EQ(this->embeddings()
                .ApprovedChunksWithKeys({this->Key(shared), this->Key("Redis 锁是外层闸门")})
                .size(),
            3u);
}

REGISTER_TYPED_TEST_SUITE_P(
    EmbeddingStoreContract, ApprovedChunksWithKeysFindsEveryApprovedChunkOfTheKeys,
    ClaimReturnsEachMissingKeyOnceWithOneOfItsTexts, TextsThatNormaliseAlikeShareOneKeyAndOneClaim,
    ALiveClaimIsNobodyElsesAndAnExpiredOneIsTakenOver, ClaimHonoursItsLimit,
    ClaimSkipsAnsweredKeysAndChunksOutsideApprovedVersions,
    APendingScopeClaimTakesPendingVersionsOldestDocumentFirst,
    AStoredKeyIsNeverClaimedAgainAndKeepsItsFirstAnswer,
    AVectorOfTheWrongSizeIsAStorageErrorAndStoresNothingOfItsCall,
    ReleaseGivesTheOwnersKeysBackAtOnce, SettleMarksDocumentsDoneOnceEveryKeyHasAVectorAndOnlyOnce,
    ARefusedChunkFailsItsDocumentOnceEveryChunkHasAnAnswer,
    SettleLeavesDocumentsNotPendingOrAwaitingAnotherVersion, SettleHonoursItsLimit,
    CountMissingCountsDistinctKeysOfApprovedVersionsUntilAnswered,
    AnotherModelNameOrSizeHasClaimsAndVectorsOfItsOwn,
    CountStoredVectorsCountsKeysWithAVectorOfTheModelWithRepeats,
    VectorsAfterPagesThroughInStoreOrderWithoutRefusals, StoredVectorsComeBackBitForBit,
    AnOrphanIsPurgedAfterItsMarkAndIsMissingOnlyIfUsedAgain,
    AKeyAnotherDocumentsChunkStillHasIsNeverPurged, AKeyThatComesBackBeforeThePurgeIsNoOrphan,
    PurgeOrphansHonoursItsLimitAndCountsWhatItDeleted, AVectorStoredAfterItsChunkWentIsAnOrphan,
    ChunksWithoutAKeyAreListedInDocumentAndOrdinalOrder,
    SetKeysMakesChunksClaimableAndTheirDocumentSettleable, SetKeysSkipsChunksThatAreGone,
    ConcurrentWorkersClaimEveryKeyExactlyOnce);

}  // namespace docgate
