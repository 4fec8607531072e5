// The Redis gate's pure parts: URL parsing (the Sentinels' credentials included) and the circuit
// breaker (time passed in by hand).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/redis/redis_config.h"
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

TEST(RedisUrl, TheSentinelsCredentialsAreParametersApartFromTheMasters) {
  const auto both = ParseRedisUrl(
      "redis+sentinel://app:master%40pw@s1,s2:26380/mymaster/2"
      "?sentinel_username=watch%20er&sentinel_password=s%26cret%3D1");
  EXPECT_EQ(both.user, "app");
  EXPECT_EQ(both.password, "master@pw");
  EXPECT_EQ(both.sentinel_user, "watch er");
  EXPECT_EQ(both.sentinel_password, "s&cret=1");
  EXPECT_EQ(both.master_name, "mymaster");
  EXPECT_EQ(both.db, 2);
  EXPECT_EQ(both.sentinels, (std::vector<RedisAddress>{{"s1", "26379"}, {"s2", "26380"}}));
  EXPECT_EQ(RedisUrlForLogs(both), "redis+sentinel://s1:26379,s2:26380/mymaster");

  // A password alone (the Sentinels' requirepass), over TLS, with no master credentials and no
  // path after the master's name; the order of the parameters does not matter.
  const auto password_only = ParseRedisUrl("rediss+sentinel://s1/m?sentinel_password=pw");
  EXPECT_TRUE(password_only.tls);
  EXPECT_EQ(password_only.master_name, "m");
  EXPECT_TRUE(password_only.sentinel_user.empty());
  EXPECT_EQ(password_only.sentinel_password, "pw");
  EXPECT_TRUE(password_only.password.empty());
  const auto swapped =
      ParseRedisUrl("redis+sentinel://s1/m?sentinel_password=p&sentinel_username=u");
  EXPECT_EQ(swapped.sentinel_user, "u");
  EXPECT_EQ(swapped.sentinel_password, "p");

  const auto none = ParseRedisUrl("redis+sentinel://u:p@s1/m");
  EXPECT_TRUE(none.sentinel_user.empty());
  EXPECT_TRUE(none.sentinel_password.empty()) << "the master's password is not the Sentinels'";
}

TEST(RedisUrl, UnknownOrMalformedParametersAreRefusedWithoutEchoingValues) {
  const auto reason = [](const std::string& url) {
    try {
      ParseRedisUrl(url);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(reason("redis+sentinel://s1/m?sentinel_pasword=hunter2"),
            "unknown parameter sentinel_pasword; the parameters are sentinel_username and "
            "sentinel_password");
  EXPECT_EQ(reason("redis+sentinel://s1/m?hunter2!"),
            "unknown parameter; the parameters are sentinel_username and sentinel_password")
      << "what is no name may be a secret pasted alone";
  EXPECT_EQ(reason("redis://cache?sentinel_password=hunter2"),
            "sentinel_password is for redis+sentinel:// and rediss+sentinel:// URLs only");
  EXPECT_EQ(reason("redis+sentinel://s1/m?sentinel_password"), "sentinel_password needs a value");
  EXPECT_EQ(reason("redis+sentinel://s1/m?sentinel_password="),
            "sentinel_password must not be empty");
  EXPECT_EQ(reason("redis+sentinel://s1/m?sentinel_password=hunter2&sentinel_password=other"),
            "sentinel_password is given twice");
  EXPECT_EQ(reason("redis+sentinel://s1/m?sentinel_username=watcher"),
            "sentinel_username needs sentinel_password");
  EXPECT_EQ(reason("redis+sentinel://s1/m?db=1"),
            "unknown parameter db; the parameters are sentinel_username and sentinel_password");

  const auto problem = ValidateRedisConfig([] {
    RedisConfig config;
    config.url = "redis+sentinel://u:master-pw@s1/m?sentinel_password=hunter2&timeout=5";
    return config;
  }());
  ASSERT_TRUE(problem);
  EXPECT_TRUE(problem->starts_with("DOCGATE_REDIS_URL must be ")) << *problem;
  EXPECT_TRUE(problem->ends_with(
      ": unknown parameter timeout; the parameters are sentinel_username and sentinel_password"))
      << *problem;
  EXPECT_EQ(problem->find("hunter2"), std::string::npos) << *problem;
  EXPECT_EQ(problem->find("master-pw"), std::string::npos) << *problem;
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
