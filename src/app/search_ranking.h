#pragma once

// How docgate ranks search hits on every backend, and how it keeps that fast over many chunks
// (ADR 0012). The rank is Okapi BM25 over a query's phrases (app/search_query.h); each phrase's
// coefficient is its inverse chunk frequency, computed here from counts the engine gives, so
// that SQLite and PostgreSQL score with the same numbers.
//
// Pruning (MaxScore, Turtle and Flood 1995): a chunk that holds none of a set of phrases scores
// at most kBm25K1 + 1 times the sum of the other phrases' coefficients. So the engine looks only
// at the chunks holding a "finder" (the rare phrases, whose lists are short), scores them with
// every phrase, and the hits are the true first ones when the last of them scores above that
// bound. When it does not, the plan is widened once, to every chunk that could still score what
// the first run's last hit reached (which the second run can only raise): those holding a finder
// or one of the fewest sets of the other phrases whose bounds reach it together ("(a AND b) OR
// ..."; an engine intersects common phrases' lists in its index, without reading the chunks).
// When there would be too many such sets, the common phrases that can add the most become
// finders first.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/search_query.h"

namespace docgate {

inline constexpr double kBm25K1 = 1.2;
inline constexpr double kBm25B = 0.75;
// An occurrence in the title counts this many occurrences in the content.
inline constexpr double kTitleWeight = 2.5;

// ln(1 + (chunks - holding + 0.5) / (holding + 0.5)): never negative, the rarer the higher.
double InverseChunkFrequency(std::int64_t chunks, std::int64_t holding);

// BM25's saturation of one phrase: `frequency` its weighted occurrences in a chunk,
// `relative_length` the chunk's length over the average. Below kBm25K1 + 1.
double Saturation(double frequency, double relative_length);

// Which chunks an engine looks at for a query, and what each phrase adds to their score.
struct SearchPlan {
  std::vector<double> coefficient;    // per phrase of the query: its idf
  std::vector<bool> finds;            // per phrase: a candidate holds it (required: holds them all)
  std::vector<std::int64_t> holding;  // per phrase: how many chunks hold it (at most)
  bool all_required = false;          // the finders are the query's required phrases, ANDed
  double bound_of_rest = 0;           // the most a chunk holding no finder can score
  // Sets of phrases that are not finders: a chunk holding all of one is a candidate too.
  std::vector<std::vector<std::size_t>> together;
  // A chunk that is no candidate scores below this (0: only bound_of_rest is known).
  double rest_below = 0;
};

// A phrase whose chunks are at most this share of all chunks (or at most kFewChunks) finds the
// candidates from the start; the others only score them until a run shows they must find too.
inline constexpr double kRareShare = 0.02;
inline constexpr std::int64_t kFewChunks = 2000;

// The first plan for `query` over `chunks` chunks, `holding[i]` of which hold phrase i (an upper
// bound is fine: the phrase then weighs a little less, the same on every backend), to find the
// first `limit`. Required phrases, when there are any, are the finders and nothing is pruned.
// Else the rare phrases, the one that can add the most, and more (those that can add the most
// first) until the finders' chunks are at least twice `limit`.
SearchPlan PlanSearch(const SearchQuery& query, std::int64_t chunks,
                      std::span<const std::int64_t> holding, int limit);

// Sets of the phrases at most this many: beyond it, the common phrases' lists are cheaper read
// whole than intersected in so many ways.
inline constexpr std::size_t kMostTogether = 24;

// nullopt when a run of `plan` that found `scores` (best first, at most `limit`) found the true
// first `limit`; else a plan that finds more. When the run found `limit`, every chunk that could
// score what its last hit reached becomes a candidate (above): that plan's run is the last. When
// it found fewer, the phrases that can add the most become finders until the new ones hold at
// least twice `limit` chunks (at least one phrase).
std::optional<SearchPlan> WidenSearch(const SearchPlan& plan, std::span<const double> scores,
                                      int limit);

// The most chunks a run of `plan` can find: the finders' holdings and each set's fewest, summed
// (the fewest of the finders when they are required).
std::int64_t MostCandidates(const SearchPlan& plan);

// An engine reads the text and document of this many of the best-scored chunks per hit wanted
// first, eight times as many when that gave fewer hits than wanted, and so on.
inline constexpr std::int64_t kLookedAtPerHit = 4;

// The finders of `plan` in an engine's syntax, each phrase as `phrase` writes it: the required
// ones joined by `all_of`, else the optional ones and the sets (their phrases joined by `all_of`,
// in parentheses) by `any_of`, in parentheses. "" for none.
std::string WriteFinders(const SearchQuery& query, const SearchPlan& plan,
                         const std::function<void(const SearchPhrase&, std::string&)>& phrase,
                         std::string_view all_of, std::string_view any_of);

}  // namespace docgate
