#pragma once

#include <string_view>
#include <vector>

namespace docgate {

// A file compiled into the binary (migrations, the OpenAPI document), see cmake/EmbedFiles.cmake.
struct EmbeddedFile {
  std::string_view name;     // e.g. "0001_init.sql"
  std::string_view content;
};

}  // namespace docgate
