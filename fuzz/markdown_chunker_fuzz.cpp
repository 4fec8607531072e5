// Invariant: SplitMarkdownIntoChunks (app/markdown_chunker.h), for any content and any valid
// config, gives chunks whose texts are each non-empty, at most max_bytes, trimmed of whitespace,
// and valid UTF-8 when the content is; whose sections are trimmed, on one line, short, and valid
// UTF-8 when the content is; that hold a top-level ATX heading only as their first block; whose
// texts' blocks (the parts between "\n\n") appear in the text (a run of CRs before a LF read as
// LF) in order and together cover every byte of it that is not whitespace (link reference
// definitions, which CommonMark reads as no block, included); on content in which CommonMark
// finds only paragraphs they are SplitIntoChunks's chunks, without a section; the same input
// gives the same chunks; and SplitMarkdownIntoChunksUpTo gives them too when there are at most
// max_chunks, else nullopt.
// Input: 2 bytes of max_bytes, 2 of overlap_bytes and 1 of max_chunks (folded into valid ranges:
// the config is always valid), then the content; as chunker_fuzz.cpp's.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "app/markdown_chunker.h"
#include "core/chunker.h"
#include "core/utf8.h"
#include "fuzz_support.h"

namespace {

using docgate::SectionedChunk;
using docgate::fuzz::AsText;
using docgate::fuzz::ByteReader;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool IsTrimmed(std::string_view text) {
  return text.empty() || (!IsSpace(text.front()) && !IsSpace(text.back()));
}

// Written apart from the chunker's: every CR of a run that a LF ends is dropped.
std::string WithLfLineEndings(std::string_view text) {
  std::string out;
  std::size_t crs = 0;  // the CRs read and not yet written
  for (const char c : text) {
    if (c == '\r') {
      ++crs;
      continue;
    }
    if (c != '\n') out.append(crs, '\r');
    crs = 0;
    out += c;
  }
  out.append(crs, '\r');
  return out;
}

// A chunk's parts: the blocks it packs, joined by a blank line (the blank lines inside a code
// block cut it into more parts, each of them in the text too).
std::vector<std::string_view> Parts(std::string_view chunk) {
  return docgate::fuzz::Split(chunk, "\n\n");
}

// As in chunker_fuzz.cpp: the chunks' parts occur in `text` in order, each chunk's first part no
// earlier than the previous chunk's, by leftmost matching.
bool InOrder(const std::vector<SectionedChunk>& chunks, std::string_view text) {
  std::size_t chunk_start = 0;
  for (const SectionedChunk& chunk : chunks) {
    std::size_t from = chunk_start;
    bool first = true;
    for (const std::string_view part : Parts(chunk.text)) {
      const auto at = text.find(part, from);
      if (at == std::string_view::npos) return false;
      if (first) chunk_start = at;
      first = false;
      from = at + part.size();
    }
  }
  return true;
}

// As in chunker_fuzz.cpp: every non-whitespace byte of `text` lies in a part of a chunk, each
// part placed at its last occurrence that leaves no such byte uncovered before it.
bool Covers(const std::vector<SectionedChunk>& chunks, std::string_view text) {
  const auto next_non_space = [&](std::size_t at) {
    while (at < text.size() && IsSpace(text[at])) ++at;
    return at;
  };
  std::size_t covered = 0;
  for (const SectionedChunk& chunk : chunks) {
    for (const std::string_view part : Parts(chunk.text)) {
      const std::size_t reach = next_non_space(covered);
      const auto at = text.rfind(part, reach);
      if (at == std::string_view::npos) return false;
      covered = std::max(covered, at + part.size());
    }
  }
  return next_non_space(covered) == text.size();
}

// The lines of `text` as CommonMark reads them: a LF or a CR ends one.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (auto at = text.find_first_of("\r\n"); at != std::string_view::npos;
       at = text.find_first_of("\r\n")) {
    lines.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  lines.push_back(text);
  return lines;
}

// Whether `block` (trimmed) starts like an ATX heading: 1 to 6 #, then a space, a tab or its end.
bool IsAtxHeading(std::string_view block) {
  const std::size_t hashes = std::min(block.find_first_not_of('#'), block.size());
  return hashes >= 1 && hashes <= 6 &&
         (hashes == block.size() || block[hashes] == ' ' || block[hashes] == '\t');
}

// Whether every line of `text` that could be a heading is at the top level: no code fence or
// HTML (in which a # line is code or HTML), no # line after whitespace (in a list item or a code
// block, a # line is no section, and a block trimmed would start like one), and no # run then \f
// or \v (no heading, but a chunk that ends with it is trimmed to one).
bool HeadingLinesAtLineStarts(std::string_view text) {
  if (text.find_first_of("`~<") != std::string_view::npos) return false;
  for (const std::string_view line : Lines(text)) {
    const std::size_t hash = line.find_first_not_of(" \t\f\v");
    if (hash == std::string_view::npos || line[hash] != '#') continue;
    if (hash > 0) return false;
    const std::size_t after = line.find_first_not_of('#');
    if (after != std::string_view::npos && (line[after] == '\f' || line[after] == '\v')) {
      return false;
    }
  }
  return true;
}

