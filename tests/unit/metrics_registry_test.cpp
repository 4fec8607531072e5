#include "adapters/prometheus/metrics_registry.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace docgate {
namespace {

TEST(MetricsRegistryTest, ACounterIsExposedWithHelpTypeAndItsValue) {
  MetricsRegistry registry;
  Counter& counter = registry.AddCounter("docgate_things_total", "Things done.");
  counter.Increment();
  counter.Increment(2);
  EXPECT_EQ(registry.Expose(),
            "# HELP docgate_things_total Things done.\n"
            "# TYPE docgate_things_total counter\n"
            "docgate_things_total 3\n");
}

TEST(MetricsRegistryTest, LabelledSeriesAreOrderedByLabelValuesAndEscaped) {
  MetricsRegistry registry;
  auto& family = registry.AddCounterFamily("docgate_requests_total", "Requests.",
                                           {"route", "status"});
  family.WithLabels({"/b", "200"}).Increment(2);
  family.WithLabels({"/a", "404"}).Increment();
  family.WithLabels({"/a", "200"}).Increment(5);
  family.WithLabels({"back\\slash \"quoted\"\nnewline", "500"}).Increment();
  EXPECT_EQ(&family.WithLabels({"/a", "200"}), &family.WithLabels({"/a", "200"}));
  EXPECT_EQ(registry.Expose(),
            "# HELP docgate_requests_total Requests.\n"
            "# TYPE docgate_requests_total counter\n"
            "docgate_requests_total{route=\"/a\",status=\"200\"} 5\n"
            "docgate_requests_total{route=\"/a\",status=\"404\"} 1\n"
            "docgate_requests_total{route=\"/b\",status=\"200\"} 2\n"
            "docgate_requests_total{route=\"back\\\\slash \\\"quoted\\\"\\nnewline\",status=\"500\"} 1\n");
}

TEST(MetricsRegistryTest, HelpEscapesBackslashAndNewlineButNotQuotes) {
  MetricsRegistry registry;
  registry.AddCounter("docgate_x_total", "a \"b\" c\\d\ne");
  EXPECT_EQ(registry.Expose(),
            "# HELP docgate_x_total a \"b\" c\\\\d\\ne\n"
            "# TYPE docgate_x_total counter\n"
            "docgate_x_total 0\n");
}

TEST(MetricsRegistryTest, HistogramBucketsAreCumulativeWithInclusiveBoundsSumAndCount) {
  MetricsRegistry registry;
  auto& family = registry.AddHistogramFamily("docgate_latency_seconds", "Latency.", {"route"},
                                             {0.125, 0.5, 1});
  Histogram& histogram = family.WithLabels({"/a"});
  for (const double value : {0.0625, 0.125, 0.25, 2.0}) histogram.Observe(value);
  EXPECT_EQ(registry.Expose(),
            "# HELP docgate_latency_seconds Latency.\n"
            "# TYPE docgate_latency_seconds histogram\n"
            "docgate_latency_seconds_bucket{route=\"/a\",le=\"0.125\"} 2\n"
            "docgate_latency_seconds_bucket{route=\"/a\",le=\"0.5\"} 3\n"
            "docgate_latency_seconds_bucket{route=\"/a\",le=\"1\"} 3\n"
            "docgate_latency_seconds_bucket{route=\"/a\",le=\"+Inf\"} 4\n"
            "docgate_latency_seconds_sum{route=\"/a\"} 2.4375\n"
            "docgate_latency_seconds_count{route=\"/a\"} 4\n");
}

TEST(MetricsRegistryTest, AHistogramWithoutLabelsHasOnlyTheLeLabel) {
  MetricsRegistry registry;
  Histogram& histogram = registry.AddHistogram("docgate_wait_seconds", "Wait.", {0.25});
  histogram.Observe(0.25);
  EXPECT_EQ(registry.Expose(),
            "# HELP docgate_wait_seconds Wait.\n"
            "# TYPE docgate_wait_seconds histogram\n"
            "docgate_wait_seconds_bucket{le=\"0.25\"} 1\n"
            "docgate_wait_seconds_bucket{le=\"+Inf\"} 1\n"
            "docgate_wait_seconds_sum 0.25\n"
            "docgate_wait_seconds_count 1\n");
}

TEST(MetricsRegistryTest, MetricsAreOrderedByNameWhateverTheRegistrationOrder) {
  MetricsRegistry registry;
  registry.AddGaugeCallback("docgate_c", "C.", [] { return std::optional<double>(1.5); });
  registry.AddCounterCallback("docgate_a_total", "A.", [] { return std::uint64_t{7}; });
  registry.AddCounterFamily("docgate_b_total", "B.", {"x"});
  EXPECT_EQ(registry.Expose(),
            "# HELP docgate_a_total A.\n"
            "# TYPE docgate_a_total counter\n"
            "docgate_a_total 7\n"
            "# HELP docgate_b_total B.\n"
            "# TYPE docgate_b_total counter\n"
            "# HELP docgate_c C.\n"
            "# TYPE docgate_c gauge\n"
            "docgate_c 1.5\n");
}

TEST(MetricsRegistryTest, LatencyBucketBoundsAreWrittenPositionally) {
  MetricsRegistry registry;
  registry.AddHistogram("docgate_x_seconds", "X.", LatencyBuckets());
  const std::string text = registry.Expose();
  EXPECT_NE(text.find("docgate_x_seconds_bucket{le=\"0.0001\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("docgate_x_seconds_bucket{le=\"0.0005\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("docgate_x_seconds_bucket{le=\"10\"} 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("e-"), std::string::npos) << text;
}

TEST(MetricsRegistryTest, AGaugeWithoutAValueKeepsHelpAndTypeOnly) {
  MetricsRegistry registry;
  registry.AddGaugeCallback("docgate_backlog", "Backlog.", [] { return std::optional<double>(); });
  EXPECT_EQ(registry.Expose(),
            "# HELP docgate_backlog Backlog.\n"
            "# TYPE docgate_backlog gauge\n");
}

TEST(MetricsRegistryTest, ScrapeHooksRunBeforeTheCallbacksOfEveryScrape) {
  MetricsRegistry registry;
  int scrapes = 0;
  std::optional<double> shared;
  registry.OnScrape([&] { shared = ++scrapes * 10; });
  registry.AddGaugeCallback("docgate_g", "G.", [&] { return shared; });
  EXPECT_NE(registry.Expose().find("docgate_g 10\n"), std::string::npos);
  EXPECT_NE(registry.Expose().find("docgate_g 20\n"), std::string::npos);
}

TEST(MetricsRegistryTest, NonIntegralAndSpecialValuesUseTheTextFormatsSpelling) {
  MetricsRegistry registry;
  double value = 0.1;
  registry.AddGaugeCallback("docgate_g", "G.", [&] { return std::optional<double>(value); });
  EXPECT_NE(registry.Expose().find("docgate_g 0.1\n"), std::string::npos);
  value = std::numeric_limits<double>::infinity();
  EXPECT_NE(registry.Expose().find("docgate_g +Inf\n"), std::string::npos);
  value = 0.0001;
  EXPECT_NE(registry.Expose().find("docgate_g 0.0001\n"), std::string::npos);
  value = 0.00001;
  EXPECT_NE(registry.Expose().find("docgate_g 1e-05\n"), std::string::npos);
  value = 1234567.5;
  EXPECT_NE(registry.Expose().find("docgate_g 1234567.5\n"), std::string::npos);
  value = 1e21;
  EXPECT_NE(registry.Expose().find("docgate_g 1e+21\n"), std::string::npos);
  value = -2;
  EXPECT_NE(registry.Expose().find("docgate_g -2\n"), std::string::npos);
}

TEST(MetricsRegistryTest, NamesAndLabelsOutsidePrometheusRulesAreRefused) {
  MetricsRegistry registry;
  EXPECT_THROW(registry.AddCounter("docgate_no_suffix", "x"), std::invalid_argument);
  EXPECT_THROW(registry.AddCounter("9starts_with_digit_total", "x"), std::invalid_argument);
  EXPECT_THROW(registry.AddCounter("has-dash_total", "x"), std::invalid_argument);
  EXPECT_THROW(registry.AddCounterFamily("docgate_a_total", "x", {"le"}), std::invalid_argument);
  EXPECT_THROW(registry.AddCounterFamily("docgate_b_total", "x", {"__reserved"}),
               std::invalid_argument);
  EXPECT_THROW(registry.AddCounterFamily("docgate_c_total", "x", {"a", "a"}),
               std::invalid_argument);
  EXPECT_THROW(registry.AddHistogram("docgate_h_seconds", "x", {1, 0.5}), std::invalid_argument);
  registry.AddCounter("docgate_once_total", "x");
  EXPECT_THROW(registry.AddCounter("docgate_once_total", "x"), std::invalid_argument);
  auto& family = registry.AddCounterFamily("docgate_d_total", "x", {"a", "b"});
  EXPECT_THROW(family.WithLabels({"only one"}), std::invalid_argument);
}

TEST(MetricsRegistryTest, ConcurrentIncrementsAndObservationsAreAllCounted) {
  MetricsRegistry registry;
  auto& family = registry.AddCounterFamily("docgate_n_total", "N.", {"worker"});
  Histogram& histogram = registry.AddHistogram("docgate_h_seconds", "H.", {0.5});
  constexpr int kThreads = 8;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        family.WithLabels({t % 2 == 0 ? "even" : "odd"}).Increment();
        histogram.Observe(i % 2 == 0 ? 0.25 : 1.0);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(family.WithLabels({"even"}).value(), std::uint64_t{kThreads / 2 * kPerThread});
  EXPECT_EQ(family.WithLabels({"odd"}).value(), std::uint64_t{kThreads / 2 * kPerThread});
  const auto snapshot = histogram.Read();
  EXPECT_EQ(snapshot.count, std::uint64_t{kThreads * kPerThread});
  EXPECT_EQ(snapshot.cumulative[0], std::uint64_t{kThreads * kPerThread / 2});
  EXPECT_DOUBLE_EQ(snapshot.sum, kThreads * (kPerThread / 2) * 1.25);
}

}  // namespace
}  // namespace docgate
