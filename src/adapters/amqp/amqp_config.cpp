#include "adapters/amqp/amqp_config.h"

#include <fstream>
#include <stdexcept>

#include "core/config_check.h"

namespace docgate {

std::optional<std::string> ValidateAmqpConfig(const AmqpConfig& config) {
  if (!config.url.empty()) {
    try {
      ParseAmqpUrl(config.url, config.heartbeat_seconds);
    } catch (const std::invalid_argument& e) {
      return std::string(
                 "DOCGATE_AMQP_URL must be amqp://[user:password@]host[:port][/vhost]"
                 "[?heartbeat=SECONDS] or amqps://...: ") +
             e.what();
    }
  }
  return ConfigCheck()
      .Require(config.url.empty() || !config.exchange.empty(),
               "DOCGATE_AMQP_EXCHANGE must not be empty")
      .Positive("DOCGATE_AMQP_CONNECT_TIMEOUT_MS", config.connect_timeout)
      .Positive("DOCGATE_AMQP_CONFIRM_TIMEOUT_MS", config.confirm_timeout)
      .Positive("DOCGATE_AMQP_REQUEST_TIMEOUT_MS", config.request_timeout)
      .Range("DOCGATE_AMQP_PREFETCH", config.prefetch, 1, 65535)
      .Problem();
}

AmqpEndpoint ValidatedEndpoint(const AmqpConfig& config) {
  using std::chrono::milliseconds;
  if (config.exchange.empty()) throw std::invalid_argument("the AMQP exchange must be named");
  if (config.heartbeat_seconds < 0 || config.heartbeat_seconds > 65535) {
    throw std::invalid_argument("the AMQP heartbeat must be 0..65535 seconds");
  }
  if (config.connect_timeout <= milliseconds::zero() ||
      config.confirm_timeout <= milliseconds::zero() ||
      config.request_timeout <= milliseconds::zero() ||
      config.reconnect_initial <= milliseconds::zero() ||
      config.reconnect_max < config.reconnect_initial) {
    throw std::invalid_argument(
        "the AMQP timeouts must be positive, and reconnect_max at least reconnect_initial");
  }
  if (config.prefetch < 1 || config.prefetch > 65535) {
    throw std::invalid_argument("the AMQP prefetch must be 1..65535");
  }
  if (!config.ca_file.empty() && !std::ifstream(config.ca_file)) {
    throw std::invalid_argument("cannot read the AMQP CA file " + config.ca_file);
  }
  try {
    return ParseAmqpUrl(config.url, config.heartbeat_seconds);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("invalid AMQP URL: ") + e.what());
  }
}

}  // namespace docgate
