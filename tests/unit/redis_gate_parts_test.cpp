// The Redis gate's pure parts: URL parsing and the circuit breaker (time passed in by hand).

#include <gtest/gtest.h>

#include <vector>

#include "adapters/redis/redis_url.h"
#include "core/circuit_breaker.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

TEST(RedisUrl, PartsAndDefaults) {
  const auto plain = ParseRedisUrl("redis://cache:6380/2");
  EXPECT_FALSE(plain.tls);
  EXPECT_EQ(plain.host, "cache");
  EXPECT_EQ(plain.port, "6380");
  EXPECT_EQ(plain.db, 2);
  EXPECT_TRUE(plain.user.empty());
  EXPECT_TRUE(plain.password.empty());

  const auto tls = ParseRedisUrl("rediss://app:p%40ss@[::1]");
  EXPECT_TRUE(tls.tls);
  EXPECT_EQ(tls.host, "::1");
  EXPECT_EQ(tls.port, "6379");
  EXPECT_EQ(tls.user, "app");
  EXPECT_EQ(tls.password, "p@ss");
  EXPECT_EQ(tls.db, 0);

  const auto password_only = ParseRedisUrl("redis://:secret@127.0.0.1:7000");
  EXPECT_EQ(password_only.user, "");
  EXPECT_EQ(password_only.password, "secret");
}

TEST(RedisUrl, MalformedIsRefusedWithoutEchoingThePassword) {
  EXPECT_THROW(ParseRedisUrl("http://cache"), std::invalid_argument);
  EXPECT_THROW(ParseRedisUrl("redis://"), std::invalid_argument);
  EXPECT_THROW(ParseRedisUrl("redis://cache:0"), std::invalid_argument);
  EXPECT_THROW(ParseRedisUrl("redis://cache/x"), std::invalid_argument);
  try {
    ParseRedisUrl("redis://u:hunter2@cache:99999");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos);
  }
}

TEST(RedisUrl, SentinelsAndTheMastersName) {
  const auto sentinels =
      ParseRedisUrl("redis+sentinel://app:p%40ss@s1:26380,s2,[::1]:26381/mymaster/3");
  EXPECT_TRUE(sentinels.UsesSentinels());
  EXPECT_FALSE(sentinels.tls);
  EXPECT_EQ(sentinels.sentinels,
            (std::vector<RedisAddress>{{"s1", "26380"}, {"s2", "26379"}, {"::1", "26381"}}));
  EXPECT_EQ(sentinels.master_name, "mymaster");
  EXPECT_EQ(sentinels.db, 3);
  EXPECT_EQ(sentinels.user, "app");
  EXPECT_EQ(sentinels.password, "p@ss");
  EXPECT_TRUE(sentinels.host.empty()) << "the Sentinels name the master's host";
  EXPECT_EQ(RedisUrlForLogs(sentinels), "redis+sentinel://s1:26380,s2:26379,[::1]:26381/mymaster");

  const auto tls = ParseRedisUrl("rediss+sentinel://one/primary");
  EXPECT_TRUE(tls.tls);
  EXPECT_EQ(tls.sentinels, (std::vector<RedisAddress>{{"one", "26379"}}));
  EXPECT_EQ(tls.master_name, "primary");
  EXPECT_EQ(tls.db, 0);

  EXPECT_FALSE(ParseRedisUrl("redis://cache").UsesSentinels());
  EXPECT_EQ(RedisUrlForLogs(ParseRedisUrl("redis://u:hunter2@cache")), "redis://cache:6379");
}

TEST(RedisUrl, SentinelUrlsWithoutAMasterOrWithAnEmptyHostAreRefused) {
  for (const char* url :
       {"redis+sentinel://s1:26379", "redis+sentinel://s1:26379/", "redis+sentinel://s1,,s2/m",
        "redis+sentinel:///m", "redis+sentinel://s1:0/m", "redis+sentinel://s1/m/x",
        "redis+sentinel://s1/m/-1", "sentinel://s1/m"}) {
    EXPECT_THROW(ParseRedisUrl(url), std::invalid_argument) << url;
  }
  try {
    ParseRedisUrl("redis+sentinel://u:hunter2@s1/");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/mymaster"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos);
  }
}

TEST(CircuitBreaker, OpensOnFailureProbesOnceAndBacksOffUpToTheCap) {
  CircuitBreaker breaker(250ms, 1s);
  const CircuitBreaker::Clock::time_point t0{};
  EXPECT_TRUE(breaker.Allow(t0));
  EXPECT_TRUE(breaker.Failed(t0));
  EXPECT_FALSE(breaker.closed());
  EXPECT_FALSE(breaker.Allow(t0 + 249ms));
  EXPECT_FALSE(breaker.Failed(t0 + 10ms));  // a concurrent failure does not lengthen it
  EXPECT_TRUE(breaker.Allow(t0 + 250ms));   // the probe
  EXPECT_FALSE(breaker.Allow(t0 + 250ms));  // everyone else waits for it
  breaker.Failed(t0 + 300ms);               // 500 ms now
  EXPECT_FALSE(breaker.Allow(t0 + 799ms));
  EXPECT_TRUE(breaker.Allow(t0 + 800ms));
  breaker.Failed(t0 + 800ms);  // 1 s
  EXPECT_TRUE(breaker.Allow(t0 + 1800ms));
  breaker.Failed(t0 + 1800ms);  // capped at 1 s
  EXPECT_FALSE(breaker.Allow(t0 + 2799ms));
  EXPECT_TRUE(breaker.Allow(t0 + 2800ms));
  EXPECT_TRUE(breaker.Succeeded());
  EXPECT_TRUE(breaker.closed());
  EXPECT_TRUE(breaker.Allow(t0 + 2800ms));
  EXPECT_FALSE(breaker.Succeeded());
  breaker.Failed(t0 + 3s);  // back to the initial interval
  EXPECT_TRUE(breaker.Allow(t0 + 3250ms));
}

}  // namespace
}  // namespace docgate
