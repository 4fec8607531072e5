#pragma once

// A small Prometheus registry and its text exposition format (version 0.0.4): counters, gauges and
// counters read at scrape time, histograms with fixed buckets, each with or without labels. Why it
// is written here and which subset of the format it produces: docs/adr/0003-prometheus-text-by-hand.md.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

// A count that only goes up. Increment is one relaxed atomic add: no lock, no allocation.
class Counter {
 public:
  void Increment(std::uint64_t by = 1) noexcept { value_.fetch_add(by, std::memory_order_relaxed); }
  std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// Observations (e.g. durations in seconds) counted into fixed buckets, with their sum.
// Observe is lock-free: one relaxed atomic add on the bucket and one on the sum.
class Histogram {
 public:
  // `bounds`: the buckets' finite upper bounds, strictly ascending; +Inf is implied. Throws
  // std::invalid_argument otherwise.
  explicit Histogram(std::span<const double> bounds);

  // Counts `value` in the first bucket whose bound is >= value (le is inclusive), else in +Inf.
  void Observe(double value) noexcept;

  struct Snapshot {
    std::vector<std::uint64_t> cumulative;  // one per bound, then +Inf; cumulative.back() == count
    double sum = 0;
    std::uint64_t count = 0;
  };
  // Read while others observe: count always equals the +Inf bucket; the sum may miss an
  // observation that is being added at that instant.
  Snapshot Read() const;

  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // per bucket (not cumulative), +Inf last
  std::atomic<double> sum_{0};
};

// The series of one metric, one per combination of label values. Thread-safe.
template <typename Metric>
class MetricFamily {
 public:
  using Factory = std::function<std::unique_ptr<Metric>()>;
  MetricFamily(std::vector<std::string> label_names, Factory make)
      : label_names_(std::move(label_names)), make_(std::move(make)) {}
  MetricFamily(const MetricFamily&) = delete;
  MetricFamily& operator=(const MetricFamily&) = delete;

  // The series with these label values (in the order of the label names), created at first use.
  // The look-up takes a shared lock (an exclusive one only to create); the reference stays valid
  // as long as the family, so hot paths with fixed labels keep it and pay only the atomic add.
  // Values should be UTF-8 and of bounded variety (never a raw path or a user id). Throws
  // std::invalid_argument when the number of values is not the number of label names.
  Metric& WithLabels(std::initializer_list<std::string_view> values) {
    if (values.size() != label_names_.size()) ThrowLabelCount(values.size());
    {
      std::shared_lock lock(mutex_);
      if (const auto it = series_.find(values); it != series_.end()) return *it->second;
    }
    std::unique_lock lock(mutex_);
    auto [it, inserted] = series_.try_emplace(std::vector<std::string>(values.begin(), values.end()));
    if (inserted) it->second = make_();
    return *it->second;
  }

  const std::vector<std::string>& label_names() const { return label_names_; }

  // Calls fn(label values, metric) for every series, in ascending order of the label values.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    std::shared_lock lock(mutex_);
    for (const auto& [values, metric] : series_) fn(values, *metric);
  }

 private:
  struct ValuesLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::lexicographical_compare(
          a.begin(), a.end(), b.begin(), b.end(),
          [](std::string_view x, std::string_view y) { return x < y; });
    }
  };
  [[noreturn]] void ThrowLabelCount(std::size_t given) const;

  const std::vector<std::string> label_names_;
  const Factory make_;
  mutable std::shared_mutex mutex_;
  std::map<std::vector<std::string>, std::unique_ptr<Metric>, ValuesLess> series_;
};

extern template class MetricFamily<Counter>;
extern template class MetricFamily<Histogram>;
using CounterFamily = MetricFamily<Counter>;
using HistogramFamily = MetricFamily<Histogram>;

// The registry: what /metrics exposes. Metrics are registered once (any time, from any thread) and
// live as long as the registry; references returned by Add* stay valid that long.
//
// Names follow Prometheus' rules and conventions, checked at registration (std::invalid_argument,
// as for a name registered twice): [a-zA-Z_:][a-zA-Z0-9_:]*, counters end in `_total`, label names
// are [a-zA-Z_][a-zA-Z0-9_]*, not starting with `__`, and `le` is reserved for histogram buckets.
//
// Expose() writes every metric in ascending order of name, and every series of a metric in
// ascending order of its label values, so two scrapes of the same state are byte-identical:
//   # HELP <name> <help, with \ and newline escaped>
//   # TYPE <name> counter|gauge|histogram
//   <name>{<label>="<value, with \ " and newline escaped>",...} <value>
// A histogram series is its cumulative `_bucket{...,le="<bound>"}` lines up to le="+Inf", then
// `_sum` and `_count`. A labelled metric with no series yet has its HELP and TYPE only.
class MetricsRegistry {
 public:
  // The Content-Type of Expose()'s text.
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  Counter& AddCounter(std::string name, std::string help);
  CounterFamily& AddCounterFamily(std::string name, std::string help,
                                  std::vector<std::string> label_names);
  Histogram& AddHistogram(std::string name, std::string help, std::vector<double> bounds);
  HistogramFamily& AddHistogramFamily(std::string name, std::string help,
                                      std::vector<std::string> label_names,
                                      std::vector<double> bounds);
  // A counter some component keeps itself (an atomic it already maintains), read at every scrape.
  void AddCounterCallback(std::string name, std::string help, std::function<std::uint64_t()> read);
  // A gauge read at every scrape; nullopt leaves its sample out of that scrape (value unknown
  // now, e.g. its database is down), keeping HELP and TYPE.
  void AddGaugeCallback(std::string name, std::string help,
                        std::function<std::optional<double>()> read);
  // Runs at the start of every Expose, before any callback: for one reading that several gauges
  // share (one query for two values).
  void OnScrape(std::function<void()> hook);

  // The text exposition. Scrapes are serialised (hooks and callbacks never run concurrently with
  // each other); increments are not blocked by a scrape. Hooks and callbacks must not throw;
  // they run on the caller's thread and the callers of Expose wait for them.
  std::string Expose();

 private:
  struct Entry;
  void Register(std::unique_ptr<Entry> entry);

  std::mutex mutex_;  // registration and scrapes
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_;
  std::vector<std::function<void()>> hooks_;
};

// The bounds of docgate's `_duration_seconds` histograms: 100 us to 10 s in 1-2.5-5 steps.
std::vector<double> LatencyBuckets();

}  // namespace docgate
