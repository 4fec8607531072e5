#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

// The smallest max_bytes accepted: room for several code points of up to 4 bytes each.
inline constexpr std::size_t kMinChunkBytes = 16;

struct ChunkerConfig {
  std::size_t max_bytes = 1000;     // upper bound of a chunk's size, in bytes of UTF-8
  std::size_t overlap_bytes = 150;  // how much of a chunk's end the next chunk repeats; < max_bytes
};

// `text` without its leading and trailing ASCII whitespace (space, \t, \n, \r, \f, \v), the
// whitespace every chunker of docgate trims its chunks of.
std::string_view TrimmedOfAsciiSpace(std::string_view text);

// Why `config` cannot be used (a one-line message naming the field), or nullopt when it can:
// max_bytes must be at least kMinChunkBytes and overlap_bytes less than max_bytes.
std::optional<std::string> ValidateChunkerConfig(const ChunkerConfig& config);

// Splits `content` (valid UTF-8) into chunks for indexing. Paragraph-aware: paragraphs (separated
// by blank lines) are packed whole into a chunk while they fit; a paragraph longer than max_bytes
// is cut at sentence ends, else at spaces, else at code point boundaries, with each piece after the
// first starting with up to overlap_bytes of the previous piece's end (from a word start when
// there is one). Every chunk is non-empty, at most max_bytes, valid UTF-8, and trimmed of
// surrounding whitespace; content of only whitespace yields no chunk. Deterministic: the same
// content and config always yield the same chunks.
//
// In detail:
// - Whitespace is ASCII whitespace (space, \t, \n, \r, \f, \v). CRLF line endings are read as LF,
//   so a text gives the same chunks with either. A blank line is a line of only whitespace.
// - Paragraphs are trimmed, keep their inner text as written (single line breaks included), and
//   are packed in order, joined by one blank line ("\n\n", counted in max_bytes). Chunks of whole
//   paragraphs do not overlap.
// - A paragraph longer than max_bytes ends the chunk being packed; its pieces are chunks of their
//   own, and the next paragraph starts a new chunk. Each piece is as long as the rules allow: it
//   ends at the last sentence end within max_bytes of its start (after . ! ? or an ellipsis
//   followed by whitespace, or after 。！？; closing quotes and brackets stay with the sentence),
//   else before the last whitespace, else at the last code point boundary.
// - The overlap of a piece is a proper suffix of the previous piece of at most overlap_bytes,
//   starting at its first word start in that range, else at a code point boundary when the range
//   is inside one long word. It is shortened, to nothing if need be, so that it never makes the
//   piece cut a word that it could have kept whole, and never leaves it without new text. So a
//   word of at most max_bytes is never cut, and every piece ends further into the paragraph than
//   the previous one.
// Linear on every input: its time is proportional to the content's size plus the chunks' total
// size (a piece's overlap is copied again), whatever the text holds (runs of closers or full
// stops, one long word, no whitespace at all, any script, bytes that are not UTF-8).
// Throws std::invalid_argument (with ValidateChunkerConfig's message) when `config` is invalid.
std::vector<std::string> SplitIntoChunks(std::string_view content, const ChunkerConfig& config);

// SplitIntoChunks's chunks when there are at most `max_chunks` of them, else nullopt. It gives up
// at chunk max_chunks + 1, so its time is bounded by the content's size plus max_chunks + 1
// chunks of at most max_bytes each, however many chunks the whole content would make.
// Throws like SplitIntoChunks.
std::optional<std::vector<std::string>> SplitIntoChunksUpTo(std::string_view content,
                                                            const ChunkerConfig& config,
                                                            std::size_t max_chunks);

}  // namespace docgate
