// Invariant: ParseAmqpUrl (adapters/amqp/amqp_url.h) reads any text and throws nothing but
// std::invalid_argument, whose message never echoes the password of a URL written by the rules
// (the outcome is the same whatever the password's letters, but for the password read). What it
// reads is sane (a host, a port in 1..65535, a heartbeat in 0..65535, a vhost) and is read again
// from the URL written back from it, every part percent-encoded.
// Input: the URL.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "adapters/amqp/amqp_url.h"
#include "fuzz_support.h"

namespace {

using docgate::AmqpEndpoint;
using docgate::fuzz::AsText;
using docgate::fuzz::ErrorOf;
using docgate::fuzz::PercentEncodedBytes;

constexpr int kDefaultHeartbeat = 30;

// The URL of `endpoint`; nullopt when its host cannot be written back: an IPv6 literal is
// written in brackets, as it is (it is not percent-decoded), so it must fit there.
std::optional<std::string> Written(const AmqpEndpoint& endpoint) {
  std::string url = endpoint.tls ? "amqps://" : "amqp://";
  url += PercentEncodedBytes(endpoint.user) + ":" + PercentEncodedBytes(endpoint.password) + "@";
  if (endpoint.host.find(':') != std::string::npos) {
    if (endpoint.host.find_first_of("]/?@") != std::string::npos) return std::nullopt;
    url += "[" + endpoint.host + "]";
  } else {
    url += PercentEncodedBytes(endpoint.host);
  }
  return url + ":" + std::to_string(endpoint.port) + "/" + PercentEncodedBytes(endpoint.vhost) +
         "?heartbeat=" + std::to_string(endpoint.heartbeat_seconds);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string url(AsText(data, size));
  std::optional<AmqpEndpoint> endpoint;
  const auto error = ErrorOf<std::invalid_argument>(
      [&] { endpoint = docgate::ParseAmqpUrl(url, kDefaultHeartbeat); });
  if (endpoint) {
    FUZZ_CHECK(!endpoint->host.empty());
    FUZZ_CHECK(endpoint->port >= 1 && endpoint->port <= 65535);
    FUZZ_CHECK(endpoint->heartbeat_seconds >= 0 && endpoint->heartbeat_seconds <= 65535);
    FUZZ_CHECK(!endpoint->vhost.empty());
    if (const auto written = Written(*endpoint)) {
      std::optional<AmqpEndpoint> again;
      ErrorOf<std::invalid_argument>(
          [&] { again = docgate::ParseAmqpUrl(*written, kDefaultHeartbeat); });
      FUZZ_CHECK(again.has_value() && *again == *endpoint, *written);
    }
  }

  if (const auto password = docgate::fuzz::WellFormedPassword(url)) {
    const std::string other_url = docgate::fuzz::WithOtherPassword(url, *password);
    std::optional<AmqpEndpoint> other;
    const auto other_error = ErrorOf<std::invalid_argument>(
        [&] { other = docgate::ParseAmqpUrl(other_url, kDefaultHeartbeat); });
    FUZZ_CHECK(error == other_error, other_url);
    if (endpoint) {
      other->password = endpoint->password;
      FUZZ_CHECK(*other == *endpoint, other_url);
    }
  }
  return 0;
}
