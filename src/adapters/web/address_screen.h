#pragma once

#include <boost/asio/ip/address.hpp>
#include <string_view>

namespace docgate {

// What an IP address reaches, for refusing server-side request forgery: an address that a URL
// given by a user (a webhook's) must not make docgate connect to, unless the operator allows
// private addresses for webhooks (ADR 0017). Registries: IANA's IPv4 and IPv6
// special-purpose address registries (RFC 6890 and its updates).
enum class AddressKind {
  kPublic,       // none of the below: may be connected to
  kUnspecified,  // 0.0.0.0/8, :: (connecting to it reaches this machine)
  kLoopback,     // 127.0.0.0/8, ::1
  kPrivate,      // 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7
  kLinkLocal,    // 169.254/16, fe80::/10
  kMulticast,    // 224/4, ff00::/8, and 255.255.255.255
  kMetadata,     // a cloud's instance metadata or host service (169.254.169.254, fd00:ec2::254,
                 // 100.100.100.200, 168.63.129.16): named apart, as the most sought target
  kReserved,     // documentation, benchmarking, 240/4, protocol assignments, site-local,
                 // Teredo, discard: never a webhook receiver
};

// The kind of `address`. An IPv6 address that carries an IPv4 one (IPv4-mapped ::ffff:a.b.c.d,
// IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is the kind of the IPv4 address it
// carries, so no IPv6 spelling reaches what the IPv4 one may not.
AddressKind KindOf(const boost::asio::ip::address& address);

// How an error message names `kind`: "a loopback address", "a cloud metadata address", ...
std::string_view DescribeAddressKind(AddressKind kind);

}  // namespace docgate
