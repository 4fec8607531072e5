#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace docgate {

// An http:// or https:// server and a base path on it: what docgate's outbound HTTP clients
// (the embeddings provider, the OpenID issuer) are configured with.
struct WebUrl {
  bool tls = false;  // https://
  std::string host;  // a name or an address (IPv6 without its brackets)
  std::uint16_t port = 0;
  std::string path;  // the base path without a trailing '/' ("/v1", or "" for the root)

  // The Host header: host[:port], the port only when it is not the scheme's default.
  std::string HostHeader() const;
};

// Parses http://host[:port][/path] or https://... (port default 80 / 443; an IPv6 address in
// brackets). Throws std::invalid_argument, naming the problem but never echoing the URL, for any
// other scheme, user information (the message then says to set `credentials_variable` instead), a
// query or fragment, an empty host or a port outside 1..65535.
WebUrl ParseWebUrl(std::string_view url, std::string_view credentials_variable);

// A whole URL to send requests to (a webhook's): its server, and the request target as written,
// path and query ("/cgi-bin/webhook/send?key=..."; "/" when the URL has no path).
struct WebTarget {
  WebUrl server;  // its path is the target's path without the query or a trailing '/'
  std::string target;
};

// Parses http[s]://host[:port][/path][?query] as ParseWebUrl does, keeping the query. Throws
// std::invalid_argument, never echoing the URL, for what ParseWebUrl refuses but a query, and for a
// fragment, a character that is not printable ASCII (spaces included: percent-encode them), or
// more than kMaxWebTargetUrl characters.
inline constexpr std::size_t kMaxWebTargetUrl = 2048;
WebTarget ParseWebTarget(std::string_view url, std::string_view credentials_variable);

// Whether `host` (a WebUrl's) is this machine: localhost, 127.0.0.0/8 or ::1, where http://
// leaves no wire to read.
bool IsLoopbackHost(const std::string& host);

}  // namespace docgate
