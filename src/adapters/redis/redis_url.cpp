#include "adapters/redis/redis_url.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <tuple>

#include "core/percent_encoding.h"
#include "core/query_string.h"

namespace docgate {
namespace {

template <typename Int>
bool ParseNumber(std::string_view text, Int& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

// host[:port] or [ipv6][:port]; `default_port` when the port is absent.
RedisAddress ParseAddress(std::string_view authority, std::string_view default_port) {
  RedisAddress address{{}, std::string(default_port)};
  std::string_view port;
  bool has_port = false;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) throw std::invalid_argument("unclosed [ in the host");
    address.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') throw std::invalid_argument("junk after the IPv6 host");
      port = after.substr(1);
      has_port = true;
    }
  } else {
    const auto colon = authority.rfind(':');
    address.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      has_port = true;
    }
  }
  if (address.host.empty()) throw std::invalid_argument("no host");
  if (has_port) {
    int number = 0;
    if (!ParseNumber(port, number) || number < 1 || number > 65535) {
      throw std::invalid_argument("the port must be 1..65535");
    }
    address.port = std::string(port);
  }
  return address;
}

void ParseDb(std::string_view text, RedisEndpoint& endpoint, const char* reason) {
  if (!text.empty() && (!ParseNumber(text, endpoint.db) || endpoint.db < 0)) {
    throw std::invalid_argument(reason);
  }
}

constexpr std::string_view kSentinelUser = "sentinel_username";
constexpr std::string_view kSentinelPassword = "sentinel_password";

// The query's parameters into `endpoint`. An unknown name is quoted only when it looks like one:
// what was written may be a secret pasted without its name.
void ParseParameters(std::string_view query, bool sentinel, RedisEndpoint& endpoint) {
  for (const auto& [written_name, written_value] : SplitQuery(query)) {
    const std::string name(written_name);
    std::string* const value = name == kSentinelUser       ? &endpoint.sentinel_user
                               : name == kSentinelPassword ? &endpoint.sentinel_password
                                                           : nullptr;
    if (value == nullptr) {
      const bool quotable =
          name.size() <= 40 && std::all_of(name.begin(), name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
          });
      throw std::invalid_argument("unknown parameter" + (quotable ? " " + name : std::string()) +
                                  "; the parameters are sentinel_username and sentinel_password");
    }
    if (!sentinel) {
      throw std::invalid_argument(name +
                                  " is for redis+sentinel:// and rediss+sentinel:// URLs only");
    }
    if (!written_value) throw std::invalid_argument(name + " needs a value");
    if (!value->empty()) throw std::invalid_argument(name + " is given twice");
    *value = PercentDecoded(*written_value);
    if (value->empty()) throw std::invalid_argument(name + " must not be empty");
  }
  if (!endpoint.sentinel_user.empty() && endpoint.sentinel_password.empty()) {
    throw std::invalid_argument("sentinel_username needs sentinel_password");
  }
}

std::string Written(const RedisAddress& address) {
  const bool ipv6 = address.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + address.host + "]" : address.host) + ":" + address.port;
}

}  // namespace

RedisEndpoint ParseRedisUrl(std::string_view url) {
  RedisEndpoint endpoint;
  bool sentinel = false;
  std::string_view rest;
  for (const auto& [scheme, tls, with_sentinels] :
       {std::tuple{std::string_view("redis://"), false, false},
        std::tuple{std::string_view("rediss://"), true, false},
        std::tuple{std::string_view("redis+sentinel://"), false, true},
        std::tuple{std::string_view("rediss+sentinel://"), true, true}}) {
    if (url.starts_with(scheme)) {
      rest = url.substr(scheme.size());
      endpoint.tls = tls;
      sentinel = with_sentinels;
      break;
    }
  }
  if (rest.data() == nullptr) {
    throw std::invalid_argument(
        "the scheme must be redis://, rediss://, redis+sentinel:// or rediss+sentinel://");
  }
  const auto question = rest.find('?');
  if (question != std::string_view::npos) {
    ParseParameters(rest.substr(question + 1), sentinel, endpoint);
    rest = rest.substr(0, question);
  }
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  const std::string_view path =
      slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const auto colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      // redis://secret@host is the password alone, as redis-cli and redis-py read it.
      endpoint.password = PercentDecoded(userinfo);
    } else {
      endpoint.user = PercentDecoded(userinfo.substr(0, colon));
      endpoint.password = PercentDecoded(userinfo.substr(colon + 1));
    }
  }
  if (!sentinel) {
    RedisAddress address = ParseAddress(authority, "6379");
    endpoint.host = std::move(address.host);
    endpoint.port = std::move(address.port);
    ParseDb(path, endpoint, "the path must be a database number, e.g. /0");
    return endpoint;
  }

  endpoint.host.clear();
  endpoint.port.clear();
  for (std::size_t start = 0;;) {
    const auto comma = authority.find(',', start);
    endpoint.sentinels.push_back(ParseAddress(authority.substr(start, comma - start), "26379"));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  const auto name_end = path.find('/');
  endpoint.master_name = PercentDecoded(path.substr(0, name_end));
  if (endpoint.master_name.empty()) {
    throw std::invalid_argument(
        "the path must name the master the Sentinels watch, e.g. /mymaster or /mymaster/0");
  }
  if (name_end != std::string_view::npos) {
    ParseDb(path.substr(name_end + 1), endpoint,
            "the database after the master's name must be a number, e.g. /mymaster/0");
  }
  return endpoint;
}

std::string RedisUrlForLogs(const RedisEndpoint& endpoint) {
  const std::string scheme = endpoint.tls ? "rediss" : "redis";
  if (!endpoint.UsesSentinels()) {
    return scheme + "://" + Written({endpoint.host, endpoint.port});
  }
  std::string url = scheme + "+sentinel://";
  for (std::size_t i = 0; i < endpoint.sentinels.size(); ++i) {
    url += (i == 0 ? "" : ",") + Written(endpoint.sentinels[i]);
  }
  return url + "/" + endpoint.master_name;
}

}  // namespace docgate
