#include "adapters/prometheus/metrics_registry.h"

#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

namespace docgate {
namespace {

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsMetricName(std::string_view name) {
  if (name.empty() || !(IsNameStart(name[0]) || name[0] == ':')) return false;
  for (const char c : name) {
    if (!IsNameStart(c) && !IsDigit(c) && c != ':') return false;
  }
  return true;
}

bool IsLabelName(std::string_view name) {
  if (name.empty() || !IsNameStart(name[0]) || name.substr(0, 2) == "__") return false;
  for (const char c : name) {
    if (!IsNameStart(c) && !IsDigit(c)) return false;
  }
  return true;
}

void CheckName(const std::string& name) {
  if (!IsMetricName(name)) throw std::invalid_argument("invalid metric name '" + name + "'");
}

void CheckCounterName(const std::string& name) {
  CheckName(name);
  constexpr std::string_view kSuffix = "_total";
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) {
    throw std::invalid_argument("counter name '" + name + "' must end in _total");
  }
}

void CheckLabelNames(const std::string& metric, const std::vector<std::string>& names) {
  std::set<std::string_view> seen;
  for (const auto& name : names) {
    if (!IsLabelName(name) || name == "le") {
      throw std::invalid_argument("invalid label name '" + name + "' for " + metric);
    }
    if (!seen.insert(name).second) {
      throw std::invalid_argument("label '" + name + "' given twice for " + metric);
    }
  }
}

void AppendEscaped(std::string& out, std::string_view text, bool quote) {
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

void AppendNumber(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    // Shortest round-trip digits, positional between 1e-4 and 1e21 ("0.0001", not "1e-04"), as
    // Prometheus' own clients write them, so that `le` values read the same as theirs.
    const double magnitude = std::fabs(value);
    const auto format = magnitude == 0 || (magnitude >= 1e-4 && magnitude < 1e21)
                            ? std::chars_format::fixed
                            : std::chars_format::scientific;
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, format);
    out.append(buffer, result.ptr);
  }
}

void AppendNumber(std::string& out, std::uint64_t value) { out += std::to_string(value); }

// {a="x",b="y"} (nothing without labels); `le`, when given, is appended as the last label.
void AppendLabels(std::string& out, const std::vector<std::string>& names,
                  const std::vector<std::string>& values, std::string_view le = {}) {
  if (names.empty() && le.empty()) return;
  out += '{';
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i];
    out += "=\"";
    AppendEscaped(out, values[i], /*quote=*/true);
    out += '"';
  }
  if (!le.empty()) {
    if (!names.empty()) out += ',';
    out += "le=\"";
    out += le;
    out += '"';
  }
  out += '}';
}

template <typename Value>
void AppendSample(std::string& out, std::string_view name, std::string_view suffix,
                  const std::vector<std::string>& label_names,
                  const std::vector<std::string>& values, Value value, std::string_view le = {}) {
  out += name;
  out += suffix;
  AppendLabels(out, label_names, values, le);
  out += ' ';
  AppendNumber(out, value);
  out += '\n';
}

void AppendHistogram(std::string& out, std::string_view name,
                     const std::vector<std::string>& label_names,
                     const std::vector<std::string>& values, const Histogram& histogram) {
  const Histogram::Snapshot snapshot = histogram.Read();
  const auto& bounds = histogram.bounds();
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    std::string le;
    AppendNumber(le, bounds[i]);
    AppendSample(out, name, "_bucket", label_names, values, snapshot.cumulative[i], le);
  }
  AppendSample(out, name, "_bucket", label_names, values, snapshot.count, "+Inf");
  AppendSample(out, name, "_sum", label_names, values, snapshot.sum);
  AppendSample(out, name, "_count", label_names, values, snapshot.count);
}

}  // namespace

template <typename Metric>
void MetricFamily<Metric>::ThrowLabelCount(std::size_t given) const {
  throw std::invalid_argument("expected " + std::to_string(label_names_.size()) +
                              " label value(s), got " + std::to_string(given));
}

template class MetricFamily<Counter>;
template class MetricFamily<Histogram>;

Histogram::Histogram(std::span<const double> bounds)
    : bounds_(bounds.begin(), bounds.end()),
      counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds.size() + 1)) {
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1])) {
      throw std::invalid_argument("histogram bounds must be finite and strictly ascending");
    }
  }
}

void Histogram::Observe(double value) noexcept {
  if (std::isnan(value)) return;
  const auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  counts_[static_cast<std::size_t>(bucket)].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot snapshot;
  snapshot.cumulative.reserve(bounds_.size() + 1);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    snapshot.cumulative.push_back(running);
  }
  snapshot.count = running;
  snapshot.sum = sum_.load(std::memory_order_relaxed);
  return snapshot;
}

