// ValidateHttpConfig and IsIpLiteral, declared in http_server.h beside HttpConfig.

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <limits>

#include "adapters/http/http_server.h"
#include "core/config_check.h"

namespace docgate {

bool IsIpLiteral(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

std::optional<std::string> ValidateHttpConfig(const HttpConfig& config) {
  return ConfigCheck()
      .Require(IsIpLiteral(config.address),
               "the listen address must be an IP address, got '" + config.address + "'")
      .Range("DOCGATE_HTTP_IO_THREADS", config.io_threads, 1, 256)
      .Range("DOCGATE_HTTP_WORKERS", config.worker_threads, 1, 1024)
      .Positive("DOCGATE_HTTP_READ_TIMEOUT_MS", config.read_timeout)
      .Positive("DOCGATE_HTTP_HEADER_TIMEOUT_MS", config.header_timeout)
      .Range<std::size_t>("DOCGATE_HTTP_BODY_LIMIT", config.body_limit, 1, std::size_t{1} << 30)
      .Range<std::size_t>("DOCGATE_HTTP_MAX_CONNECTIONS", config.max_connections, 1, 1000000)
      .Range<std::size_t>("DOCGATE_HTTP_QUEUE_LIMIT", config.queue_limit, 1, 1000000)
      .Positive("DOCGATE_HTTP_QUEUE_TIMEOUT_MS", config.queue_timeout)
      .Range<std::int64_t>("DOCGATE_SHUTDOWN_GRACE_MS", config.shutdown_grace.count(), 0,
                           std::numeric_limits<std::int64_t>::max())
      .Problem();
}

}  // namespace docgate
