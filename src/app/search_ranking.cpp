#include "app/search_ranking.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace docgate {
namespace {

constexpr double kMostOfOnePhrase = kBm25K1 + 1;  // Saturation's bound

// The bound of the phrases that do not find.
double BoundOfRest(const SearchPlan& plan) {
  double bound = 0;
  for (std::size_t i = 0; i < plan.coefficient.size(); ++i) {
    if (!plan.finds[i]) bound += kMostOfOnePhrase * plan.coefficient[i];
  }
  return bound;
}

// Makes finders of the phrases that can add the most first, until `enough` says stop (checked
// before each).
template <typename Enough>
void AddFinders(SearchPlan& plan, Enough enough) {
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < plan.finds.size(); ++i) {
    if (!plan.finds[i]) rest.push_back(i);
  }
  std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) {
    return plan.coefficient[a] > plan.coefficient[b];
  });
  std::int64_t added = 0;
  for (const std::size_t i : rest) {
    if (enough(plan, added)) break;
    plan.finds[i] = true;
    added += plan.holding[i];
  }
  plan.bound_of_rest = BoundOfRest(plan);
}

// The fewest sets of the phrases that are not finders (and that some chunk holds) whose bounds
// reach `reached` together: a chunk holding no finder can score `reached` only when it holds all
// of one. nullopt when there are more than kMostTogether. Walks the phrases by bound, largest
// first, and ends a set at the phrase that makes it reach: so each set is found once, and none
// holds another.
std::optional<std::vector<std::vector<std::size_t>>> SetsReaching(const SearchPlan& plan,
                                                                  double reached) {
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < plan.finds.size(); ++i) {
    if (!plan.finds[i] && plan.holding[i] > 0) rest.push_back(i);
  }
  std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) {
    return plan.coefficient[a] > plan.coefficient[b];
  });
  std::vector<double> after(rest.size() + 1, 0);  // the bound of rest[k..]
  for (std::size_t k = rest.size(); k-- > 0;) {
    after[k] = after[k + 1] + kMostOfOnePhrase * plan.coefficient[rest[k]];
  }
  std::vector<std::vector<std::size_t>> sets;
  std::vector<std::size_t> set;
  bool too_many = false;
  const auto walk = [&](auto& self, std::size_t from, double bound) -> void {
    for (std::size_t k = from; k < rest.size() && !too_many; ++k) {
      if (bound + after[k] < reached) return;  // the rest of them together cannot reach it
      set.push_back(rest[k]);
      const double with = bound + kMostOfOnePhrase * plan.coefficient[rest[k]];
      if (with >= reached) {
        too_many = sets.size() == kMostTogether;
        sets.push_back(set);
      } else {
        self(self, k + 1, with);
      }
      set.pop_back();
    }
  };
  walk(walk, 0, 0.0);
  if (too_many) return std::nullopt;
  return sets;
}

}  // namespace

double InverseChunkFrequency(std::int64_t chunks, std::int64_t holding) {
  const double n = static_cast<double>(std::max<std::int64_t>(holding, 0));
  const double all = std::max(static_cast<double>(chunks), n);
  return std::log(1 + (all - n + 0.5) / (n + 0.5));
}

double Saturation(double frequency, double relative_length) {
  if (frequency <= 0) return 0;
  const double norm = kBm25K1 * (1 - kBm25B + kBm25B * relative_length);
  return frequency * kMostOfOnePhrase / (frequency + norm);
}

