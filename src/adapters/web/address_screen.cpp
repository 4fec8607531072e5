#include "adapters/web/address_screen.h"

#include <array>
#include <cstdint>

namespace docgate {
namespace {

struct Ipv4Range {
  std::uint32_t first;
  int prefix;
  AddressKind kind;
};

constexpr std::uint32_t V4(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  return a << 24 | b << 16 | c << 8 | d;
}

// The single addresses come first: each lies inside a wider range of another kind.
constexpr std::array<Ipv4Range, 20> kIpv4Ranges{{
    {V4(169, 254, 169, 254), 32, AddressKind::kMetadata},   // AWS, GCP, Azure, OpenStack, ...
    {V4(100, 100, 100, 200), 32, AddressKind::kMetadata},   // Alibaba Cloud
    {V4(168, 63, 129, 16), 32, AddressKind::kMetadata},     // Azure's host service (a public range)
    {V4(255, 255, 255, 255), 32, AddressKind::kMulticast},  // limited broadcast
    {V4(0, 0, 0, 0), 8, AddressKind::kUnspecified},
    {V4(10, 0, 0, 0), 8, AddressKind::kPrivate},
    {V4(100, 64, 0, 0), 10, AddressKind::kPrivate},
    {V4(127, 0, 0, 0), 8, AddressKind::kLoopback},
    {V4(169, 254, 0, 0), 16, AddressKind::kLinkLocal},
    {V4(172, 16, 0, 0), 12, AddressKind::kPrivate},
    {V4(192, 0, 0, 0), 24, AddressKind::kReserved},    // IETF protocol assignments
    {V4(192, 0, 2, 0), 24, AddressKind::kReserved},    // TEST-NET-1
    {V4(192, 88, 99, 0), 24, AddressKind::kReserved},  // 6to4 relay anycast
    {V4(192, 168, 0, 0), 16, AddressKind::kPrivate},
    {V4(198, 18, 0, 0), 15, AddressKind::kReserved},    // benchmarking
    {V4(198, 51, 100, 0), 24, AddressKind::kReserved},  // TEST-NET-2
    {V4(203, 0, 113, 0), 24, AddressKind::kReserved},   // TEST-NET-3
    {V4(224, 0, 0, 0), 4, AddressKind::kMulticast},
    {V4(240, 0, 0, 0), 4, AddressKind::kReserved},
    {V4(0, 0, 0, 0), 0, AddressKind::kPublic},
}};

AddressKind KindOfV4(std::uint32_t address) {
  for (const Ipv4Range& range : kIpv4Ranges) {
    const std::uint32_t mask = range.prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - range.prefix);
    if ((address & mask) == range.first) return range.kind;
  }
  return AddressKind::kPublic;
}

using V6Bytes = boost::asio::ip::address_v6::bytes_type;

std::uint32_t V4At(const V6Bytes& bytes, std::size_t offset) {
  return V4(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]);
}

// Whether the first `prefix` bits of `bytes` are those of `pattern` (the rest of it zero).
bool InPrefix(const V6Bytes& bytes, const V6Bytes& pattern, int prefix) {
  for (int bit = 0; bit < prefix; ++bit) {
    const int byte = bit / 8, mask = 0x80 >> (bit % 8);
    if ((bytes[byte] & mask) != (pattern[byte] & mask)) return false;
  }
  return true;
}

V6Bytes V6(std::initializer_list<unsigned> leading_bytes) {
  V6Bytes bytes{};
  std::size_t i = 0;
  for (const unsigned byte : leading_bytes) bytes[i++] = static_cast<unsigned char>(byte);
  return bytes;
}

AddressKind KindOfV6(const boost::asio::ip::address_v6& address) {
  const V6Bytes bytes = address.to_bytes();
  if (address.is_unspecified()) return AddressKind::kUnspecified;
  if (address.is_loopback()) return AddressKind::kLoopback;
  if (address.is_v4_mapped()) return KindOfV4(V4At(bytes, 12));
  if (InPrefix(bytes, V6({}), 96)) return KindOfV4(V4At(bytes, 12));  // IPv4-compatible
  if (InPrefix(bytes, V6({0x00, 0x64, 0xff, 0x9b}), 96)) return KindOfV4(V4At(bytes, 12));
  if (InPrefix(bytes, V6({0x20, 0x02}), 16)) return KindOfV4(V4At(bytes, 2));  // 6to4
  if (bytes == V6({0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54})) {
    return AddressKind::kMetadata;  // fd00:ec2::254, AWS's over IPv6
  }
  if (InPrefix(bytes, V6({0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}), 48)) return AddressKind::kPrivate;
  if (InPrefix(bytes, V6({0xfc}), 7)) return AddressKind::kPrivate;
  if (InPrefix(bytes, V6({0xfe, 0x80}), 10)) return AddressKind::kLinkLocal;
  if (InPrefix(bytes, V6({0xff}), 8)) return AddressKind::kMulticast;
  for (const auto& [pattern, prefix] : std::array<std::pair<V6Bytes, int>, 6>{{
           {V6({0xfe, 0xc0}), 10},              // site-local, deprecated
           {V6({0x01, 0x00}), 64},              // discard
           {V6({0x20, 0x01, 0x0d, 0xb8}), 32},  // documentation
           {V6({0x3f, 0xff}), 20},              // documentation (RFC 9637)
           {V6({0x20, 0x01, 0x00, 0x02}), 48},  // benchmarking
           {V6({0x20, 0x01}), 32},              // Teredo: carries an address it obscures
       }}) {
    if (InPrefix(bytes, pattern, prefix)) return AddressKind::kReserved;
  }
  return AddressKind::kPublic;
}

}  // namespace

AddressKind KindOf(const boost::asio::ip::address& address) {
  if (address.is_v4()) return KindOfV4(address.to_v4().to_uint());
  return KindOfV6(address.to_v6());
}

std::string_view DescribeAddressKind(AddressKind kind) {
  switch (kind) {
    case AddressKind::kPublic:
      return "a public address";
    case AddressKind::kUnspecified:
      return "an unspecified address (this machine)";
    case AddressKind::kLoopback:
      return "a loopback address";
    case AddressKind::kPrivate:
      return "a private address";
    case AddressKind::kLinkLocal:
      return "a link-local address";
    case AddressKind::kMulticast:
      return "a multicast or broadcast address";
    case AddressKind::kMetadata:
      return "a cloud metadata address";
    case AddressKind::kReserved:
      return "a reserved address";
  }
  return "an address";
}

}  // namespace docgate
