#include "adapters/amqp/amqp_url.h"

#include <charconv>

#include "core/query_string.h"

namespace docgate {
namespace {

// An integer in [min, max] spelled with digits only (no sign, no spaces), or -1.
int BoundedNumber(std::string_view text, int min, int max) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text.front() == '-' || ec != std::errc{} ||
      end != text.data() + text.size() || value < min || value > max) {
    return -1;
  }
  return value;
}

// `what` names the part in the error message; its text is never echoed (it may be a password).
std::string Decoded(std::string_view text, std::string_view what) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    unsigned value = 0;
    const char* first = text.data() + i + 1;
    const bool two_left = i + 2 < text.size();
    const auto [end, ec] = std::from_chars(first, two_left ? first + 2 : first, value, 16);
    if (!two_left || ec != std::errc{} || end != first + 2) {
      throw std::invalid_argument("bad percent escape in the " + std::string(what) +
                                  " (use %XX with two hex digits)");
    }
    out.push_back(static_cast<char>(value));
    i += 2;
  }
  return out;
}

void ApplyQuery(std::string_view query, AmqpEndpoint& endpoint) {
  for (const auto& [name, written_value] : SplitQuery(query)) {
    if (name != "heartbeat") {
      throw std::invalid_argument("unknown query parameter '" + std::string(name) +
                                  "' (only heartbeat is supported)");
    }
    const std::string_view value = written_value.value_or(std::string_view());
    endpoint.heartbeat_seconds = BoundedNumber(value, 0, 65535);
    if (endpoint.heartbeat_seconds < 0) {
      throw std::invalid_argument("heartbeat must be a number of seconds in 0..65535, not '" +
                                  std::string(value) + "'");
    }
  }
}

}  // namespace

AmqpEndpoint ParseAmqpUrl(std::string_view url, int default_heartbeat_seconds) {
  AmqpEndpoint endpoint;
  endpoint.heartbeat_seconds = default_heartbeat_seconds;
  std::string_view rest;
  if (url.starts_with("amqp://")) {
    rest = url.substr(7);
  } else if (url.starts_with("amqps://")) {
    endpoint.tls = true;
    endpoint.port = 5671;
    rest = url.substr(8);
  } else {
    throw std::invalid_argument("the scheme must be amqp:// or amqps://");
  }

  if (const auto question = rest.find('?'); question != std::string_view::npos) {
    ApplyQuery(rest.substr(question + 1), endpoint);
    rest = rest.substr(0, question);
  }
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    const std::string_view vhost = rest.substr(slash + 1);
    if (vhost.find('/') != std::string_view::npos) {
      throw std::invalid_argument("the vhost is one path segment: write '/' inside it as %2F");
    }
    if (!vhost.empty()) endpoint.vhost = Decoded(vhost, "vhost");
  }

  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const auto colon = userinfo.find(':');
    endpoint.user = Decoded(userinfo.substr(0, colon), "user");
    endpoint.password =
        colon == std::string_view::npos ? "" : Decoded(userinfo.substr(colon + 1), "password");
  }

  std::string_view port;
  bool has_port = false;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) throw std::invalid_argument("unclosed [ in the host");
    endpoint.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') {
      throw std::invalid_argument("junk after the IPv6 host");
    }
    has_port = !after.empty();
    if (has_port) port = after.substr(1);
  } else {
    const auto colon = authority.find(':');
    endpoint.host = Decoded(authority.substr(0, colon), "host");
    has_port = colon != std::string_view::npos;
    if (has_port) port = authority.substr(colon + 1);
  }
  if (endpoint.host.empty()) throw std::invalid_argument("no host");
  if (has_port) {
    endpoint.port = BoundedNumber(port, 1, 65535);
    if (endpoint.port < 0) {
      throw std::invalid_argument("the port must be a number in 1..65535, not '" +
                                  std::string(port) + "'");
    }
  }
  return endpoint;
}

std::string HostPort(const AmqpEndpoint& endpoint) {
  const bool ipv6 = endpoint.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + std::to_string(endpoint.port);
}

}  // namespace docgate
