#include "adapters/web/web_url.h"

#include <boost/asio/ip/address.hpp>
#include <charconv>
#include <stdexcept>

namespace docgate {
namespace {

std::uint16_t ParsePort(std::string_view text) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value == 0 ||
      value > 65535) {
    throw std::invalid_argument("the port must be 1..65535");
  }
  return static_cast<std::uint16_t>(value);
}

}  // namespace

std::string WebUrl::HostHeader() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  std::string header = ipv6 ? "[" + host + "]" : host;
  if (port != (tls ? 443 : 80)) header += ":" + std::to_string(port);
  return header;
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code error;
  const boost::asio::ip::address address = boost::asio::ip::make_address(host, error);
  return !error && address.is_loopback();
}

WebUrl ParseWebUrl(std::string_view url, std::string_view credentials_variable) {
  WebUrl parsed;
  if (url.starts_with("https://")) {
    parsed.tls = true;
    url.remove_prefix(8);
  } else if (url.starts_with("http://")) {
    url.remove_prefix(7);
  } else {
    throw std::invalid_argument("the scheme must be http:// or https://");
  }
  if (url.find_first_of("?#") != std::string_view::npos) {
    throw std::invalid_argument("a query or fragment has no place in the base URL");
  }
  const std::size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : url.substr(slash);
  while (path.ends_with('/')) path.remove_suffix(1);
  if (authority.find('@') != std::string_view::npos) {
    throw std::invalid_argument("credentials do not belong in the URL: set " +
                                std::string(credentials_variable));
  }
  std::string_view port;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) throw std::invalid_argument("an unclosed '[' in the host");
    parsed.host = std::string(authority.substr(1, close - 1));
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) {
      throw std::invalid_argument("only a :port may follow the IPv6 address");
    }
    if (!rest.empty()) port = rest.substr(1);
    if (rest == ":") throw std::invalid_argument("the port must be 1..65535");
  } else {
    const std::size_t colon = authority.find(':');
    parsed.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) throw std::invalid_argument("the port must be 1..65535");
    }
  }
  if (parsed.host.empty()) throw std::invalid_argument("the host is empty");
  parsed.port = port.empty() ? (parsed.tls ? 443 : 80) : ParsePort(port);
  parsed.path = std::string(path);
  return parsed;
}

WebTarget ParseWebTarget(std::string_view url, std::string_view credentials_variable) {
  if (url.size() > kMaxWebTargetUrl) {
    throw std::invalid_argument("the URL is longer than " + std::to_string(kMaxWebTargetUrl) +
                                " characters");
  }
  for (const char c : url) {
    if (c <= ' ' || c > '~') {
      throw std::invalid_argument(
          "the URL holds a space or a character that is not printable ASCII: percent-encode it");
    }
  }
  if (url.find('#') != std::string_view::npos) {
    throw std::invalid_argument("a fragment has no place in the URL");
  }
  const std::size_t question = url.find('?');
  WebTarget parsed{.server = ParseWebUrl(url.substr(0, question), credentials_variable),
                   .target = {}};
  const std::size_t scheme_end = url.find("://") + 3;
  const std::size_t path_start = url.find('/', scheme_end);
  parsed.target = path_start < question ? std::string(url.substr(path_start, question - path_start))
                                        : std::string("/");
  if (question != std::string_view::npos) parsed.target += url.substr(question);
  return parsed;
}

}  // namespace docgate
