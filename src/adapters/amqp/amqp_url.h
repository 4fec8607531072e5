#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace docgate {

// The parts of an amqp:// or amqps:// URL, defaults filled in.
struct AmqpEndpoint {
  bool tls = false;                // amqps://
  std::string host;                // without brackets for IPv6 literals
  int port = 5672;                 // 5671 for amqps://
  std::string user = "guest";      // percent-decoded
  std::string password = "guest";  // percent-decoded
  std::string vhost = "/";         // percent-decoded
  int heartbeat_seconds = 0;       // 0: heartbeats off

  bool operator==(const AmqpEndpoint&) const = default;
};

// Parses amqp://[user[:password]@]host[:port][/vhost][?heartbeat=SECONDS] (also amqps://), the
// RabbitMQ URI form: the vhost is the one path segment, percent-decoded ("/%2F" is "/", "/" as
// well as no path at all is the default "/"); user and password are percent-decoded, and a user
// without a password has an empty one. `default_heartbeat_seconds` applies when the query names
// none. Throws std::invalid_argument with a one-line reason, never echoing the password, for an
// unknown scheme, an empty host, a port outside 1..65535, a bad percent escape, a vhost with an
// unescaped '/', a query parameter other than heartbeat, or a heartbeat outside 0..65535.
AmqpEndpoint ParseAmqpUrl(std::string_view url, int default_heartbeat_seconds);

// "host:port" ("[::1]:5672" for IPv6), for messages: never the credentials.
std::string HostPort(const AmqpEndpoint& endpoint);

}  // namespace docgate
