#include "support/embeddings_test_server.h"

// Boost 1.74's asio headers use std::exchange without including <utility>.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <nlohmann/json.hpp>

#include <deque>
#include <limits>
#include <stdexcept>
#include <thread>

#include "core/utf8.h"

namespace docgate::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using json = nlohmann::json;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// A number no vector holds, written in place of the NaN that JSON cannot carry.
constexpr double kNaNMarker = 12345.678;

// The text's code points, ASCII letters lower-cased; a byte of an invalid sequence is one.
std::vector<std::string> CodePoints(std::string_view text) {
  std::vector<std::string> points;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = std::max<std::size_t>(Utf8SequenceLength(text, i), 1);
    std::string point(text.substr(i, length));
    if (length == 1 && point[0] >= 'A' && point[0] <= 'Z')
      point[0] = static_cast<char>(point[0] + 32);
    points.push_back(std::move(point));
    i += length;
  }
  return points;
}

std::uint64_t Fnv1a(std::string_view bytes) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

Response JsonResponse(const Request& request, http::status status, const std::string& body) {
  Response response{status, request.version()};
  response.set(http::field::content_type, "application/json");
  response.keep_alive(request.keep_alive());
  response.body() = body;
  response.prepare_payload();
  return response;
}

std::string ErrorBody(const std::string& message) {
  return json{{"error", {{"message", message}, {"type", "invalid_request_error"}}}}.dump();
}

}  // namespace

struct EmbeddingsTestServer::State {
  explicit State(EmbeddingsTestServerOptions o) : options(std::move(o)) {}

  const EmbeddingsTestServerOptions options;
  mutable std::mutex mutex;
  std::deque<std::pair<EmbeddingsFault, std::optional<int>>> faults;
  std::chrono::milliseconds delay{0};
  bool holding = false;
  int held = 0;
  std::size_t refuse_longer_than = std::numeric_limits<std::size_t>::max();
  std::uint64_t connections = 0;
  std::uint64_t requests = 0;
  std::uint64_t inputs = 0;
  std::map<std::string, int> texts;
  std::vector<std::size_t> batches;
  int in_flight = 0;
  int max_in_flight = 0;

  // Destroyed in reverse: the acceptor, then the io_context with the coroutines still suspended
  // on it (whose destructors use the mutex and the TLS context above).
  std::optional<asio::ssl::context> tls;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread thread;
  // Held requests wait on it; Release cancels it (on the io thread), which wakes them all.
  asio::steady_timer release{io, asio::steady_timer::time_point::max()};

  // The answer to one request; nullopt: close the connection without one.
  asio::awaitable<std::optional<Response>> Answer(const Request& request);
  template <typename Stream>
  asio::awaitable<void> Serve(Stream& stream);
  asio::awaitable<void> ServePlain(tcp::socket socket);
  asio::awaitable<void> ServeTls(tcp::socket socket);
  asio::awaitable<void> Accept();
};

