// VectorIndex's contract on the brute-force fake and on FAISS, exact (IndexFlatIP) and approximate
// (HNSW, made so from 64 vectors on): the most similar first, replacement, removal, sizes.

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "adapters/faiss/faiss_vector_index.h"
#include "fakes/fake_vector_index.h"

namespace docgate {
namespace {

constexpr int kDimensions = 32;

std::vector<float> RandomUnitVector(std::mt19937& random) {
  std::normal_distribution<float> normal;
  std::vector<float> vector(kDimensions);
  double norm = 0;
  for (float& v : vector) {
    v = normal(random);
    norm += static_cast<double>(v) * v;
  }
  for (float& v : vector) v = static_cast<float>(v / std::sqrt(norm));
  return vector;
}

struct Vectors {
  std::vector<std::int64_t> ids;
  std::vector<float> flat;  // one after another
  std::vector<std::vector<float>> each;
};

Vectors RandomVectors(int count, std::int64_t first_id, unsigned seed) {
  std::mt19937 random(seed);
  Vectors vectors;
  for (int i = 0; i < count; ++i) {
    vectors.ids.push_back(first_id + i);
    vectors.each.push_back(RandomUnitVector(random));
    vectors.flat.insert(vectors.flat.end(), vectors.each.back().begin(), vectors.each.back().end());
  }
  return vectors;
}

// Unit vectors around a few topics, as embeddings of texts are (uniformly random vectors in many
// dimensions are the case every approximate index does worst on, and no text looks like them).
std::vector<float> TopicVector(std::mt19937& random) {
  static const std::vector<std::vector<float>> topics = [] {
    std::mt19937 seeded(1);
    std::vector<std::vector<float>> made;
    for (int t = 0; t < 40; ++t) made.push_back(RandomUnitVector(seeded));
    return made;
  }();
  std::vector<float> vector = topics[random() % topics.size()];
  const std::vector<float> noise = RandomUnitVector(random);
  double norm = 0;
  for (std::size_t i = 0; i < vector.size(); ++i) {
    vector[i] += 0.5F * noise[i];
    norm += static_cast<double>(vector[i]) * vector[i];
  }
  for (float& v : vector) v = static_cast<float>(v / std::sqrt(norm));
  return vector;
}

std::vector<std::int64_t> IdsOf(const std::vector<VectorHit>& hits) {
  std::vector<std::int64_t> ids;
  for (const VectorHit& hit : hits) ids.push_back(hit.id);
  return ids;
}

struct FakeIndex {
  static constexpr bool kExact = true;
  static std::unique_ptr<VectorIndex> Make() {
    return std::make_unique<FakeVectorIndex>(kDimensions);
  }
};
struct ExactFaissIndex {
  static constexpr bool kExact = true;
  static std::unique_ptr<VectorIndex> Make() {
    return std::make_unique<FaissVectorIndex>(kDimensions);
  }
};
struct ApproximateFaissIndex {
  static constexpr bool kExact = false;
  static std::unique_ptr<VectorIndex> Make() {
    VectorIndexConfig config;
    config.approximate_from = 64;
    return std::make_unique<FaissVectorIndex>(kDimensions, config);
  }
};

template <typename Kind>
class VectorIndexContract : public ::testing::Test {};
using Kinds = ::testing::Types<FakeIndex, ExactFaissIndex, ApproximateFaissIndex>;
TYPED_TEST_SUITE(VectorIndexContract, Kinds);

TYPED_TEST(VectorIndexContract, FindsTheMostSimilarFirstAsTheReferenceDoes) {
  const auto index = TypeParam::Make();
  FakeVectorIndex reference(kDimensions);
  Vectors vectors;
  std::mt19937 topics(7);
  for (std::int64_t id = 1; id <= 2000; ++id) {
    vectors.ids.push_back(id);
    vectors.each.push_back(TopicVector(topics));
    vectors.flat.insert(vectors.flat.end(), vectors.each.back().begin(), vectors.each.back().end());
  }
  index->Add(vectors.ids, vectors.flat);
  reference.Add(vectors.ids, vectors.flat);
  ASSERT_EQ(index->size(), 2000U);

  std::mt19937 random(11);
  double found = 0;
  for (int q = 0; q < 50; ++q) {
    const std::vector<float> query = TopicVector(random);
    const std::vector<VectorHit> hits = index->Search(query, 10);
    const std::vector<VectorHit> expected = reference.Search(query, 10);
    ASSERT_EQ(hits.size(), 10U);
    for (std::size_t i = 1; i < hits.size(); ++i) {
      EXPECT_GE(hits[i - 1].similarity, hits[i].similarity) << "most similar first";
    }
    if (TypeParam::kExact) {
      EXPECT_EQ(IdsOf(hits), IdsOf(expected));
      EXPECT_NEAR(hits[0].similarity, expected[0].similarity, 1e-5);
    }
    const std::vector<std::int64_t> ids = IdsOf(hits);
    for (const std::int64_t id : IdsOf(expected)) {
      found += std::count(ids.begin(), ids.end(), id);
    }
  }
  EXPECT_GE(found / (50 * 10), TypeParam::kExact ? 1.0 : 0.95) << "recall@10 against the reference";

  // A stored vector is its own nearest neighbour, at similarity 1.
  const std::vector<VectorHit> self = index->Search(vectors.each[1234], 1);
  ASSERT_EQ(self.size(), 1U);
  EXPECT_EQ(self[0].id, vectors.ids[1234]);
  EXPECT_NEAR(self[0].similarity, 1.0, 1e-5);
}

TYPED_TEST(VectorIndexContract, AddingAnIdAgainReplacesItsVector) {
  const auto index = TypeParam::Make();
  const Vectors vectors = RandomVectors(200, 1, 3);  // ids 1..200
  index->Add(vectors.ids, vectors.flat);
  // Id 5 takes a copy of id 150's vector, and id 151 one of its own.
  const Vectors other = RandomVectors(1, 0, 99);
  std::vector<float> both = vectors.each[149];
  both.insert(both.end(), other.each[0].begin(), other.each[0].end());
  index->Add({5, 151}, both);

  EXPECT_EQ(index->size(), 200U);
  const std::vector<VectorHit> hits = index->Search(vectors.each[149], 2);
  ASSERT_EQ(hits.size(), 2U);
  EXPECT_EQ(hits[0].similarity, hits[1].similarity) << "ids 5 and 150 hold the same vector";
  EXPECT_EQ(IdsOf(hits), (std::vector<std::int64_t>{5, 150})) << "ties by id";
  for (const VectorHit& hit : index->Search(vectors.each[4], 200)) {
    if (hit.id == 5) {
      EXPECT_LT(hit.similarity, 0.99F) << "id 5's old vector is gone";
    }
  }
  EXPECT_EQ(index->Search(other.each[0], 1)[0].id, 151);
}

TYPED_TEST(VectorIndexContract, RemovedVectorsAreNeverFoundAndTheLiveOnesStillCome) {
  const auto index = TypeParam::Make();
  const Vectors vectors = RandomVectors(400, 1, 5);
  index->Add(vectors.ids, vectors.flat);
  std::vector<std::int64_t> removed;
  for (std::int64_t id = 1; id <= 360; ++id) removed.push_back(id);
  index->Remove(removed);
  index->Remove({9999});  // not present: ignored
  EXPECT_EQ(index->size(), 40U);
  for (int q : {0, 100, 380, 399}) {
    const std::vector<VectorHit> hits =
        index->Search(vectors.each[static_cast<std::size_t>(q)], 10);
    ASSERT_EQ(hits.size(), 10U) << "ten live vectors remain to be found";
    for (const VectorHit& hit : hits) EXPECT_GT(hit.id, 360) << "a removed vector was found";
  }
  const std::vector<VectorHit> all = index->Search(vectors.each[0], 100);
  EXPECT_EQ(all.size(), 40U) << "fewer than k: all of them";
  index->Remove(IdsOf(all));
  EXPECT_EQ(index->size(), 0U);
  EXPECT_TRUE(index->Search(vectors.each[0], 10).empty());
}

TYPED_TEST(VectorIndexContract, VectorsOfTheWrongSizeAreInvalidArguments) {
  const auto index = TypeParam::Make();
  EXPECT_THROW(index->Add({1}, std::vector<float>(kDimensions + 1)), std::invalid_argument);
  EXPECT_THROW(index->Search(std::vector<float>(kDimensions - 1), 3), std::invalid_argument);
  EXPECT_EQ(index->size(), 0U);
  EXPECT_TRUE(index->Search(std::vector<float>(kDimensions, 0.1F), 3).empty());
}

TYPED_TEST(VectorIndexContract, SearchesRunWhileVectorsAreAddedAndRemoved) {
  const auto index = TypeParam::Make();
  const Vectors vectors = RandomVectors(600, 1, 13);
  // Batches of 50 are added; once a batch is in, the first id of the batch before is removed.
  std::atomic<int> removed_through{-1};  // the last batch whose first id is gone
  std::thread writer([&] {
    for (int batch = 0; batch < 12; ++batch) {
      const auto from = static_cast<std::ptrdiff_t>(batch * 50);
      index->Add({vectors.ids.begin() + from, vectors.ids.begin() + from + 50},
                 {vectors.flat.begin() + from * kDimensions,
                  vectors.flat.begin() + (from + 50) * kDimensions});
      if (batch > 0) {
        index->Remove({vectors.ids[static_cast<std::size_t>(from - 50)]});
        removed_through = batch - 1;
      }
    }
  });
  for (std::size_t searched = 0; removed_through.load() < 10; ++searched) {
    const int gone = removed_through.load();
    for (const VectorHit& hit : index->Search(vectors.each[searched % 600], 5)) {
      const bool first_of_its_batch = (hit.id - 1) % 50 == 0;
      EXPECT_FALSE(first_of_its_batch && (hit.id - 1) / 50 <= gone) << "removed id " << hit.id;
    }
  }
  writer.join();
  EXPECT_EQ(index->size(), 589U);
}

TEST(FaissVectorIndexTest, BecomesApproximateBeyondItsThresholdAndExactAgainBelowIt) {
  VectorIndexConfig config;
  config.approximate_from = 100;
  FaissVectorIndex index(kDimensions, config);
  const Vectors vectors = RandomVectors(150, 1, 17);
  index.Add({vectors.ids.begin(), vectors.ids.begin() + 100},
            {vectors.flat.begin(), vectors.flat.begin() + 100 * kDimensions});
  EXPECT_FALSE(index.approximate());
  index.Add({vectors.ids.begin() + 100, vectors.ids.end()},
            {vectors.flat.begin() + 100 * kDimensions, vectors.flat.end()});
  EXPECT_TRUE(index.approximate());
  EXPECT_EQ(index.Search(vectors.each[120], 1)[0].id, 121);
  std::vector<std::int64_t> most;
  for (std::int64_t id = 1; id <= 120; ++id) most.push_back(id);
  index.Remove(most);  // the removed are most of what it holds: rebuilt, exact again
  EXPECT_FALSE(index.approximate());
  EXPECT_EQ(index.size(), 30U);
  EXPECT_EQ(index.Search(vectors.each[149], 1)[0].id, 150);
}

TEST(FaissVectorIndexTest, DimensionsOutsideTheRangeAreRefused) {
  EXPECT_THROW(FaissVectorIndex(0), std::invalid_argument);
  EXPECT_THROW(FaissVectorIndex(65537), std::invalid_argument);
}

}  // namespace
}  // namespace docgate
