// amqp:// and amqps:// URLs as the event sink reads DOCGATE_AMQP_URL.

#include "adapters/amqp/amqp_url.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace docgate {
namespace {

std::string RefusalOf(const std::string& url) {
  try {
    ParseAmqpUrl(url, 30);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << url << " was accepted";
  return {};
}

TEST(AmqpUrl, DefaultsForABareHost) {
  const auto plain = ParseAmqpUrl("amqp://rabbit", 30);
  EXPECT_EQ(plain, (AmqpEndpoint{.tls = false,
                                 .host = "rabbit",
                                 .port = 5672,
                                 .user = "guest",
                                 .password = "guest",
                                 .vhost = "/",
                                 .heartbeat_seconds = 30}));
  const auto tls = ParseAmqpUrl("amqps://rabbit", 0);
  EXPECT_TRUE(tls.tls);
  EXPECT_EQ(tls.port, 5671);
  EXPECT_EQ(tls.heartbeat_seconds, 0);
  EXPECT_EQ(ParseAmqpUrl("amqp://rabbit/", 30).vhost, "/");
}

TEST(AmqpUrl, EveryPartPercentDecoded) {
  const auto endpoint = ParseAmqpUrl(
      "amqps://app%3Aone:p%40ss%2Fw0rd@mq.example.com:5999/prod%2Fevents?heartbeat=7", 30);
  EXPECT_TRUE(endpoint.tls);
  EXPECT_EQ(endpoint.host, "mq.example.com");
  EXPECT_EQ(endpoint.port, 5999);
  EXPECT_EQ(endpoint.user, "app:one");
  EXPECT_EQ(endpoint.password, "p@ss/w0rd");
  EXPECT_EQ(endpoint.vhost, "prod/events");
  EXPECT_EQ(endpoint.heartbeat_seconds, 7);
  EXPECT_EQ(ParseAmqpUrl("amqp://h/%2F", 30).vhost, "/");
  EXPECT_EQ(ParseAmqpUrl("amqp://h/%2f", 30).vhost, "/");
  EXPECT_EQ(ParseAmqpUrl("amqp://h/staging", 30).vhost, "staging");
}

TEST(AmqpUrl, UserWithoutPasswordAndEmptyUserinfo) {
  const auto user_only = ParseAmqpUrl("amqp://bob@h", 30);
  EXPECT_EQ(user_only.user, "bob");
  EXPECT_EQ(user_only.password, "");
  const auto empty_password = ParseAmqpUrl("amqp://bob:@h", 30);
  EXPECT_EQ(empty_password.password, "");
}

TEST(AmqpUrl, Ipv6LiteralsAndHostPort) {
  const auto endpoint = ParseAmqpUrl("amqp://[::1]:5673/v", 30);
  EXPECT_EQ(endpoint.host, "::1");
  EXPECT_EQ(endpoint.port, 5673);
  EXPECT_EQ(HostPort(endpoint), "[::1]:5673");
  EXPECT_EQ(ParseAmqpUrl("amqps://[fe80::2]", 30).port, 5671);
  EXPECT_EQ(HostPort(ParseAmqpUrl("amqp://u:secret@h:1", 30)), "h:1");
}

TEST(AmqpUrl, HeartbeatQuery) {
  EXPECT_EQ(ParseAmqpUrl("amqp://h?heartbeat=0", 30).heartbeat_seconds, 0);
  EXPECT_EQ(ParseAmqpUrl("amqp://h/?heartbeat=65535", 30).heartbeat_seconds, 65535);
  EXPECT_EQ(ParseAmqpUrl("amqp://h:1/v?", 30).heartbeat_seconds, 30);
  EXPECT_EQ(ParseAmqpUrl("amqp://h?heartbeat=5&heartbeat=6", 30).heartbeat_seconds, 6);
}

TEST(AmqpUrl, RefusalsSayWhatIsWrong) {
  const std::string bad_port = "the port must be a number in 1..65535, not ";
  const std::string bad_escape = "bad percent escape in the vhost (use %XX with two hex digits)";
  const std::string bad_heartbeat = "heartbeat must be a number of seconds in 0..65535, not ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"http://h", "the scheme must be amqp:// or amqps://"},
      {"AMQP://h", "the scheme must be amqp:// or amqps://"},
      {"rabbit:5672", "the scheme must be amqp:// or amqps://"},
      {"amqp://", "no host"},
      {"amqp://u:p@:5672", "no host"},
      {"amqp://h:0", bad_port + "'0'"},
      {"amqp://h:65536", bad_port + "'65536'"},
      {"amqp://h:56x", bad_port + "'56x'"},
      {"amqp://h:", bad_port + "''"},
      {"amqp://h:-1", bad_port + "'-1'"},
      {"amqp://[::1", "unclosed [ in the host"},
      {"amqp://[::1]x", "junk after the IPv6 host"},
      {"amqp://h/a/b", "the vhost is one path segment: write '/' inside it as %2F"},
      {"amqp://h/%2", bad_escape},
      {"amqp://h/%zz", bad_escape},
      {"amqp://h?frame_max=4096",
       "unknown query parameter 'frame_max' (only heartbeat is supported)"},
      {"amqp://h?heartbeat", bad_heartbeat + "''"},
      {"amqp://h?heartbeat=-1", bad_heartbeat + "'-1'"},
      {"amqp://h?heartbeat=65536", bad_heartbeat + "'65536'"},
      {"amqp://h?heartbeat=1s", bad_heartbeat + "'1s'"},
  };
  for (const auto& [url, refusal] : cases) EXPECT_EQ(RefusalOf(url), refusal) << url;
}

TEST(AmqpUrl, ARefusalNeverEchoesThePassword) {
  const std::string refusal = RefusalOf("amqp://u:hunter2%zz@h");
  EXPECT_EQ(refusal, "bad percent escape in the password (use %XX with two hex digits)");
  EXPECT_EQ(RefusalOf("amqp://u:hunter2@h:99999").find("hunter2"), std::string::npos);
}

}  // namespace
}  // namespace docgate
