#pragma once

#include <string>
#include <string_view>

#include "app/ports/digest.h"

namespace docgate {

// The key of a chunk's text for its embedding (ADR 0010): the SHA-256 of the text after Unicode
// NFC normalisation, so that the same words typed with composed or decomposed characters share one
// vector. Text that is not valid UTF-8 is hashed as it is.
std::string EmbeddingTextKey(const Digest& digest, std::string_view text);

}  // namespace docgate
