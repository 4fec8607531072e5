#include "adapters/amqp/amqp_config.h"

#include <fstream>
#include <stdexcept>

namespace docgate {

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
