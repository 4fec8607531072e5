#include "app/search_ranking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace docgate {
namespace {

SearchQuery QueryOf(const std::vector<std::string>& terms, std::vector<bool> required = {}) {
  SearchQuery query;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    query.phrases.push_back({terms[i], {terms[i]}, i < required.size() && required[i]});
  }
  return query;
}

TEST(SearchRanking, RarerPhrasesWeighMoreAndNoneWeighsLessThanNothing) {
  EXPECT_GT(InverseChunkFrequency(1000, 1), InverseChunkFrequency(1000, 10));
  EXPECT_GT(InverseChunkFrequency(1000, 10), InverseChunkFrequency(1000, 999));
  EXPECT_GE(InverseChunkFrequency(1000, 1000), 0);
  EXPECT_GE(InverseChunkFrequency(10, 50), 0) << "a count above the total (statistics of "
                                                 "different moments) is the total";
}

TEST(SearchRanking, SaturationGrowsWithFrequencyAndStaysBelowItsBound) {
  EXPECT_EQ(Saturation(0, 1), 0);
  EXPECT_LT(Saturation(1, 1), Saturation(2, 1));
  EXPECT_GT(Saturation(1, 0.5), Saturation(1, 2)) << "a shorter chunk ranks a match higher";
  EXPECT_LT(Saturation(1e9, 0), kBm25K1 + 1);
}

