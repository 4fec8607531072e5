#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/chunker.h"

namespace docgate {

// The most bytes of a heading's text that a section path holds: a longer text is cut to its
// first kMaxSectionHeadingBytes bytes (at a code point boundary), so that a section, copied into
// every chunk of its section, stays short whatever the headings.
inline constexpr std::size_t kMaxSectionHeadingBytes = 256;

// A chunk of a Markdown text and the section it belongs to.
struct SectionedChunk {
  // The heading path: the texts of the enclosing headings, outermost first, joined by " > "
  // (e.g. "部署 > 数据库 > 备份"); "" before the first heading.
  std::string section;
  std::string text;  // the chunk's text
  bool operator==(const SectionedChunk&) const = default;
};

// Splits `content` (Markdown, valid UTF-8) into chunks for indexing, each tagged with its section.
// Structure-aware: a chunk never spans two sections, code blocks and tables are cut only at line
// ends, lists at item boundaries, and prose is cut like SplitIntoChunks cuts a paragraph. Every
// chunk is non-empty, at most max_bytes, valid UTF-8, and trimmed of surrounding whitespace;
// content of only whitespace yields no chunk. Deterministic: the same content and config always
// yield the same chunks.
//
// In detail (the block structure is CommonMark's with GFM tables, read by cmark-gfm, as the
// console's markdown-it reads it; ADR 0014):
// - Whitespace is ASCII whitespace, as in SplitIntoChunks. A CR before a line feed is dropped, and
//   so is a run of them, so CRLF line endings are read as LF and a text gives the same chunks with
//   either; any other CR ends a line, as in CommonMark.
// - The blocks are the document's top-level blocks: headings (ATX and setext), paragraphs, code
//   blocks (fenced, also when the text ends before the fence closes, and indented), tables, lists,
//   block quotes, HTML blocks and thematic breaks. A block's text is its source lines, trimmed,
//   as written (markup kept, nothing rendered). Lines that no block holds but that are not blank
//   (link reference definitions, which CommonMark reads as no block) join the next block, or the
//   previous one when the next is a heading or there is none, so no text is ever dropped.
// - A heading starts a section; headings inside lists or block quotes are not sections. Its
//   level is 1 to 6 (setext: 1 for =, 2 for -), its text is the plain text of its inlines (the
//   text of emphasis, links, images and code spans without their markup, raw HTML left out, line
//   breaks and line feeds as spaces). A heading of level n drops the path's headings of level n or
//   more and is appended to it; the section is the path's non-empty texts, each cut to
//   kMaxSectionHeadingBytes and trimmed, joined by " > ". The heading itself, as written, is the
//   first block of its section, so that the section's first chunk holds it.
// - Blocks are packed in order into a chunk of their section while they fit, joined by "\n\n",
//   as SplitIntoChunks packs paragraphs: chunks of whole blocks do not overlap.
// - A block longer than max_bytes ends the chunk being packed, and its pieces are chunks of their
//   own. A code block or table is cut at line ends and a list at its items' first lines: its
//   lines (items) are packed whole while they fit, as written between them, without overlap
//   (blank lines inside kept, those at a piece's ends trimmed away), and only a line (item)
//   longer than max_bytes is cut within itself, by SplitIntoChunks, its pieces chunks of their
//   own. Any other block is cut by SplitIntoChunks (sentence ends, 。！？ included, else spaces,
//   ..., with overlap).
// - Content on which the parser (Debian 12's cmark-gfm 0.29.0.gfm.6, without upstream's later
//   fixes) is known to take more than linear time is read in a simpler way: when its possible
//   tables could make far more cells than the content has bytes, or their delimiter rows make
//   it read long paragraphs again and again, tables are read as paragraphs; when deep lists or
//   block quotes meet many lazy or blank lines, or a paragraph holds many image openers ("![")
//   and brackets, or the content is over 16 MiB, the content is cut by SplitIntoChunks, every
//   section "". Text written for people never comes near these bounds.
// Linear: its time is proportional to the content's size plus the chunks' total size, sections
// included (a section, at most 6 heading texts, is copied into each chunk of its section). The
// parser's tree takes up to about 250 bytes of memory per byte of content while it is read.
// Throws std::invalid_argument (with ValidateChunkerConfig's message) when `config` is invalid.
std::vector<SectionedChunk> SplitMarkdownIntoChunks(std::string_view content,
                                                    const ChunkerConfig& config);

// SplitMarkdownIntoChunks's chunks when there are at most `max_chunks` of them, else nullopt. It
// gives up at chunk max_chunks + 1, so its time is bounded by the content's size plus max_chunks
// + 1 chunks (each at most max_bytes and a section of at most 6 * kMaxSectionHeadingBytes + 15
// bytes), however many chunks the whole content would make. Throws like
// SplitMarkdownIntoChunks.
std::optional<std::vector<SectionedChunk>> SplitMarkdownIntoChunksUpTo(std::string_view content,
                                                                       const ChunkerConfig& config,
                                                                       std::size_t max_chunks);

}  // namespace docgate
