#include "app/semantic_search.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/reader_service.h"
#include "fakes/fake_embedder.h"
#include "fakes/fake_vector_index.h"
#include "fakes/publishing_desk.h"
#include "worker/embedding_worker.h"

namespace docgate {
namespace {

const std::string kLocks = "Redis 锁是外层闸门，数据库的行锁才是真正的保证。";
const std::string kOutbox = "事件与审批在同一个事务里写入 outbox，不会丢失。";
const std::string kSearch = "搜索支持中文和中英混排的文本。";

// Approved documents, ingested and embedded by a worker, searched through ReaderService with a
// SemanticSearch over a brute-force index (tests/fakes/fake_vector_index.h).
class SemanticSearchTest : public ::testing::Test, protected PublishingDesk {
 protected:
  SemanticSearchTest() : PublishingDesk(EmbeddingModel{"fake-model", 16}) {}

  void Embed() {
    for (int round = 0; round < 100 && worker_.RunOnce(); ++round) {
    }
  }
  Result<SearchResults> Search(const std::string& query, std::optional<SearchMode> mode,
                               int limit = 10, SearchGrouping grouping = SearchGrouping::kChunk) {
    return reader_.Search(query, limit, mode, grouping);
  }
  // (document, snippet text) of each item, in order.
  static std::vector<std::pair<DocumentId, std::string>> Items(const SearchResults& results) {
    std::vector<std::pair<DocumentId, std::string>> items;
    for (const SearchHit& hit : results.items) {
      items.emplace_back(hit.document_id, hit.snippet.text);
    }
    return items;
  }

