#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace docgate {

// The limits of an import and its conversion (DOCGATE_IMPORT_*, docs/configuration.md).
struct ImportConfig {
  std::size_t max_bytes = 20 * 1024 * 1024;         // a larger file is 413
  std::chrono::milliseconds timeout{30'000};        // a converter running longer is killed
  std::size_t memory_bytes = std::size_t{2} << 30;  // a converter's address space
  std::size_t max_output_bytes = 8 * 1024 * 1024;   // the Markdown a converter may write
  // A ZIP (docx, odt) whose entries unpack to more than this in all, or to more than
  // max_zip_ratio times its own size, is a zip bomb.
  std::size_t max_unpacked_bytes = 256 * 1024 * 1024;
  std::uint32_t max_zip_ratio = 100;
  std::string pandoc = "pandoc";        // a path, or a name looked up on PATH
  std::string pdftotext = "pdftotext";  // poppler-utils
};

// What is wrong with `config`, or nullopt.
std::optional<std::string> ValidateImportConfig(const ImportConfig& config);

}  // namespace docgate