// No chunk spans two sections: a heading is only ever a chunk's first block. Where every # line
// is at a line's start (HeadingLinesAtLineStarts), every block that starts like an ATX heading is
// one; a piece of a long paragraph may start so too, but a piece is a chunk of its own.
bool HeadingsOnlyFirst(const std::vector<SectionedChunk>& chunks) {
  for (const SectionedChunk& chunk : chunks) {
    const std::vector<std::string_view> parts = Parts(chunk.text);
    for (std::size_t k = 1; k < parts.size(); ++k) {
      if (IsAtxHeading(parts[k])) return false;
    }
  }
  return true;
}

// Whether the chunker may have cut `text` by SplitIntoChunks alone, not trusting the parser with
// it: only when the lines times twice the longest run of container marks or indentation that
// starts a line pass 2^20, or the image openers ("![") times the closing brackets pass 2^22
// (above app/markdown_chunker.cpp's bounds, whatever the content's size).
bool MayBeCutAsPlainText(std::string_view text) {
  const std::vector<std::string_view> lines = Lines(text);
  std::uint64_t prefix = 0;
  for (const std::string_view line : lines) {
    const std::size_t end = line.find_first_not_of(" \t>-+*0123456789.)");
    prefix = std::max<std::uint64_t>(prefix, end == std::string_view::npos ? line.size() : end);
  }
  std::uint64_t openers = 0;
  std::uint64_t brackets = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == ']') ++brackets;
    if (text.substr(at, 2) == "![") ++openers;
  }
  return lines.size() * 2 * prefix >= (1u << 20) || openers * brackets >= (1u << 22);
}

// Whether `chunks` are SplitIntoChunks's of `text`, without a section.
bool ArePlainChunks(const std::vector<SectionedChunk>& chunks, std::string_view text,
                    const docgate::ChunkerConfig& config) {
  const auto plain = docgate::SplitIntoChunks(text, config);
  if (plain.size() != chunks.size()) return false;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    if (!chunks[k].section.empty() || chunks[k].text != plain[k]) return false;
  }
  return true;
}

// Content in which CommonMark finds only paragraphs, split alike by both chunkers: none of the
// bytes that make its other blocks (headings, fences, breaks, setext underlines, lists, block
// quotes, HTML, tables, link reference definitions), no ordered list marker, no line indented by
// a tab or 4 spaces (code), no \f or \v (a line of them is not blank to CommonMark) and no CR but
// before a LF (any other ends a line to CommonMark, not to SplitIntoChunks).
bool IsPlainText(std::string_view content) {
  if (content.find_first_of("#`~=-_*|>+<[\f\v") != std::string_view::npos) return false;
  for (std::size_t cr = content.find('\r'); cr != std::string_view::npos;
       cr = content.find('\r', cr + 1)) {
    if (cr + 1 == content.size() || content[cr + 1] != '\n') return false;
  }
  for (const std::string_view line : docgate::fuzz::Split(content, "\n")) {
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string_view::npos) continue;
    if (indent > 3 || line[indent] == '\t') return false;
    const std::size_t digits = line.find_first_not_of("0123456789", indent);
    if (digits > indent && digits < line.size() && (line[digits] == '.' || line[digits] == ')')) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader input(AsText(data, size));
  docgate::ChunkerConfig config;
  config.max_bytes = docgate::kMinChunkBytes + input.Word() % 2048;
  config.overlap_bytes = input.Word() % config.max_bytes;
  const std::size_t max_chunks = input.Byte();
  const std::string_view content = input.Rest();

  const auto chunks = docgate::SplitMarkdownIntoChunks(content, config);
  const std::string text = WithLfLineEndings(content);
  const bool utf8 = docgate::Utf8Length(content).has_value();
  for (const SectionedChunk& chunk : chunks) {
    FUZZ_CHECK(!chunk.text.empty());
    FUZZ_CHECK(chunk.text.size() <= config.max_bytes, chunk.text);
    FUZZ_CHECK(IsTrimmed(chunk.text), chunk.text);
    FUZZ_CHECK(IsTrimmed(chunk.section), chunk.section);
    FUZZ_CHECK(chunk.section.find('\n') == std::string::npos, chunk.section);
    FUZZ_CHECK(chunk.section.size() <= 6 * docgate::kMaxSectionHeadingBytes + 5 * 3, chunk.section);
    if (utf8) {
      FUZZ_CHECK(docgate::Utf8Length(chunk.text).has_value(), chunk.text);
      FUZZ_CHECK(docgate::Utf8Length(chunk.section).has_value(), chunk.section);
    }
  }
  FUZZ_CHECK(InOrder(chunks, text));
  FUZZ_CHECK(Covers(chunks, text));
  if (HeadingLinesAtLineStarts(text) &&
      !(MayBeCutAsPlainText(text) && ArePlainChunks(chunks, text, config))) {
    FUZZ_CHECK(HeadingsOnlyFirst(chunks));
  }
  if (IsPlainText(content)) {
    const auto plain = docgate::SplitIntoChunks(content, config);
    FUZZ_CHECK(plain.size() == chunks.size());
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      FUZZ_CHECK(chunks[k].section.empty() && chunks[k].text == plain[k], chunks[k].text);
    }
  }
  FUZZ_CHECK(docgate::SplitMarkdownIntoChunks(content, config) == chunks);
  const auto up_to = docgate::SplitMarkdownIntoChunksUpTo(content, config, max_chunks);
  if (chunks.size() <= max_chunks) {
    FUZZ_CHECK(up_to.has_value() && *up_to == chunks);
  } else {
    FUZZ_CHECK(!up_to.has_value());
  }
  return 0;
}
