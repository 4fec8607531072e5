#include "adapters/convert/import_config.h"

#include "core/config_check.h"

namespace docgate {

std::optional<std::string> ValidateImportConfig(const ImportConfig& config) {
  return ConfigCheck()
      .Range<std::size_t>("DOCGATE_IMPORT_MAX_BYTES", config.max_bytes, 1, std::size_t{1} << 30)
      .Positive("DOCGATE_IMPORT_TIMEOUT_MS", config.timeout)
      .Range<std::size_t>("DOCGATE_IMPORT_MEMORY_BYTES", config.memory_bytes, std::size_t{64} << 20,
                          std::size_t{1} << 40)
      .Range<std::size_t>("DOCGATE_IMPORT_MAX_OUTPUT_BYTES", config.max_output_bytes, 1024,
                          std::size_t{1} << 30)
      .Problem();
}

}  // namespace docgate
