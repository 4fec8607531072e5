#pragma once

// multipart/form-data (RFC 7578) as the import route receives it. Written by hand: Beast reads
// HTTP messages but not their multipart bodies, and no Debian package parses them for C++
// (docs/adr/0001). The parts are views into the body.

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace docgate {

struct FormPart {
  std::string name;      // Content-Disposition's `name`
  std::string filename;  // its `filename` (or `filename*`, RFC 5987), empty when absent
  bool has_filename = false;
  std::string content_type;  // the part's Content-Type, empty when absent
  std::string_view body;
};

// At most this many parts, and this many bytes of headers in one part.
inline constexpr std::size_t kMaxFormParts = 16;
inline constexpr std::size_t kMaxPartHeaderBytes = 8192;

// The parts of `body`, sent with the request's `content_type`. VALIDATION, saying what is wrong,
// for a content type that is not multipart/form-data with a boundary, or a body that does not
// follow it (no closing delimiter, a part without Content-Disposition: form-data and a name, too
// many parts or headers).
Result<std::vector<FormPart>> ParseMultipartForm(std::string_view content_type,
                                                 std::string_view body);

}  // namespace docgate