struct MetricsRegistry::Entry {
  Entry(std::string n, std::string h, std::string_view t)
      : name(std::move(n)), help(std::move(h)), type(t) {}

  std::string name;
  std::string help;
  std::string_view type;  // counter | gauge | histogram
  // Exactly one of these is set.
  std::unique_ptr<CounterFamily> counters;
  std::unique_ptr<HistogramFamily> histograms;
  std::function<std::uint64_t()> read_counter;
  std::function<std::optional<double>()> read_gauge;
};

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

void MetricsRegistry::Register(std::unique_ptr<Entry> entry) {
  std::lock_guard lock(mutex_);
  const std::string name = entry->name;
  if (!entries_.try_emplace(name, std::move(entry)).second) {
    throw std::invalid_argument("metric '" + name + "' registered twice");
  }
}

Counter& MetricsRegistry::AddCounter(std::string name, std::string help) {
  return AddCounterFamily(std::move(name), std::move(help), {}).WithLabels({});
}

CounterFamily& MetricsRegistry::AddCounterFamily(std::string name, std::string help,
                                                 std::vector<std::string> label_names) {
  CheckCounterName(name);
  CheckLabelNames(name, label_names);
  auto entry = std::make_unique<Entry>(std::move(name), std::move(help), "counter");
  entry->counters = std::make_unique<CounterFamily>(std::move(label_names),
                                                    [] { return std::make_unique<Counter>(); });
  CounterFamily& family = *entry->counters;
  Register(std::move(entry));
  return family;
}

Histogram& MetricsRegistry::AddHistogram(std::string name, std::string help,
                                         std::vector<double> bounds) {
  return AddHistogramFamily(std::move(name), std::move(help), {}, std::move(bounds)).WithLabels({});
}

HistogramFamily& MetricsRegistry::AddHistogramFamily(std::string name, std::string help,
                                                     std::vector<std::string> label_names,
                                                     std::vector<double> bounds) {
  CheckName(name);
  CheckLabelNames(name, label_names);
  Histogram check(bounds);  // throws for bad bounds now rather than at the first series
  auto entry = std::make_unique<Entry>(std::move(name), std::move(help), "histogram");
  entry->histograms = std::make_unique<HistogramFamily>(
      std::move(label_names),
      [bounds = std::move(bounds)] { return std::make_unique<Histogram>(bounds); });
  HistogramFamily& family = *entry->histograms;
  Register(std::move(entry));
  return family;
}

void MetricsRegistry::AddCounterCallback(std::string name, std::string help,
                                         std::function<std::uint64_t()> read) {
  CheckCounterName(name);
  auto entry = std::make_unique<Entry>(std::move(name), std::move(help), "counter");
  entry->read_counter = std::move(read);
  Register(std::move(entry));
}

void MetricsRegistry::AddGaugeCallback(std::string name, std::string help,
                                       std::function<std::optional<double>()> read) {
  CheckName(name);
  auto entry = std::make_unique<Entry>(std::move(name), std::move(help), "gauge");
  entry->read_gauge = std::move(read);
  Register(std::move(entry));
}

void MetricsRegistry::OnScrape(std::function<void()> hook) {
  std::lock_guard lock(mutex_);
  hooks_.push_back(std::move(hook));
}

std::string MetricsRegistry::Expose() {
  std::lock_guard lock(mutex_);
  for (const auto& hook : hooks_) hook();
  const std::vector<std::string> no_labels;
  std::string out;
  for (const auto& [name, entry] : entries_) {
    out += "# HELP ";
    out += name;
    out += ' ';
    AppendEscaped(out, entry->help, /*quote=*/false);
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += entry->type;
    out += '\n';
    if (entry->counters) {
      const auto& labels = entry->counters->label_names();
      entry->counters->ForEach([&](const std::vector<std::string>& values, const Counter& c) {
        AppendSample(out, name, "", labels, values, c.value());
      });
    } else if (entry->histograms) {
      const auto& labels = entry->histograms->label_names();
      entry->histograms->ForEach([&](const std::vector<std::string>& values, const Histogram& h) {
        AppendHistogram(out, name, labels, values, h);
      });
    } else if (entry->read_counter) {
      AppendSample(out, name, "", no_labels, no_labels, entry->read_counter());
    } else if (const auto value = entry->read_gauge()) {
      AppendSample(out, name, "", no_labels, no_labels, *value);
    }
  }
  return out;
}

std::vector<double> LatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,     10};
}

}  // namespace docgate
