#include "adapters/openai/openai_embedder.h"

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <random>

#include "adapters/web/http_connection.h"
#include "core/redact.h"
#include "core/utf8.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;
using json = nlohmann::json;
using std::chrono::milliseconds;

constexpr std::size_t kMaxQuotedBytes = 300;

// The seconds of a `Retry-After: <delta-seconds>`; nullopt for none or an HTTP date (then the
// backoff decides).
std::optional<milliseconds> ParseRetryAfter(std::string_view value) {
  unsigned long seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || error != std::errc() || end != value.data() + value.size()) {
    return std::nullopt;
  }
  return milliseconds(std::min<unsigned long>(seconds, 86400) * 1000);
}

// The provider's own words about a refused request, short and printable, without the API key:
// the key, whole or in pieces (a provider may echo what it was sent), is redacted before the
// message is cut, so that no part of it can survive at the cut.
std::string ProviderMessage(const std::string& body, const std::string& api_key,
                            const SecretPieces& key_pieces) {
  std::string message;
  const json parsed = json::parse(body, nullptr, false);
  if (parsed.is_object() && parsed.contains("error")) {
    const json& error = parsed["error"];
    if (error.is_string()) message = error.get<std::string>();
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      message = error["message"].get<std::string>();
    }
  } else if (parsed.is_object() && parsed.contains("detail") && parsed["detail"].is_string()) {
    message = parsed["detail"].get<std::string>();
  }
  if (message.empty()) message = body;
  message = key_pieces.Redact(RedactAll(message, {api_key}));
  if (message.size() > kMaxQuotedBytes) message = message.substr(0, kMaxQuotedBytes) + "...";
  return EscapeForLog(message);
}

// Reads `count` vectors of `dimensions` finite, non-zero numbers from an embeddings answer into
// `vectors` (normalised, by their `index`), and `usage` into `tokens`; returns why the answer is
// not that, or "" when it is.
std::string ReadVectors(const std::string& body, std::size_t count, int dimensions,
                        std::vector<std::vector<float>>& vectors, std::int64_t& tokens) {
  const json parsed = json::parse(body, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("data") || !parsed["data"].is_array()) {
    return "no `data` list (not the OpenAI embeddings API?)";
  }
  const json& data = parsed["data"];
  if (data.size() != count) {
    return std::to_string(data.size()) + " vectors for " + std::to_string(count) + " inputs";
  }
  vectors.assign(count, {});
  const auto size = static_cast<std::size_t>(dimensions);
  for (const json& item : data) {
    if (!item.is_object() || !item.contains("index") || !item["index"].is_number_unsigned() ||
        !item.contains("embedding") || !item["embedding"].is_array()) {
      return "an item that is not {\"index\", \"embedding\": [numbers]}";
    }
    const auto index = item["index"].get<std::uint64_t>();
    if (index >= count || !vectors[index].empty()) {
      return "the index " + std::to_string(index) + " out of range or twice";
    }
    const json& embedding = item["embedding"];
    if (embedding.size() != size) {
      return std::to_string(embedding.size()) +
             " dimensions where DOCGATE_EMBEDDINGS_DIMENSIONS is " + std::to_string(size);
    }
    std::vector<float>& vector = vectors[index];
    vector.reserve(size);
    double norm = 0;
    for (const json& number : embedding) {
      if (!number.is_number()) return "a vector holding something other than numbers";
      const double value = number.get<double>();
      if (!std::isfinite(value) || !std::isfinite(static_cast<float>(value))) {
        return "a vector holding NaN or infinity";
      }
      norm += value * value;
      vector.push_back(static_cast<float>(value));
    }
    norm = std::sqrt(norm);
    if (!(norm > 1e-12) || !std::isfinite(norm)) return "a vector of zeros";
    for (float& value : vector) value = static_cast<float>(value / norm);
  }
  if (parsed.contains("usage") && parsed["usage"].is_object()) {
    const json& usage = parsed["usage"];
    for (const char* field : {"total_tokens", "prompt_tokens"}) {
      if (usage.contains(field) && usage[field].is_number_integer()) {
        tokens = usage[field].get<std::int64_t>();
        break;
      }
    }
  }
  return "";
}

}  // namespace

