#include "adapters/mongo/mongo_config.h"

#include "adapters/mongo/mongo_uri.h"
#include "core/config_check.h"

namespace docgate {

std::optional<std::string> ValidateMongoConfig(const MongoConfig& config) {
  if (!config.uri.empty()) {
    if (auto problem = ValidateMongoUri(config.uri)) return "DOCGATE_MONGODB_URI: " + *problem;
  }
  return ConfigCheck()
      .Positive("DOCGATE_MONGODB_CONNECT_TIMEOUT_MS", config.connect_timeout)
      .Positive("DOCGATE_MONGODB_TIMEOUT_MS", config.operation_timeout)
      .Problem();
}

}  // namespace docgate