asio::awaitable<std::optional<Response>> EmbeddingsTestServer::State::Answer(
    const Request& request) {
  std::optional<std::pair<EmbeddingsFault, std::optional<int>>> fault;
  std::chrono::milliseconds wait{0};
  {
    std::lock_guard lock(mutex);
    ++requests;
    max_in_flight = std::max(max_in_flight, ++in_flight);
    if (!faults.empty()) {
      fault = faults.front();
      faults.pop_front();
    }
    wait = delay;
  }
  for (;;) {
    {
      std::lock_guard lock(mutex);
      if (!holding) break;
      ++held;
    }
    boost::system::error_code cancelled;
    co_await release.async_wait(asio::redirect_error(asio::use_awaitable, cancelled));
    std::lock_guard lock(mutex);
    --held;
  }
  struct Leave {
    State* state;
    ~Leave() {
      std::lock_guard lock(state->mutex);
      --state->in_flight;
    }
  } leave{this};
  if (wait.count() > 0) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    timer.expires_after(wait);
    co_await timer.async_wait(asio::use_awaitable);
  }

  if (request.method() != http::verb::post || request.target() != "/v1/embeddings") {
    co_return JsonResponse(request, http::status::not_found, ErrorBody("no such endpoint"));
  }
  if (!options.api_key.empty() &&
      request[http::field::authorization] != "Bearer " + options.api_key) {
    std::string message = "Incorrect API key provided";
    if (options.echo_key_after) {
      const auto sent = request[http::field::authorization];
      message.resize(std::max(message.size(), *options.echo_key_after), '.');
      message += std::string(sent.substr(std::min<std::size_t>(sent.size(), 7)));  // "Bearer "
    }
    co_return JsonResponse(request, http::status::unauthorized, ErrorBody(message));
  }
  const json body = json::parse(request.body(), nullptr, false);
  std::vector<std::string> inputs;
  if (body.is_object() && body.contains("input") && body["input"].is_string()) {
    inputs.push_back(body["input"].get<std::string>());
  } else if (body.is_object() && body.contains("input") && body["input"].is_array()) {
    for (const json& input : body["input"]) {
      if (!input.is_string()) break;
      inputs.push_back(input.get<std::string>());
    }
  }
  if (inputs.empty() || inputs.size() != (body["input"].is_array() ? body["input"].size() : 1)) {
    co_return JsonResponse(request, http::status::bad_request,
                           ErrorBody("`input` must be a string or a non-empty list of strings"));
  }
  if (!body.contains("model") || body["model"] != options.model) {
    co_return JsonResponse(request, http::status::not_found, ErrorBody("The model does not exist"));
  }
  {
    std::lock_guard lock(mutex);
    batches.push_back(inputs.size());
  }
  for (const std::string& input : inputs) {
    if (input.size() > refuse_longer_than) {
      co_return JsonResponse(request, http::status::bad_request,
                             ErrorBody("an input is longer than the model's context"));
    }
  }
  if (fault) {
    const auto [kind, retry_after] = *fault;
    const auto refuse = [&](http::status status) {
      Response response = JsonResponse(request, status, ErrorBody("try again later"));
      if (retry_after) response.set(http::field::retry_after, std::to_string(*retry_after));
      return response;
    };
    if (kind == EmbeddingsFault::kNoAnswer) co_return std::nullopt;
    if (kind == EmbeddingsFault::kTooManyRequests)
      co_return refuse(http::status::too_many_requests);
    if (kind == EmbeddingsFault::kInternalError)
      co_return refuse(http::status::internal_server_error);
    if (kind == EmbeddingsFault::kUnavailable) co_return refuse(http::status::service_unavailable);
    if (kind == EmbeddingsFault::kMalformedJson) {
      co_return JsonResponse(request, http::status::ok, "{\"data\": [{\"index\": 0, \"embed");
    }
  }

  json data = json::array();
  std::int64_t tokens = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::vector<float> vector = VectorOf(inputs[i], options.dimensions);
    if (fault && i == 0) {
      if (fault->first == EmbeddingsFault::kWrongDimensions) vector.push_back(1.0F);
      if (fault->first == EmbeddingsFault::kZeros) std::fill(vector.begin(), vector.end(), 0.0F);
      if (fault->first == EmbeddingsFault::kNaN) vector[0] = static_cast<float>(kNaNMarker);
    }
    if (fault && fault->first == EmbeddingsFault::kMissingVector && i + 1 == inputs.size()) break;
    json embedding = json::array();
    for (const float value : vector) {
      embedding.push_back(value == static_cast<float>(kNaNMarker) ? kNaNMarker : value);
    }
    // Listed last first: the `index` decides, not the order.
    data.insert(data.begin(),
                json{{"object", "embedding"}, {"index", i}, {"embedding", embedding}});
    tokens += static_cast<std::int64_t>(CodePoints(inputs[i]).size());
  }
  std::string text = json{{"object", "list"},
                          {"model", options.model},
                          {"data", data},
                          {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}}
                         .dump();
  if (fault && fault->first == EmbeddingsFault::kNaN) {
    const std::string marker = json(kNaNMarker).dump();
    text.replace(text.find(marker), marker.size(), "NaN");
  }
  if (!fault) {
    std::lock_guard lock(mutex);
    this->inputs += inputs.size();
    for (const std::string& input : inputs) ++texts[input];
  }
  co_return JsonResponse(request, http::status::ok, text);
}

template <typename Stream>
asio::awaitable<void> EmbeddingsTestServer::State::Serve(Stream& stream) {
  beast::flat_buffer buffer;
  for (;;) {
    Request request;
    http::request_parser<http::string_body> parser;
    parser.body_limit(256 << 20);
    co_await http::async_read(stream, buffer, parser, asio::use_awaitable);
    request = parser.release();
    std::optional<Response> response = co_await Answer(request);
    if (!response) co_return;
    co_await http::async_write(stream, *response, asio::use_awaitable);
    if (!request.keep_alive()) co_return;
  }
}

asio::awaitable<void> EmbeddingsTestServer::State::ServePlain(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  try {
    co_await Serve(stream);
  } catch (const boost::system::system_error&) {
    // The client went away; its connection ends here.
  }
}

asio::awaitable<void> EmbeddingsTestServer::State::ServeTls(tcp::socket socket) {
  beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *tls);
  try {
    co_await stream.async_handshake(asio::ssl::stream_base::server, asio::use_awaitable);
    co_await Serve(stream);
  } catch (const boost::system::system_error&) {
    // The client went away, or refused the certificate.
  }
}