// What one request came back with.
struct OpenAiEmbedder::Answer {
  enum class Kind {
    kVectors,  // `vectors` and `tokens` hold the answer
    kRefused,  // 400, 413, 422: these inputs are refused as they are
    kFailed,   // worth another attempt (after `retry_after` when the server said)
    kFatal,    // another attempt would fail the same way (401, 403, 404, ...)
  };
  Kind kind = Kind::kFailed;
  std::vector<std::vector<float>> vectors;
  std::int64_t tokens = 0;
  std::string error;
  std::optional<milliseconds> retry_after;
};

OpenAiEmbedder::OpenAiEmbedder(EmbeddingsConfig config, Wait wait)
    : config_(std::move(config)),
      url_(ParseEmbeddingsUrl(config_.url)),
      key_pieces_({config_.api_key}),
      wait_(std::move(wait)),
      tls_(url_.tls ? MakeVerifyingTlsContext(config_.ca_file) : nullptr),
      breaker_(config_.breaker_initial, config_.breaker_max) {}

OpenAiEmbedder::~OpenAiEmbedder() = default;

void OpenAiEmbedder::Shutdown() {
  {
    std::lock_guard lock(mutex_);
    shut_down_ = true;
  }
  changed_.notify_all();
}

EmbeddedBatch OpenAiEmbedder::Embed(const std::vector<std::string>& inputs) {
  EmbeddedBatch out;
  if (inputs.empty()) return out;
  if (!breaker_.Allow(CircuitBreaker::Clock::now())) {
    ++counters_.unavailable;
    throw EmbeddingsUnavailable(
        "the embeddings provider failed recently; calls resume once a probe succeeds",
        config_.breaker_initial);
  }
  out.vectors.resize(inputs.size());
  out.rejections.resize(inputs.size());
  try {
    const auto batch = static_cast<std::size_t>(config_.batch);
    for (std::size_t begin = 0; begin < inputs.size(); begin += batch) {
      EmbedRange(inputs, begin, std::min(inputs.size(), begin + batch), out);
    }
  } catch (const EmbeddingsUnavailable&) {
    breaker_.Failed(CircuitBreaker::Clock::now());
    ++counters_.unavailable;
    throw;
  }
  breaker_.Succeeded();
  return out;
}

void OpenAiEmbedder::EmbedRange(const std::vector<std::string>& inputs, std::size_t begin,
                                std::size_t end, EmbeddedBatch& out) {
  const HttpRequest request = MakeRequest(inputs, begin, end);
  for (int attempt = 1;; ++attempt) {
    Answer answer = Send(request, end - begin);
    switch (answer.kind) {
      case Answer::Kind::kVectors:
        for (std::size_t i = begin; i < end; ++i)
          out.vectors[i] = std::move(answer.vectors[i - begin]);
        out.tokens += answer.tokens;
        counters_.inputs += end - begin;
        counters_.tokens += static_cast<std::uint64_t>(std::max<std::int64_t>(answer.tokens, 0));
        return;
      case Answer::Kind::kRefused:
        if (end - begin == 1) {
          out.rejections[begin] = std::move(answer.error);
          ++counters_.rejected_inputs;
          return;
        }
        // One refused input refuses its whole request: halves find it without refusing the rest.
        EmbedRange(inputs, begin, begin + (end - begin) / 2, out);
        EmbedRange(inputs, begin + (end - begin) / 2, end, out);
        return;
      case Answer::Kind::kFatal:
        throw EmbeddingsUnavailable(answer.error, config_.breaker_initial);
      case Answer::Kind::kFailed:
        break;
    }
    // A server asking for more patience than retry_max is not retried now: the caller comes back
    // when it said.
    if (attempt >= config_.max_attempts ||
        (answer.retry_after && *answer.retry_after > config_.retry_max)) {
      throw EmbeddingsUnavailable(answer.error + " (attempt " + std::to_string(attempt) + " of " +
                                      std::to_string(config_.max_attempts) + ")",
                                  answer.retry_after.value_or(Backoff(attempt)));
    }
    SleepUnlessShutDown(answer.retry_after.value_or(Backoff(attempt)));
  }
}

