// Invariant: ParseRedisUrl (adapters/redis/redis_url.h) reads any text (redis://, rediss:// and
// their +sentinel forms) and throws nothing but std::invalid_argument, whose message never echoes
// the password of a URL written by the rules (the outcome is the same whatever the password's
// letters, but for the password read). What it reads is sane (a host, a port in 1..65535, a
// database >= 0; with Sentinels, each of them so, and a master's name) and is read again from the
// URL written back from it, the user, password and master's name percent-encoded.
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

using docgate::RedisAddress;

bool operator==(const RedisEndpoint& a, const RedisEndpoint& b) {
  return a.tls == b.tls && a.host == b.host && a.port == b.port && a.user == b.user &&
         a.password == b.password && a.db == b.db && a.sentinels == b.sentinels &&
         a.master_name == b.master_name;
}

bool ValidPort(const std::string& text) {
  int port = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  return ec == std::errc{} && end == text.data() + text.size() && port >= 1 && port <= 65535;
}

// host:port; nullopt when the host cannot be written back (an IPv6-like host with ']', or a
// Sentinel's host with ',', '/' or '@').
std::optional<std::string> Written(const RedisAddress& address, bool sentinel) {
  const bool bracketed = address.host.find(':') != std::string::npos || address.host.front() == '[';
  if (bracketed && address.host.find(']') != std::string::npos) return std::nullopt;
  if (sentinel && address.host.find_first_of(",/@") != std::string::npos) return std::nullopt;
  return (bracketed ? "[" + address.host + "]" : address.host) + ":" + address.port;
}

// The URL of `endpoint`; nullopt when a host cannot be written back.
std::optional<std::string> Written(const RedisEndpoint& endpoint) {
  const bool sentinel = endpoint.UsesSentinels();
  std::string url =
      std::string(endpoint.tls ? "rediss" : "redis") + (sentinel ? "+sentinel" : "") + "://";
  if (!endpoint.user.empty() || !endpoint.password.empty()) {
    url += PercentEncodedBytes(endpoint.user) + ":" + PercentEncodedBytes(endpoint.password) + "@";
  }
  if (!sentinel) {
    const auto host = Written(RedisAddress{endpoint.host, endpoint.port}, false);
    if (!host) return std::nullopt;
    return url + *host + "/" + std::to_string(endpoint.db);
  }
  for (std::size_t i = 0; i < endpoint.sentinels.size(); ++i) {
    const auto host = Written(endpoint.sentinels[i], true);
    if (!host) return std::nullopt;
    url += (i == 0 ? "" : ",") + *host;
  }
  return url + "/" + PercentEncodedBytes(endpoint.master_name) + "/" + std::to_string(endpoint.db);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string url(AsText(data, size));
  std::optional<RedisEndpoint> endpoint;
  const auto error =
      ErrorOf<std::invalid_argument>([&] { endpoint = docgate::ParseRedisUrl(url); });
  if (endpoint) {
    if (endpoint->UsesSentinels()) {
      FUZZ_CHECK(endpoint->host.empty() && !endpoint->master_name.empty());
      for (const RedisAddress& sentinel : endpoint->sentinels) {
        FUZZ_CHECK(!sentinel.host.empty());
        FUZZ_CHECK(ValidPort(sentinel.port), sentinel.port);
      }
    } else {
      FUZZ_CHECK(!endpoint->host.empty());
      FUZZ_CHECK(ValidPort(endpoint->port), endpoint->port);
    }
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