asio::awaitable<void> EmbeddingsTestServer::State::Accept() {
  for (;;) {
    tcp::socket socket = co_await acceptor.async_accept(asio::use_awaitable);
    {
      std::lock_guard lock(mutex);
      ++connections;
    }
    if (tls) {
      asio::co_spawn(io, ServeTls(std::move(socket)), asio::detached);
    } else {
      asio::co_spawn(io, ServePlain(std::move(socket)), asio::detached);
    }
  }
}

EmbeddingsTestServer::EmbeddingsTestServer(EmbeddingsTestServerOptions options)
    : state_(std::make_shared<State>(std::move(options))) {
  State& state = *state_;
  if (!state.options.cert_file.empty()) {
    state.tls.emplace(asio::ssl::context::tls_server);
    state.tls->use_certificate_chain_file(state.options.cert_file);
    state.tls->use_private_key_file(state.options.key_file, asio::ssl::context::pem);
  }
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  state.acceptor.open(endpoint.protocol());
  state.acceptor.set_option(tcp::acceptor::reuse_address(true));
  state.acceptor.bind(endpoint);
  state.acceptor.listen();
  asio::co_spawn(state.io, state.Accept(), asio::detached);
  state.thread = std::thread([&state] { state.io.run(); });
}

EmbeddingsTestServer::~EmbeddingsTestServer() {
  state_->io.stop();
  state_->thread.join();
}

std::uint16_t EmbeddingsTestServer::port() const {
  return state_->acceptor.local_endpoint().port();
}

std::string EmbeddingsTestServer::url() const {
  return std::string(state_->tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port()) +
         "/v1";
}

const EmbeddingsTestServerOptions& EmbeddingsTestServer::options() const { return state_->options; }

void EmbeddingsTestServer::FailNext(int requests, EmbeddingsFault fault,
                                    std::optional<int> retry_after_seconds) {
  std::lock_guard lock(state_->mutex);
  for (int i = 0; i < requests; ++i) state_->faults.emplace_back(fault, retry_after_seconds);
}

void EmbeddingsTestServer::SetDelay(std::chrono::milliseconds delay) {
  std::lock_guard lock(state_->mutex);
  state_->delay = delay;
}

void EmbeddingsTestServer::Hold() {
  std::lock_guard lock(state_->mutex);
  state_->holding = true;
}

void EmbeddingsTestServer::Release() {
  {
    std::lock_guard lock(state_->mutex);
    state_->holding = false;
  }
  asio::post(state_->io, [state = state_] {
    state->release.cancel();
    state->release.expires_at(asio::steady_timer::time_point::max());
  });
}

int EmbeddingsTestServer::held() const {
  std::lock_guard lock(state_->mutex);
  return state_->held;
}

void EmbeddingsTestServer::RefuseInputsLongerThan(std::size_t bytes) {
  std::lock_guard lock(state_->mutex);
  state_->refuse_longer_than = bytes;
}

std::uint64_t EmbeddingsTestServer::connections() const {
  std::lock_guard lock(state_->mutex);
  return state_->connections;
}

std::uint64_t EmbeddingsTestServer::requests() const {
  std::lock_guard lock(state_->mutex);
  return state_->requests;
}

std::uint64_t EmbeddingsTestServer::inputs_embedded() const {
  std::lock_guard lock(state_->mutex);
  return state_->inputs;
}

std::map<std::string, int> EmbeddingsTestServer::embedded_texts() const {
  std::lock_guard lock(state_->mutex);
  return state_->texts;
}

std::vector<std::size_t> EmbeddingsTestServer::batch_sizes() const {
  std::lock_guard lock(state_->mutex);
  return state_->batches;
}

int EmbeddingsTestServer::max_in_flight() const {
  std::lock_guard lock(state_->mutex);
  return state_->max_in_flight;
}

std::vector<float> EmbeddingsTestServer::VectorOf(std::string_view text, int dimensions) {
  std::vector<float> vector(static_cast<std::size_t>(dimensions), 0.0F);
  const std::vector<std::string> points = CodePoints(text);
  const auto add = [&](const std::string& gram) {
    const std::uint64_t hash = Fnv1a(gram);
    vector[hash % vector.size()] += (hash >> 63) != 0 ? -1.0F : 1.0F;
  };
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i] == " ") continue;
    add(points[i]);
    if (i + 1 < points.size()) add(points[i] + points[i + 1]);
  }
  // A text of spaces only still gets a vector that is not zero.
  if (std::all_of(vector.begin(), vector.end(), [](float v) { return v == 0.0F; })) vector[0] = 1;
  return vector;
}

}  // namespace docgate::testing
