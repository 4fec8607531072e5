#include "adapters/redis/redis_url.h"

#include <charconv>

#include "core/percent_encoding.h"

namespace docgate {
namespace {

template <typename Int> bool ParseNumber(std::string_view text, Int &value) {
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

} // namespace

RedisEndpoint ParseRedisUrl(std::string_view url) {
  RedisEndpoint endpoint;
  std::string_view rest;
  if (url.starts_with("redis://")) {
    rest = url.substr(8);
  } else if (url.starts_with("rediss://")) {
    endpoint.tls = true;
    rest = url.substr(9);
  } else {
    throw std::invalid_argument("the scheme must be redis:// or rediss://");
  }
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash + 1);
    if (!path.empty() && (!ParseNumber(path, endpoint.db) || endpoint.db < 0)) {
      throw std::invalid_argument(
          "the path must be a database number, e.g. /0");
    }
  }
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const auto colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      // redis://secret@host is the password alone, as redis-cli and redis-py
      // read it.
      endpoint.password = PercentDecoded(userinfo);
    } else {
      endpoint.user = PercentDecoded(userinfo.substr(0, colon));
      endpoint.password = PercentDecoded(userinfo.substr(colon + 1));
    }
  }
  std::string_view port;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos)
      throw std::invalid_argument("unclosed [ in the host");
    endpoint.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':')
        throw std::invalid_argument("junk after the IPv6 host");
      port = after.substr(1);
    }
  } else {
    const auto colon = authority.rfind(':');
    endpoint.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos)
      port = authority.substr(colon + 1);
  }
  if (endpoint.host.empty())
    throw std::invalid_argument("no host");
  if (!port.empty() || authority.ends_with(':')) {
    int number = 0;
    if (!ParseNumber(port, number) || number < 1 || number > 65535) {
      throw std::invalid_argument("the port must be 1..65535");
    }
    endpoint.port = std::string(port);
  }
  return endpoint;
}

} // namespace docgate
