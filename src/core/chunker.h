#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

struct ChunkerConfig {
  std::size_t max_bytes = 1000;     // upper bound of a chunk's size, in bytes of UTF-8
  std::size_t overlap_bytes = 150;  // how much of a chunk's end the next chunk repeats; < max_bytes
};

// Splits `content` (valid UTF-8) into chunks for indexing. Paragraph-aware: paragraphs (separated
// by blank lines) are packed whole into a chunk while they fit; a paragraph longer than max_bytes is
// cut at sentence ends, else at spaces, else at code point boundaries, with each piece after the
// first starting with up to overlap_bytes of the previous piece's end (from a word start when
// there is one). Every chunk is non-empty, at most max_bytes, valid UTF-8, and trimmed of
// surrounding whitespace; content of only whitespace yields no chunk. Deterministic: the same
// content and config always yield the same chunks.
std::vector<std::string> SplitIntoChunks(std::string_view content, const ChunkerConfig& config);

}  // namespace docgate