SearchPlan PlanSearch(const SearchQuery& query, std::int64_t chunks,
                      std::span<const std::int64_t> holding, int limit) {
  SearchPlan plan;
  const std::size_t count = query.phrases.size();
  plan.coefficient.resize(count);
  plan.finds.assign(count, false);
  plan.holding.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    plan.holding[i] = i < holding.size() ? holding[i] : chunks;
    plan.coefficient[i] = InverseChunkFrequency(chunks, plan.holding[i]);
    plan.all_required = plan.all_required || query.phrases[i].required;
  }
  if (plan.all_required) {
    for (std::size_t i = 0; i < count; ++i) plan.finds[i] = query.phrases[i].required;
    return plan;  // the required phrases bound the hits; nothing to prune
  }
  const auto rare_limit = std::max<std::int64_t>(
      kFewChunks, static_cast<std::int64_t>(kRareShare * static_cast<double>(chunks)));
  std::int64_t found = 0;
  for (std::size_t i = 0; i < count; ++i) {
    plan.finds[i] = plan.holding[i] <= rare_limit;
    if (plan.finds[i]) found += plan.holding[i];
  }
  const std::int64_t wanted = 2 * static_cast<std::int64_t>(std::max(limit, 1));
  AddFinders(plan, [&](const SearchPlan& p, std::int64_t added) {
    return found + added >= wanted &&
           std::find(p.finds.begin(), p.finds.end(), true) != p.finds.end();
  });
  return plan;
}

std::optional<SearchPlan> WidenSearch(const SearchPlan& plan, std::span<const double> scores,
                                      int limit) {
  if (plan.all_required || plan.bound_of_rest <= 0) return std::nullopt;
  SearchPlan wider = plan;
  if (limit > 0 && scores.size() >= static_cast<std::size_t>(limit)) {
    const double reached = scores[static_cast<std::size_t>(limit) - 1];
    if (reached > plan.bound_of_rest) return std::nullopt;
    if (plan.rest_below > 0 && reached >= plan.rest_below) return std::nullopt;
    const auto sets = SetsReaching(plan, reached);
    if (sets && sets->empty()) return std::nullopt;  // the phrases no chunk holds made the bound
    // Common phrases become finders until the sets that reach are few enough (none are needed
    // once the rest's bound is below it).
    AddFinders(wider, [&](const SearchPlan& p, std::int64_t) {
      if (BoundOfRest(p) < reached) return true;
      auto reaching = SetsReaching(p, reached);
      if (!reaching) return false;
      wider.together.clear();
      for (std::vector<std::size_t>& set : *reaching) {
        if (set.size() == 1) {
          wider.finds[set[0]] = true;  // a phrase that reaches alone is in no other set
        } else {
          wider.together.push_back(std::move(set));
        }
      }
      wider.rest_below = reached;
      return true;
    });
  } else {
    const std::int64_t wanted = 2 * static_cast<std::int64_t>(std::max(limit, 1));
    AddFinders(wider, [&](const SearchPlan&, std::int64_t added) { return added >= wanted; });
  }
  return wider;
}

std::int64_t MostCandidates(const SearchPlan& plan) {
  std::int64_t sum = 0;
  std::int64_t fewest = -1;
  for (std::size_t i = 0; i < plan.finds.size(); ++i) {
    if (!plan.finds[i]) continue;
    sum += plan.holding[i];
    fewest = fewest < 0 ? plan.holding[i] : std::min(fewest, plan.holding[i]);
  }
  if (plan.all_required) return std::max<std::int64_t>(fewest, 0);
  for (const std::vector<std::size_t>& set : plan.together) {
    std::int64_t holding_all = std::numeric_limits<std::int64_t>::max();
    for (const std::size_t i : set) holding_all = std::min(holding_all, plan.holding[i]);
    sum += set.empty() ? 0 : holding_all;
  }
  return sum;
}

std::string WriteFinders(const SearchQuery& query, const SearchPlan& plan,
                         const std::function<void(const SearchPhrase&, std::string&)>& phrase,
                         std::string_view all_of, std::string_view any_of) {
  std::string finders;
  for (std::size_t i = 0; i < query.phrases.size() && i < plan.finds.size(); ++i) {
    if (!plan.finds[i]) continue;
    if (!finders.empty()) finders += plan.all_required ? all_of : any_of;
    phrase(query.phrases[i], finders);
  }
  for (const std::vector<std::size_t>& set : plan.together) {
    if (!finders.empty()) finders += any_of;
    finders += '(';
    for (std::size_t k = 0; k < set.size(); ++k) {
      if (k > 0) finders += all_of;
      phrase(query.phrases[set[k]], finders);
    }
    finders += ')';
  }
  return finders.empty() ? finders : "(" + finders + ")";
}

}  // namespace docgate
