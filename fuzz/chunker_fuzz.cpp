// Invariant: SplitIntoChunks (core/chunker.h), for any content and any valid config, gives
// chunks that are each non-empty, at most max_bytes, trimmed of whitespace, and valid UTF-8 when
// the content is; they appear in the (CRLF -> LF) text in order, paragraph by paragraph, and
// together cover every byte of it that is not whitespace; the same input gives the same chunks;
// and SplitIntoChunksUpTo gives them too when there are at most max_chunks, else nullopt.
// Input: 2 bytes of max_bytes, 2 of overlap_bytes and 1 of max_chunks (folded into valid ranges:
// the config is always valid), then the content.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/chunker.h"
#include "core/utf8.h"
#include "fuzz_support.h"

namespace {

using docgate::fuzz::AsText;
using docgate::fuzz::ByteReader;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string WithLfLineEndings(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) out += text[i];
  }
  return out;
}

// A chunk's parts: the paragraphs it packs, joined by a blank line, or the one piece it is.
std::vector<std::string_view> Parts(std::string_view chunk) {
  return docgate::fuzz::Split(chunk, "\n\n");
}

// The chunks' parts occur in `text` in order: each part no earlier than the previous chunk's
// first part, and the parts of one chunk one after the other. Leftmost matching finds such an
// order whenever there is one.
bool InOrder(const std::vector<std::string>& chunks, std::string_view text) {
  std::size_t chunk_start = 0;
  for (const std::string& chunk : chunks) {
    std::size_t from = chunk_start;
    bool first = true;
    for (const std::string_view part : Parts(chunk)) {
      const auto at = text.find(part, from);
      if (at == std::string_view::npos) return false;
      if (first) chunk_start = at;
      first = false;
      from = at + part.size();
    }
  }
  return true;
}

// Every non-whitespace byte of `text` lies in a part of a chunk. Each part is placed at its last
// occurrence that leaves no non-whitespace byte uncovered before it: placing it later never
// covers less, so this finds a covering whenever there is one.
bool Covers(const std::vector<std::string>& chunks, std::string_view text) {
  const auto next_non_space = [&](std::size_t at) {
    while (at < text.size() && IsSpace(text[at])) ++at;
    return at;
  };
  std::size_t covered = 0;  // every non-whitespace byte before it is covered
  for (const std::string& chunk : chunks) {
    for (const std::string_view part : Parts(chunk)) {
      const std::size_t reach = next_non_space(covered);
      const auto at = text.rfind(part, reach);
      if (at == std::string_view::npos) return false;
      covered = std::max(covered, at + part.size());
    }
  }
  return next_non_space(covered) == text.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader input(AsText(data, size));
  docgate::ChunkerConfig config;
  config.max_bytes = docgate::kMinChunkBytes + input.Word() % 2048;
  config.overlap_bytes = input.Word() % config.max_bytes;
  const std::size_t max_chunks = input.Byte();
  const std::string_view content = input.Rest();

  const auto chunks = docgate::SplitIntoChunks(content, config);
  const std::string text = WithLfLineEndings(content);
  const bool utf8 = docgate::Utf8Length(content).has_value();
  for (const std::string& chunk : chunks) {
    FUZZ_CHECK(!chunk.empty());
    FUZZ_CHECK(chunk.size() <= config.max_bytes);
    FUZZ_CHECK(!IsSpace(chunk.front()) && !IsSpace(chunk.back()));
    if (utf8) FUZZ_CHECK(docgate::Utf8Length(chunk).has_value(), chunk);
  }
  FUZZ_CHECK(InOrder(chunks, text));
  FUZZ_CHECK(Covers(chunks, text));
  FUZZ_CHECK(docgate::SplitIntoChunks(content, config) == chunks);
  const auto up_to = docgate::SplitIntoChunksUpTo(content, config, max_chunks);
  if (chunks.size() <= max_chunks) {
    FUZZ_CHECK(up_to.has_value() && *up_to == chunks);
  } else {
    FUZZ_CHECK(!up_to.has_value());
  }
  return 0;
}