HttpRequest OpenAiEmbedder::MakeRequest(const std::vector<std::string>& inputs, std::size_t begin,
                                        std::size_t end) const {
  json body = {{"model", config_.model}, {"input", json::array()}};
  for (std::size_t i = begin; i < end; ++i) body["input"].push_back(inputs[i]);
  HttpRequest request{http::verb::post, EmbeddingsTarget(url_), 11};
  request.set(http::field::host, url_.HostHeader());
  request.set(http::field::content_type, "application/json");
  request.set(http::field::accept, "application/json");
  request.set(http::field::user_agent, "docgate");
  if (!config_.api_key.empty())
    request.set(http::field::authorization, "Bearer " + config_.api_key);
  request.body() = body.dump(-1, ' ', false, json::error_handler_t::replace);
  request.prepare_payload();
  return request;
}

OpenAiEmbedder::Answer OpenAiEmbedder::Send(const HttpRequest& request, std::size_t count) {
  Answer answer;
  ++counters_.requests;
  // Room for every number of the answer written out in full, and a margin for the rest.
  const std::size_t body_limit =
      count * static_cast<std::size_t>(config_.dimensions) * 32 + (1 << 20);
  HttpResponse response;
  std::unique_ptr<HttpConnection> connection = TakeConnection();
  try {
    response = connection->Exchange(request, config_.request_timeout, body_limit);
  } catch (const HttpTransportError& e) {
    ReturnConnection(nullptr);
    ++counters_.failed_requests;
    answer.error = e.what();
    return answer;
  }
  ReturnConnection(std::move(connection));
  const unsigned status = response.result_int();
  const std::string said = "the embeddings server answered " + std::to_string(status);
  if (status != 200) {
    ++counters_.failed_requests;
    answer.error = said + ": " + ProviderMessage(response.body(), config_.api_key, key_pieces_);
    if (status == 400 || status == 413 || status == 422) {
      answer.kind = Answer::Kind::kRefused;
    } else if (status == 408 || status == 409 || status == 429 || status >= 500) {
      answer.kind = Answer::Kind::kFailed;
      const auto retry_after = response[http::field::retry_after];
      answer.retry_after = ParseRetryAfter({retry_after.data(), retry_after.size()});
    } else {
      answer.kind = Answer::Kind::kFatal;
      if (status == 401 || status == 403) answer.error += " (check DOCGATE_EMBEDDINGS_API_KEY)";
      if (status == 404) answer.error += " (check DOCGATE_EMBEDDINGS_URL and _MODEL)";
    }
    return answer;
  }

  // A 200 is used only when it is exactly what was asked: anything else could put a wrong vector
  // in the index for good.
  if (const std::string why =
          ReadVectors(response.body(), count, config_.dimensions, answer.vectors, answer.tokens);
      !why.empty()) {
    ++counters_.failed_requests;
    answer.kind = Answer::Kind::kFailed;
    answer.error = said + " with " + why;
    return answer;
  }
  answer.kind = Answer::Kind::kVectors;
  return answer;
}

std::unique_ptr<HttpConnection> OpenAiEmbedder::TakeConnection() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock,
                [&] { return shut_down_ || !idle_.empty() || in_use_ < config_.concurrency; });
  if (shut_down_) throw EmbeddingsUnavailable("docgate is stopping", milliseconds(0));
  ++in_use_;
  if (!idle_.empty()) {
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
  }
  lock.unlock();
  return std::make_unique<HttpConnection>(url_, tls_, config_.connect_timeout);
}

void OpenAiEmbedder::ReturnConnection(std::unique_ptr<HttpConnection> connection) {
  {
    std::lock_guard lock(mutex_);
    --in_use_;
    if (connection) idle_.push_back(std::move(connection));
  }
  changed_.notify_one();
}

milliseconds OpenAiEmbedder::Backoff(int failed_attempts) {
  // Full jitter over the upper half, so that instances retrying together spread out.
  thread_local std::minstd_rand random{std::random_device{}()};
  const int doublings = std::min(failed_attempts - 1, 20);
  const milliseconds ceiling =
      std::min<milliseconds>(config_.retry_max, config_.retry_initial * (1LL << doublings));
  std::uniform_int_distribution<long long> spread(ceiling.count() / 2, ceiling.count());
  return milliseconds(spread(random));
}

void OpenAiEmbedder::SleepUnlessShutDown(milliseconds how_long) {
  if (wait_) {
    wait_(how_long);
  } else {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, how_long, [&] { return shut_down_; });
  }
  std::lock_guard lock(mutex_);
  if (shut_down_) throw EmbeddingsUnavailable("docgate is stopping", milliseconds(0));
}

}  // namespace docgate