  FakeEmbedder embedder_{16, 8};
  EmbeddingWorker worker_{*fakes_.stores.embeddings, embedder_, digest_, clock_, "worker"};
  FakeVectorIndex index_{16};
  SemanticSearch semantic_{embedder_, *fakes_.stores.embeddings, index_, clock_};
  ReaderService reader_{*fakes_.stores.documents, *fakes_.stores.previews, *fakes_.stores.chunks,
                        ReaderConfig{}, &semantic_};
};

TEST_F(SemanticSearchTest, SemanticRanksByMeaningAndASharedParagraphFindsEveryDocument) {
  const DocumentId handbook = Publish("评审手册", kLocks + "\n\n" + kOutbox);
  const DocumentId runbook = Publish("运维手册", kSearch + "\n\n" + kLocks);
  Embed();
  const auto results = Search(kLocks, SearchMode::kSemantic);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ(results->mode, SearchMode::kSemantic);
  ASSERT_EQ(results->items.size(), 4u) << "every approved chunk, nearest first";
  EXPECT_EQ(Items(*results)[0], std::make_pair(handbook, kLocks));
  EXPECT_EQ(Items(*results)[1], std::make_pair(runbook, kLocks)) << "the same vector, both chunks";
  EXPECT_NEAR(results->items[0].score, 1.0, 1e-5);
  EXPECT_LT(results->items[2].score, results->items[1].score);
  EXPECT_EQ(Search(kLocks, SearchMode::kSemantic, 1)->items.size(), 1u);
}

TEST_F(SemanticSearchTest, HybridIsTheDefaultAndFusesBothRankingsByReciprocalRank) {
  Publish("评审手册", kLocks + "\n\n" + kOutbox);
  Publish("运维手册", kSearch + "\n\n数据库的行锁与 Redis 锁：行锁才是保证，锁只是闸门。");
  Embed();
  const std::string query = "行锁";
  const auto keyword = Search(query, SearchMode::kKeyword, 50);
  const auto semantic = Search(query, SearchMode::kSemantic, 50);
  const auto hybrid = Search(query, std::nullopt);
  ASSERT_TRUE(keyword.ok() && semantic.ok() && hybrid.ok());
  EXPECT_EQ(hybrid->mode, SearchMode::kHybrid);
  ASSERT_GE(keyword->items.size(), 2u);
  std::map<std::pair<DocumentId, std::string>, double> expected;
  for (std::size_t i = 0; i < keyword->items.size(); ++i) {
    expected[Items(*keyword)[i]] += 1.0 / (kRrfK + static_cast<double>(i + 1));
  }
  for (std::size_t i = 0; i < semantic->items.size(); ++i) {
    expected[Items(*semantic)[i]] += 1.0 / (kRrfK + static_cast<double>(i + 1));
  }
  ASSERT_EQ(hybrid->items.size(), expected.size()) << "every chunk either side found";
  for (std::size_t i = 0; i < hybrid->items.size(); ++i) {
    EXPECT_DOUBLE_EQ(hybrid->items[i].score, expected.at(Items(*hybrid)[i])) << i;
    if (i > 0) {
      EXPECT_LE(hybrid->items[i].score, hybrid->items[i - 1].score);
    }
  }
}

TEST_F(SemanticSearchTest, WithTheProviderDownSearchesAnswerByKeywordsAndSaySo) {
  Publish("评审手册", kLocks + "\n\n" + kOutbox);
  Embed();
  embedder_.SetUnavailable(true);
  const auto keyword = Search("行锁", SearchMode::kKeyword);
  ASSERT_TRUE(keyword.ok());
  EXPECT_FALSE(keyword->items.empty());
  for (const std::optional<SearchMode> mode :
       {std::optional(SearchMode::kSemantic), std::optional(SearchMode::kHybrid),
        std::optional<SearchMode>()}) {
    const auto results = Search("行锁", mode);
    ASSERT_TRUE(results.ok());
    EXPECT_EQ(results->mode, SearchMode::kKeyword) << "the fallback is said";
    EXPECT_EQ(results->keyword_fallback, mode != SearchMode::kKeyword);
    EXPECT_EQ(Items(*results), Items(*keyword));
  }
  EXPECT_FALSE(keyword->keyword_fallback);
}

// Issue 34: hybrid over documents fuses each side's document ranking (a document's rank there is
// its best chunk's), and a document both sides find is shown by its keyword chunk.
TEST_F(SemanticSearchTest, HybridOverDocumentsFusesEachSidesDocumentRanks) {
  const DocumentId handbook = Publish("评审手册", kLocks + "\n\n" + kOutbox);
  const DocumentId runbook =
      Publish("运维手册", kSearch + "\n\n数据库的行锁与 Redis 锁：行锁才是保证，锁只是闸门。");
  const DocumentId other = Publish("发布说明", kOutbox + "\n\n" + kSearch);
  Embed();
  const std::string query = "行锁";
  const auto by_words = Search(query, SearchMode::kKeyword, 50, SearchGrouping::kDocument);
  const auto by_meaning = Search(query, SearchMode::kSemantic, 50, SearchGrouping::kDocument);
  const auto hybrid = Search(query, SearchMode::kHybrid, 50, SearchGrouping::kDocument);
  ASSERT_TRUE(by_words.ok() && by_meaning.ok() && hybrid.ok());
  std::map<DocumentId, double> expected;
  std::set<DocumentId> seen;
  for (const auto* side : {&*by_words, &*by_meaning}) {
    seen.clear();
    for (std::size_t i = 0; i < side->items.size(); ++i) {
      EXPECT_TRUE(seen.insert(side->items[i].document_id).second) << "each document once";
      expected[side->items[i].document_id] += 1.0 / (kRrfK + static_cast<double>(i + 1));
    }
  }
  EXPECT_EQ(by_meaning->items.size(), 3u) << "every document, by its nearest chunk";
  ASSERT_EQ(hybrid->items.size(), expected.size());
  ASSERT_EQ(hybrid->items.size(), 3u);
  for (std::size_t i = 0; i < hybrid->items.size(); ++i) {
    const SearchHit& hit = hybrid->items[i];
    EXPECT_DOUBLE_EQ(hit.score, expected.at(hit.document_id)) << i;
    if (i > 0) {
      EXPECT_LE(hit.score, hybrid->items[i - 1].score);
    }
    if (hit.document_id == handbook || hit.document_id == runbook) {
      EXPECT_FALSE(hit.snippet.highlights.empty()) << "the keyword chunk stands for it";
    }
  }
  EXPECT_NE(expected.find(other), expected.end());
}

TEST_F(SemanticSearchTest, VectorsStoredLaterAreFoundByTheNextSearch) {
  Publish("评审手册", kOutbox);
  Embed();
  EXPECT_EQ(Search(kLocks, SearchMode::kSemantic)->items.size(), 1u);
  EXPECT_EQ(semantic_.indexed(), 1u);
  const DocumentId later = Publish("运维手册", kLocks);
  EXPECT_EQ(Search(kLocks, SearchMode::kSemantic)->items.size(), 1u) << "not embedded yet";
  Embed();
  const auto results = Search(kLocks, SearchMode::kSemantic);
  ASSERT_EQ(results->items.size(), 2u);
  EXPECT_EQ(Items(*results)[0], std::make_pair(later, kLocks));
  EXPECT_EQ(semantic_.indexed(), 2u);
}

TEST_F(SemanticSearchTest, AReplacedChunksVectorFindsNothing) {
  const DocumentId doc = Publish("评审手册", kLocks);
  Embed();
  ASSERT_EQ(Search(kLocks, SearchMode::kSemantic)->items.size(), 1u);
  Edit(doc, std::nullopt, kSearch);
  Approve(doc);
  Embed();
  const auto results = Search(kLocks, SearchMode::kSemantic);
  ASSERT_EQ(results->items.size(), 1u) << "only the new text's chunk";
  EXPECT_EQ(Items(*results)[0], std::make_pair(doc, kSearch));
}

TEST_F(SemanticSearchTest, PurgedVectorsLeaveTheIndexAtTheNextResync) {
  const DocumentId doc = Publish("评审手册", kLocks);
  Embed();
  Edit(doc, std::nullopt, kSearch);
  Approve(doc);
  Embed();
  ASSERT_EQ(Search(kSearch, SearchMode::kSemantic)->items.size(), 1u);
  EXPECT_EQ(semantic_.indexed(), 2u) << "the replaced text's vector is an orphan, still stored";
  const TimePoint year_2100{std::chrono::milliseconds{4'102'444'800'000}};
  ASSERT_EQ(fakes_.stores.embeddings->PurgeOrphans(year_2100, 10), 1);

  ASSERT_EQ(Search(kSearch, SearchMode::kSemantic)->items.size(), 1u);
  EXPECT_EQ(semantic_.indexed(), 2u) << "within the resync interval";
  clock_.Advance(std::chrono::minutes(11));
  const auto results = Search(kSearch, SearchMode::kSemantic);
  ASSERT_EQ(results->items.size(), 1u);
  EXPECT_EQ(Items(*results)[0], std::make_pair(doc, kSearch));
  EXPECT_EQ(semantic_.indexed(), 1u) << "the purged vector left the index";
}

TEST_F(SemanticSearchTest, WhileTheIndexLoadsSearchesAnswerByKeywordsWithoutWaiting) {
  const DocumentId doc = Publish("评审手册", kLocks);
  Embed();
  std::promise<void> entered;
  std::promise<void> release;
  const std::shared_future<void> released = release.get_future().share();
  index_.DuringAdd([&entered, released] {
    entered.set_value();
    released.wait();
  });
  std::jthread loader([this] { semantic_.Follow(); });  // as Application::Start does
  entered.get_future().wait();

  const auto during = Search(kLocks, std::nullopt);
  ASSERT_TRUE(during.ok());
  EXPECT_EQ(during->mode, SearchMode::kKeyword) << "said, not silent";
  ASSERT_EQ(during->items.size(), 1u);
  EXPECT_EQ(during->items[0].document_id, doc);
  release.set_value();
  loader.join();
  index_.DuringAdd({});

  const auto after = Search(kLocks, std::nullopt);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->mode, SearchMode::kHybrid);
  EXPECT_EQ(semantic_.indexed(), 1u);
}

}  // namespace
}  // namespace docgate
