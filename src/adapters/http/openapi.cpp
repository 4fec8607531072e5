#include "adapters/http/openapi.h"

#include <vector>

#include "core/embedded_file.h"

namespace docgate {

extern const std::vector<EmbeddedFile> kOpenApiDocuments;

std::string_view OpenApiDocument() { return kOpenApiDocuments.at(0).content; }

}  // namespace docgate
