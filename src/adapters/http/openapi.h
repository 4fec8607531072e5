#pragma once

// docgate's OpenAPI 3.1 document (shared/API.md as OpenAPI), written once as
// src/adapters/http/openapi.json and compiled into the binary (cmake/EmbedFiles.cmake).

#include <string_view>

namespace docgate {

// The document's JSON text, exactly as in the repository. Valid for the life of the program.
std::string_view OpenApiDocument();

}  // namespace docgate
