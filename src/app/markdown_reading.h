#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

// How the Markdown chunker (app/markdown_chunker.h) reads a text before cmark-gfm parses it: its
// line ends, its lines as cmark-gfm numbers them, and which reading the text allows (ADR 0014).

// A whole run of CRs before a LF goes, not just one CR: SplitIntoChunks, which cuts the long
// paragraphs, reads CRLF as LF once more, and must find none left, or its chunks would not be the
// text's.
std::string MarkdownWithLfLineEndings(std::string_view text);

// The lines of a text as cmark-gfm numbers them, from 1: each ends at a LF or a CR (no CR is
// before a LF any more).
class SourceLines {
 public:
  explicit SourceLines(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (std::size_t at = 0; at < text.size(); ++at) {
      if (text[at] == '\n' || text[at] == '\r') starts_.push_back(at + 1);
    }
  }

  int Count() const { return static_cast<int>(starts_.size()); }

  // Lines first..last (1 <= first <= last <= Count()), without the last one's line end.
  std::string_view Span(int first, int last) const {
    const std::size_t begin = starts_[first - 1];
    const std::size_t end = last < Count() ? starts_[last] - 1 : text_.size();
    return text_.substr(begin, end - begin);
  }

  std::string_view Line(int line) const { return Span(line, line); }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

// How a text is read. Debian 12's cmark-gfm (0.29.0.gfm.6) lacks upstream's 2023 fixes of
// superlinear paths (GHSA-29g3-96g3-jg6c, GHSA-66g8-4hjf-77xh, GHSA-w4qg-3vf7-m9x5, ...); measured
// here, a 24 KB table took 17 s and 3.7 GB, 60 KB of blank lines in a deep list 4.6 s. The paths
// are bounded from above in one pass over the lines (ChooseReading), and a text that would go far
// beyond what any text written for people needs is read without them.
enum class Reading {
  kWithTables,     // cmark-gfm with the table extension
  kWithoutTables,  // cmark-gfm alone: tables are paragraphs
  kPlain,          // SplitIntoChunks, no sections
};

// Upper bounds of the superlinear paths' work, from the lines alone, and the reading they allow.
Reading ChooseReading(std::string_view text, const SourceLines& lines);

}  // namespace docgate
