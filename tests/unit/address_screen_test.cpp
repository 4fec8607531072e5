#include "adapters/web/address_screen.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "adapters/web/http_connection.h"

namespace docgate {
namespace {

AddressKind Kind(const std::string& text) { return KindOf(boost::asio::ip::make_address(text)); }

void ExpectKinds(const std::vector<std::pair<std::string, AddressKind>>& cases) {
  for (const auto& [text, kind] : cases) {
    EXPECT_EQ(Kind(text), kind) << text << " is not " << DescribeAddressKind(kind);
  }
}

TEST(AddressScreenTest, EachForbiddenIpv4ClassIsNamedAndItsNeighboursArePublic) {
  ExpectKinds({
      {"127.0.0.1", AddressKind::kLoopback},
      {"127.255.255.254", AddressKind::kLoopback},
      {"0.0.0.0", AddressKind::kUnspecified},
      {"0.1.2.3", AddressKind::kUnspecified},
      {"10.0.0.1", AddressKind::kPrivate},
      {"172.16.0.1", AddressKind::kPrivate},
      {"172.31.255.255", AddressKind::kPrivate},
      {"192.168.1.1", AddressKind::kPrivate},
      {"100.64.0.1", AddressKind::kPrivate},
      {"100.127.255.255", AddressKind::kPrivate},
      {"169.254.1.1", AddressKind::kLinkLocal},
      {"169.254.169.254", AddressKind::kMetadata},
      {"100.100.100.200", AddressKind::kMetadata},
      {"168.63.129.16", AddressKind::kMetadata},
      {"224.0.0.1", AddressKind::kMulticast},
      {"239.255.255.250", AddressKind::kMulticast},
      {"255.255.255.255", AddressKind::kMulticast},
      {"240.0.0.1", AddressKind::kReserved},
      {"192.0.2.10", AddressKind::kReserved},
      {"198.18.0.1", AddressKind::kReserved},
      {"198.51.100.7", AddressKind::kReserved},
      {"203.0.113.9", AddressKind::kReserved},
      // The edges just outside each range reach the internet.
      {"9.255.255.255", AddressKind::kPublic},
      {"11.0.0.0", AddressKind::kPublic},
      {"100.63.255.255", AddressKind::kPublic},
      {"100.128.0.0", AddressKind::kPublic},
      {"126.255.255.255", AddressKind::kPublic},
      {"128.0.0.0", AddressKind::kPublic},
      {"172.15.255.255", AddressKind::kPublic},
      {"172.32.0.0", AddressKind::kPublic},
      {"168.63.129.17", AddressKind::kPublic},
      {"192.167.255.255", AddressKind::kPublic},
      {"223.255.255.255", AddressKind::kPublic},
      {"8.8.8.8", AddressKind::kPublic},
      {"116.62.10.1", AddressKind::kPublic},
  });
}

TEST(AddressScreenTest, Ipv6ClassesAreNamed) {
  ExpectKinds({
      {"::1", AddressKind::kLoopback},
      {"::", AddressKind::kUnspecified},
      {"fc00::1", AddressKind::kPrivate},
      {"fd12:3456::1", AddressKind::kPrivate},
      {"fe80::1", AddressKind::kLinkLocal},
      {"febf::1", AddressKind::kLinkLocal},
      {"fec0::1", AddressKind::kReserved},
      {"ff02::1", AddressKind::kMulticast},
      {"fd00:ec2::254", AddressKind::kMetadata},
      {"2001:db8::1", AddressKind::kReserved},
      {"2001:0:4136:e378:8000:63bf:3fff:fdd2", AddressKind::kReserved},  // Teredo
      {"100::1", AddressKind::kReserved},
      {"2400:3200::1", AddressKind::kPublic},
      {"2001:4860:4860::8888", AddressKind::kPublic},
      {"fbff::1", AddressKind::kPublic},
  });
}

// No IPv6 spelling of a forbidden IPv4 address passes: mapped, compatible, NAT64 and 6to4 forms
// are the kind of the address they carry, and carry a public one through.
TEST(AddressScreenTest, Ipv6FormsOfIpv4AddressesAreTheKindOfTheIpv4Address) {
  ExpectKinds({
      {"::ffff:127.0.0.1", AddressKind::kLoopback},
      {"::ffff:7f00:1", AddressKind::kLoopback},
      {"::ffff:169.254.169.254", AddressKind::kMetadata},
      {"::ffff:10.1.2.3", AddressKind::kPrivate},
      {"::127.0.0.1", AddressKind::kLoopback},
      {"64:ff9b::a9fe:a9fe", AddressKind::kMetadata},  // NAT64 of 169.254.169.254
      {"64:ff9b::c0a8:101", AddressKind::kPrivate},    // NAT64 of 192.168.1.1
      {"2002:7f00:1::", AddressKind::kLoopback},       // 6to4 of 127.0.0.1
      {"2002:a00:1::1", AddressKind::kPrivate},        // 6to4 of 10.0.0.1
      {"::ffff:8.8.8.8", AddressKind::kPublic},
      {"64:ff9b::808:808", AddressKind::kPublic},
  });
}

// HttpConnection with Destinations::kPublicOnly screens what the host resolves to before it
// connects: a loopback listener is never connected to, whatever the spelling of its address,
// while the same listener is reached when any destination is allowed.
TEST(AddressScreenTest, APublicOnlyConnectionNeverReachesALoopbackListener) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::acceptor listener(io, {asio::ip::make_address("127.0.0.1"), 0});
  listener.non_blocking(true);
  const std::string port = std::to_string(listener.local_endpoint().port());
  const auto pending_connection = [&] {
    asio::ip::tcp::socket accepted(io);
    boost::system::error_code ec;
    listener.accept(accepted, ec);
    return !ec;
  };
  const auto exchange = [&](const std::string& host, Destinations destinations) {
    HttpConnection connection(ParseWebUrl("http://" + host + ":" + port + "/hook", "UNUSED"),
                              nullptr, std::chrono::milliseconds(5000), destinations);
    HttpRequest request(boost::beast::http::verb::post, "/hook", 11);
    connection.Exchange(request, std::chrono::milliseconds(200), 1024);
  };
  for (const std::string host :
       {"127.0.0.1", "localhost", "2130706433", "0x7f000001", "127.1", "[::ffff:127.0.0.1]"}) {
    try {
      exchange(host, Destinations::kPublicOnly);
      ADD_FAILURE() << host << " was not refused";
    } catch (const UnsafeDestinationError& error) {
      EXPECT_NE(std::string(error.what()).find("loopback"), std::string::npos) << error.what();
    } catch (const HttpTransportError& error) {
      // "localhost" may resolve to ::1 only, which is refused as well; any other failure is not.
      ADD_FAILURE() << host << ": " << error.what();
    }
    EXPECT_FALSE(pending_connection()) << host << " reached the listener";
  }
  // The listener answers nothing, so the exchange times out: after connecting.
  EXPECT_THROW(exchange("127.0.0.1", Destinations::kAny), HttpTransportError);
  EXPECT_TRUE(pending_connection());
}

}  // namespace
}  // namespace docgate
