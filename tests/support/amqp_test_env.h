#pragma once

// The broker the AMQP integration tests run against, and URLs that reach it another way. Header-
// only, test use only.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <string>

namespace docgate {

// An environment variable the tests need; a missing one fails the test (nothing is skipped).
inline std::string RequiredEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    ADD_FAILURE() << name << " is not set; run the tests through `make test`, or start a broker "
                  << "with `eval \"$(bash scripts/services.sh start)\"` first";
    return {};
  }
  return value;
}

// The URL of the broker behind 127.0.0.1:port (a proxy), same credentials, vhost and query.
inline std::string ThroughPort(const std::string& url, int port) {
  const auto authority = url.find("://") + 3;
  const auto end = url.find_first_of("/?", authority);
  const auto at = url.find('@', authority);
  const auto host = at != std::string::npos && at < end ? at + 1 : authority;
  return url.substr(0, host) + "127.0.0.1:" + std::to_string(port) +
         (end == std::string::npos ? "" : url.substr(end));
}

inline std::string WithQuery(const std::string& url, const std::string& query) {
  return url + (url.find('?') == std::string::npos ? "?" : "&") + query;
}

// A name for the running test's exchange and queues, unique across processes and runs.
inline std::string TestBrokerName() {
  std::random_device random;
  return "docgate.test." + std::to_string(::getpid()) + "." +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "." +
         std::to_string(random());
}

}  // namespace docgate
