// Invariant: ParseRedisUrl (adapters/redis/redis_url.h) reads any text and throws nothing but
// std::invalid_argument, whose message never echoes the password of a URL written by the rules
// (the outcome is the same whatever the password's letters, but for the password read). What it
// reads is sane (a host, a port in 1..65535, a database >= 0) and is read again from the URL
// written back from it, the user and password percent-encoded.
// Input: the URL.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "adapters/redis/redis_url.h"
#include "fuzz_support.h"

namespace {

using docgate::RedisEndpoint;
using docgate::fuzz::AsText;
using docgate::fuzz::ErrorOf;
using docgate::fuzz::PercentEncodedBytes;

bool operator==(const RedisEndpoint& a, const RedisEndpoint& b) {
  return a.tls == b.tls && a.host == b.host && a.port == b.port && a.user == b.user &&
         a.password == b.password && a.db == b.db;
}

// The URL of `endpoint`; nullopt when its host cannot be written back (an IPv6-like host with ']').
std::optional<std::string> Written(const RedisEndpoint& endpoint) {
  std::string url = endpoint.tls ? "rediss://" : "redis://";
  if (!endpoint.user.empty() || !endpoint.password.empty()) {
    url += PercentEncodedBytes(endpoint.user) + ":" + PercentEncodedBytes(endpoint.password) + "@";
  }
  const bool bracketed =
      endpoint.host.find(':') != std::string::npos || endpoint.host.front() == '[';
  if (bracketed && endpoint.host.find(']') != std::string::npos) return std::nullopt;
  url += bracketed ? "[" + endpoint.host + "]" : endpoint.host;
  return url + ":" + endpoint.port + "/" + std::to_string(endpoint.db);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string url(AsText(data, size));
  std::optional<RedisEndpoint> endpoint;
  const auto error =
      ErrorOf<std::invalid_argument>([&] { endpoint = docgate::ParseRedisUrl(url); });
  if (endpoint) {
    FUZZ_CHECK(!endpoint->host.empty());
    int port = 0;
    const auto [end, ec] =
        std::from_chars(endpoint->port.data(), endpoint->port.data() + endpoint->port.size(), port);
    FUZZ_CHECK(ec == std::errc{} && end == endpoint->port.data() + endpoint->port.size() &&
                   port >= 1 && port <= 65535,
               endpoint->port);
    FUZZ_CHECK(endpoint->db >= 0);
    if (const auto written = Written(*endpoint)) {
      std::optional<RedisEndpoint> again;
      ErrorOf<std::invalid_argument>([&] { again = docgate::ParseRedisUrl(*written); });
      FUZZ_CHECK(again.has_value() && *again == *endpoint, *written);
    }
  }

  if (const auto password = docgate::fuzz::WellFormedPassword(url)) {
    const std::string other_url = docgate::fuzz::WithOtherPassword(url, *password);
    std::optional<RedisEndpoint> other;
    const auto other_error =
        ErrorOf<std::invalid_argument>([&] { other = docgate::ParseRedisUrl(other_url); });
    FUZZ_CHECK(error == other_error, other_url);
    if (endpoint) {
      other->password = endpoint->password;
      FUZZ_CHECK(*other == *endpoint, other_url);
    }
  }
  return 0;
}