TEST(SearchRanking, RequiredPhrasesFindAndNothingIsPruned) {
  const SearchQuery query = QueryOf({"a", "b", "c"}, {false, true, false});
  const std::vector<std::int64_t> holding{900000, 900000, 5};
  const SearchPlan plan = PlanSearch(query, 1000000, holding, 10);
  EXPECT_TRUE(plan.all_required);
  EXPECT_EQ(plan.finds, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(WidenSearch(plan, {}, 10), std::nullopt);
  EXPECT_EQ(MostCandidates(plan), 900000);
}

TEST(SearchRanking, RarePhrasesFindAndCommonOnesOnlyScore) {
  const SearchQuery query = QueryOf({"common", "rare", "rarest"});
  const std::vector<std::int64_t> holding{600000, 1500, 30};
  const SearchPlan plan = PlanSearch(query, 1000000, holding, 10);
  EXPECT_EQ(plan.finds, (std::vector<bool>{false, true, true}));
  EXPECT_DOUBLE_EQ(plan.bound_of_rest, (kBm25K1 + 1) * plan.coefficient[0]);
  EXPECT_EQ(MostCandidates(plan), 1530);
  EXPECT_EQ(WriteFinders(
                query, plan, [](const SearchPhrase& p, std::string& out) { out += p.text; }, " & ",
                " | "),
            "(rare | rarest)");
  // A last hit above the bound settles it; one at or below it makes the common phrase a finder.
  EXPECT_EQ(WidenSearch(plan, std::vector<double>(10, plan.bound_of_rest + 0.1), 10), std::nullopt);
  const auto wider = WidenSearch(plan, std::vector<double>(10, plan.bound_of_rest), 10);
  ASSERT_TRUE(wider.has_value());
  EXPECT_EQ(wider->finds, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(wider->bound_of_rest, 0);
}

TEST(SearchRanking, FindersThatHoldTooFewChunksForTheLimitAreJoinedByTheNextPhrases) {
  const SearchQuery query = QueryOf({"common", "commoner", "rare"});
  const std::vector<std::int64_t> holding{300000, 600000, 3};
  const SearchPlan plan = PlanSearch(query, 1000000, holding, 10);
  EXPECT_EQ(plan.finds, (std::vector<bool>{true, false, true})) << "3 chunks cannot give 10";
  // A run that found 4: the next phrase joins, though the bound says nothing yet.
  const auto wider = WidenSearch(plan, std::vector<double>(4, 100.0), 10);
  ASSERT_TRUE(wider.has_value());
  EXPECT_EQ(wider->finds, (std::vector<bool>{true, true, true}));
}

TEST(SearchRanking, ALastHitTheCommonPhrasesCouldReachOnlyTogetherAddsThoseSets) {
  const SearchQuery query = QueryOf({"rare", "a", "b", "c", "none"});
  const std::vector<std::int64_t> holding{50, 100000, 150000, 200000, 0};
  const SearchPlan plan = PlanSearch(query, 1000000, holding, 10);
  EXPECT_EQ(plan.finds, (std::vector<bool>{true, false, false, false, true}));
  const double a = (kBm25K1 + 1) * plan.coefficient[1];
  const double b = (kBm25K1 + 1) * plan.coefficient[2];
  const double c = (kBm25K1 + 1) * plan.coefficient[3];
  ASSERT_GT(a, b);
  ASSERT_GT(b, c);
  ASSERT_GT(b + c, a) << "the test needs any two to reach more than one alone";
  // The last hit reached more than any two of them, less than all three: only the three together
  // can beat it, and no phrase becomes a finder.
  const auto all_three = WidenSearch(plan, std::vector<double>(10, a + b + 0.01), 10);
  ASSERT_TRUE(all_three.has_value());
  EXPECT_EQ(all_three->finds, plan.finds);
  EXPECT_EQ(all_three->together, (std::vector<std::vector<std::size_t>>{{1, 2, 3}}));
  EXPECT_EQ(MostCandidates(*all_three), 50 + 100000);
  EXPECT_EQ(WriteFinders(
                query, *all_three, [](const SearchPhrase& p, std::string& out) { out += p.text; },
                " & ", " | "),
            "(rare | none | (a & b & c))");
  // Reaching more than any one alone: the pairs (a and c also stands for a, b and c).
  const auto pairs = WidenSearch(plan, std::vector<double>(10, a + 0.01), 10);
  ASSERT_TRUE(pairs.has_value());
  EXPECT_EQ(pairs->together, (std::vector<std::vector<std::size_t>>{{1, 2}, {1, 3}, {2, 3}}));
  // The run of a plan with sets is the last when it reaches what they were made for.
  EXPECT_EQ(WidenSearch(*pairs, std::vector<double>(10, a + 0.01), 10), std::nullopt);
  // More than the three together can reach: no set, and no second run.
  EXPECT_EQ(WidenSearch(plan, std::vector<double>(10, a + b + c + 0.01), 10), std::nullopt);
}

TEST(SearchRanking, TooManySetsMakeTheCommonPhrasesThatAddTheMostFinders) {
  std::vector<std::string> terms{"rare"};
  std::vector<std::int64_t> holding{50};
  for (int i = 0; i < 12; ++i) {
    terms.push_back("c" + std::to_string(i));
    holding.push_back(100000 + 1000 * i);
  }
  const SearchQuery query = QueryOf(terms);
  const SearchPlan plan = PlanSearch(query, 1000000, holding, 10);
  // Half of the twelve reach it together: C(12, 6) sets, far more than kMostTogether.
  const double one = (kBm25K1 + 1) * plan.coefficient[12];
  const auto wider = WidenSearch(plan, std::vector<double>(10, 5.5 * one), 10);
  ASSERT_TRUE(wider.has_value());
  EXPECT_TRUE(wider->finds[1]) << "c0 can add the most";
  EXPECT_LE(wider->together.size(), kMostTogether);
  EXPECT_FALSE(wider->finds[12]) << "not every phrase had to find";
}

// A corpus in memory and an engine that does what SQLite and PostgreSQL do with a plan: score
// every chunk holding a finder with every phrase, and return the best `limit`.
struct Corpus {
  std::vector<std::map<std::string, double>> frequency;  // per chunk
  std::vector<double> length;
  double average_length = 1;

  std::vector<std::pair<double, std::size_t>> Run(const SearchQuery& query, const SearchPlan& plan,
                                                  int limit) const {
    std::vector<std::pair<double, std::size_t>> hits;
    for (std::size_t chunk = 0; chunk < frequency.size(); ++chunk) {
      const auto holds = [&](std::size_t i) {
        return frequency[chunk].contains(query.phrases[i].terms[0]);
      };
      bool found = false;
      double score = 0;
      for (std::size_t i = 0; i < query.phrases.size(); ++i) {
        if (!holds(i)) continue;
        found = found || plan.finds[i];
        score += plan.coefficient[i] * Saturation(frequency[chunk].at(query.phrases[i].terms[0]),
                                                  length[chunk] / average_length);
      }
      for (const std::vector<std::size_t>& set : plan.together) {
        found = found || std::all_of(set.begin(), set.end(), holds);
      }
      if (found) hits.emplace_back(score, chunk);
    }
    std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (hits.size() > static_cast<std::size_t>(limit)) hits.resize(static_cast<std::size_t>(limit));
    return hits;
  }
};

// MaxScore's promise: the pruned runs give exactly the first hits of scoring every chunk. Term t
// of the corpus is held by about share(t) of its chunks; 300 random queries of up to 8 of the
// terms below `drawn`, and one of the terms from `rarest` on when it is below kTerms. The plans
// count `planned_chunks` chunks (at least the corpus'): more make its terms rarer, and weigh more.
struct PrunedRuns {
  int pruned = 0;     // queries whose last plan left a phrase out of finding
  int with_sets = 0;  // queries whose last plan found by sets of common phrases
};

constexpr int kTerms = 24;

PrunedRuns CheckPrunedRunsFindTheBest(const std::function<double(int)>& share, int drawn,
                                      int rarest = kTerms, std::int64_t planned_chunks = 0) {
  std::mt19937 random(20261204);
  constexpr std::size_t kChunks = 6000;
  Corpus corpus;
  std::vector<std::int64_t> holding_of(kTerms, 0);
  double total_length = 0;
  for (std::size_t chunk = 0; chunk < kChunks; ++chunk) {
    std::map<std::string, double> frequency;
    for (int t = 0; t < kTerms; ++t) {
      if (std::uniform_real_distribution<double>(0, 1)(random) < share(t)) {
        frequency["t" + std::to_string(t)] =
            std::uniform_int_distribution<int>(1, 4)(random) * (random() % 5 == 0 ? 2.5 : 1.0);
        ++holding_of[static_cast<std::size_t>(t)];
      }
    }
    corpus.frequency.push_back(std::move(frequency));
    corpus.length.push_back(std::uniform_int_distribution<int>(20, 400)(random));
    total_length += corpus.length.back();
  }
  corpus.average_length = total_length / kChunks;

  PrunedRuns counted;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> terms;
    std::vector<std::int64_t> holding;
    const int size = std::uniform_int_distribution<int>(1, 8)(random) + (rarest < kTerms ? 1 : 0);
    for (int i = 0; i < size; ++i) {
      const int t = rarest < kTerms && i == 0
                        ? std::uniform_int_distribution<int>(rarest, kTerms - 1)(random)
                        : std::uniform_int_distribution<int>(0, drawn - 1)(random);
      if (std::find(terms.begin(), terms.end(), "t" + std::to_string(t)) != terms.end()) continue;
      terms.push_back("t" + std::to_string(t));
      holding.push_back(holding_of[static_cast<std::size_t>(t)]);
    }
    const SearchQuery query = QueryOf(terms);
    const int limit = round % 3 == 0 ? 50 : 10;
    std::optional<SearchPlan> plan =
        PlanSearch(query, std::max<std::int64_t>(kChunks, planned_chunks), holding, limit);
    SearchPlan every = *plan;
    every.finds.assign(terms.size(), true);
    const auto expected = corpus.Run(query, every, limit);
    std::vector<std::pair<double, std::size_t>> hits;
    SearchPlan last;
    int runs = 0;
    while (plan) {
      last = *plan;
      hits = corpus.Run(query, *plan, limit);
      std::vector<double> scores;
      for (const auto& hit : hits) scores.push_back(hit.first);
      plan = WidenSearch(*plan, scores, limit);
      EXPECT_LE(++runs, size + 1) << "every run makes a phrase a finder, or is the last";
      if (runs > size + 1) break;
    }
    EXPECT_EQ(hits, expected) << "round " << round;
    if (std::find(last.finds.begin(), last.finds.end(), false) != last.finds.end()) {
      ++counted.pruned;
    }
    if (!last.together.empty()) ++counted.with_sets;
  }
  return counted;
}

TEST(SearchRanking, PrunedRunsFindExactlyTheBestOfScoringEveryChunk) {
  // From most chunks to a handful.
  const auto geometric = [](int t) { return 0.9 / std::pow(1.5, t); };
  EXPECT_GT(CheckPrunedRunsFindTheBest(geometric, kTerms).pruned, 30)
      << "the corpus should let many queries leave a phrase out of finding";
  // Twelve common terms (2,100 to 4,800 of the chunks) and twelve of about three chunks each, in
  // plans of 100,000 chunks: the common ones weigh as words held by 2 to 5 % of them do.
  const auto common_and_rare = [](int t) { return t < 12 ? 0.35 + 0.45 * t / 11 : 0.0005; };
  EXPECT_GT(CheckPrunedRunsFindTheBest(common_and_rare, 12, 12, 100000).with_sets, 10)
      << "a question of common words and one rare one should often find by sets of them";
}

}  // namespace
}  // namespace docgate
