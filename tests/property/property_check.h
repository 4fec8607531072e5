#pragma once

// How the property tests run RapidCheck under Google Test: one seed policy for the whole suite.
//
// RapidCheck picks a random seed unless RC_PARAMS names one, so two CI runs would test different
// cases. Here every property runs with kDefaultPropertySeed and its own number of cases unless
// RC_PARAMS sets `seed`, `max_success` or `max_size`; the seed, the number of cases and the largest
// size are printed before the run, and a failure repeats them with the command line that reproduces
// it:
//
//   RC_PARAMS="seed=N" build/tests/docgate_property_tests --gtest_filter='Suite.Name'
//
// (the same seed, case count and size replay the same cases in the same order). RapidCheck's own
// listener also prints, at exit, RC_PARAMS="reproduce=..." that replays only the shrunk failing
// case. Other keys of RC_PARAMS (noshrink, verbose_progress, ...) work as RapidCheck documents.
//
// RC_GTEST_PROP would take the seed and the case count from RC_PARAMS alone; this goes through
// rc::detail::checkTestable (what RC_GTEST_PROP itself calls) with explicit TestParams instead.

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace docgate {

inline constexpr std::uint64_t kDefaultPropertySeed = 20261213;

// How much one property tests by default: `cases` runs, the command sequences growing to about
// `max_size` commands. `shrink`: whether a failing case is shrunk to a minimal one. Shrinking
// replays the sequence hundreds of times; on SQLite, where each replay opens a fresh database, that
// takes many minutes, so those properties report the failing case as found (RC_PARAMS="noshrink=0"
// shrinks it anyway).
struct PropertyBudget {
  int cases = 100;
  int max_size = 50;
  bool shrink = true;
};

// Under AddressSanitizer or ThreadSanitizer (a Debug build, every access checked) a case costs
// tens of times more; those builds run a fifth of the cases, with the same seed.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr int kSanitizerSlowdown = 5;
#else
inline constexpr int kSanitizerSlowdown = 1;
#endif

// Whether RC_PARAMS sets `key` (its keys are `key=value` words).
inline bool RcParamsSets(std::string_view key) {
  const char* params = std::getenv("RC_PARAMS");
  if (params == nullptr) return false;
  std::istringstream words{std::string(params)};
  std::string word;
  while (words >> word) {
    if (word.size() > key.size() && word.starts_with(key) && word[key.size()] == '=') return true;
  }
  return false;
}

// Checks `testable` (a callable using RC_ASSERT and friends, like rc::check's) as the current
// Google Test, with the seed policy above; a failure is a gtest failure carrying RapidCheck's
// counterexample and the reproduction command.
template <typename Testable>
void CheckProperty(PropertyBudget budget, Testable&& testable) {
  const rc::detail::Configuration& config = rc::detail::configuration();  // reads RC_PARAMS
  rc::detail::TestParams params = config.testParams;
  if (!RcParamsSets("seed")) params.seed = kDefaultPropertySeed;
  if (!RcParamsSets("max_success")) params.maxSuccess = budget.cases / kSanitizerSlowdown;
  if (!RcParamsSets("max_size")) params.maxSize = budget.max_size;
  if (!RcParamsSets("noshrink")) params.disableShrinking = !budget.shrink;

  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(info->test_suite_name()) + "." + info->name();
  std::cout << "[ property ] " << name << ": seed=" << params.seed
            << " max_success=" << params.maxSuccess << " max_size=" << params.maxSize
            << (params.disableShrinking ? " noshrink=1" : "") << std::endl;

  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  const auto result = rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
  if (result.template is<rc::detail::SuccessResult>()) {
    rc::detail::printResultMessage(result, std::cout);  // with the RC_TAG / RC_CLASSIFY counts
    std::cout << std::endl;
    return;
  }
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  FAIL() << message.str() << "\n\nReproduce with:\n  RC_PARAMS=\"seed=" << params.seed
         << " max_success=" << params.maxSuccess << " max_size=" << params.maxSize
         << "\" docgate_property_tests --gtest_filter='" << name << "'"
         << (params.disableShrinking
                 ? "\n(not shrunk; add noshrink=0 to shrink it, which takes minutes)"
                 : "");
}

}  // namespace docgate
