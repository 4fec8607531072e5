#pragma once

// The chunker as it was before issue 12, kept to test the linear one against: it applies each
// rule of core/chunker.h literally, re-scanning the paragraph at every candidate cut, so it is
// quadratic (or worse) and fit for short inputs only. Valid configs only.

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/chunker.h"

namespace docgate::chunker_reference {

constexpr std::string_view kParagraphJoint = "\n\n";

inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

inline bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

inline std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

inline std::string WithLfLineEndings(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out.push_back(text[i]);
  }
  return out;
}

// Trimmed paragraphs in order; the views point into `text`.
inline std::vector<std::string_view> Paragraphs(std::string_view text) {
  std::vector<std::string_view> paragraphs;
  std::size_t begin = std::string_view::npos;  // start of the paragraph being read
  std::size_t end = 0;                         // end of its last non-blank line
  std::size_t line_start = 0;
  while (line_start <= text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const bool blank = Trimmed(text.substr(line_start, line_end - line_start)).empty();
    if (!blank) {
      if (begin == std::string_view::npos) begin = line_start;
      end = line_end;
    } else if (begin != std::string_view::npos) {
      paragraphs.push_back(Trimmed(text.substr(begin, end - begin)));
      begin = std::string_view::npos;
    }
    line_start = line_end + 1;
  }
  if (begin != std::string_view::npos)
    paragraphs.push_back(Trimmed(text.substr(begin, end - begin)));
  return paragraphs;
}

// The terminators after which a sentence ends only when whitespace (or the paragraph's end)
// follows: "3.14" and "e.g.x" are no sentence ends.
constexpr std::string_view kSpacedTerminators[] = {".", "!", "?", "\u2026"};
// CJK full stops end a sentence whatever follows: CJK text has no spaces between sentences.
constexpr std::string_view kCjkTerminators[] = {"\u3002", "\uFF01", "\uFF1F"};
constexpr std::string_view kClosers[] = {"\"",     "'",      ")",      "]",      "}",     "\u201D",
                                         "\u2019", "\u00BB", "\u300D", "\u300F", "\uFF09"};

// True when a piece of `text` may end at `cut` because a sentence ends there.
inline bool IsSentenceEnd(std::string_view text, std::size_t cut) {
  std::string_view before = text.substr(0, cut);
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view closer : kClosers) {
      if (before.ends_with(closer)) {
        before.remove_suffix(closer.size());
        stripped = true;
      }
    }
  }
  for (std::string_view terminator : kCjkTerminators) {
    if (before.ends_with(terminator)) return true;
  }
  const bool spaced = cut == text.size() || IsSpace(text[cut]);
  if (!spaced) return false;
  for (std::string_view terminator : kSpacedTerminators) {
    if (before.ends_with(terminator)) return true;
  }
  return false;
}

// True when a piece of `text` may end at `cut` without cutting a word: at a sentence end, before
// whitespace, or at the end.
inline bool IsWordEnd(std::string_view text, std::size_t cut) {
  if (cut == text.size()) return true;
  return (IsSpace(text[cut]) && !IsSpace(text[cut - 1])) || IsSentenceEnd(text, cut);
}

// The end of a piece of `text` that starts at `start`, is at most `max_bytes` long and ends after
// `min_end`: the last sentence end, else the last end of a word, else the last code point
// boundary. nullopt when no code point ends in (min_end, start + max_bytes].
inline std::optional<std::size_t> PieceEnd(std::string_view text, std::size_t start,
                                           std::size_t min_end, std::size_t max_bytes) {
  const std::size_t limit = start + max_bytes;
  if (limit >= text.size()) return text.size();
  for (std::size_t cut = limit; cut > min_end; --cut) {
    if (IsSentenceEnd(text, cut)) return cut;
  }
  for (std::size_t cut = limit; cut > min_end; --cut) {
    if (IsSpace(text[cut]) && !IsSpace(text[cut - 1])) return cut;
  }
  for (std::size_t cut = limit; cut > min_end; --cut) {
    if (!IsContinuationByte(text[cut])) return cut;
  }
  return std::nullopt;
}

inline std::size_t NextNonSpace(std::string_view text, std::size_t from) {
  while (from < text.size() && IsSpace(text[from])) ++from;
  return from;
}

// Where the piece after [previous_start, previous_end) starts: `no_overlap_start` or, repeating up
// to `overlap_bytes` of the previous piece's end, the first word start in that range, else its
// first code point boundary (inside one long word). The overlap is shortened so that the piece
// can still end at the first word end after the previous piece when one is in reach: an overlap
// never makes a piece cut a word that it could have kept whole.
inline std::size_t PieceStart(std::string_view text, std::size_t previous_start,
                              std::size_t previous_end, std::size_t no_overlap_start,
                              const ChunkerConfig& config) {
  std::size_t from =
      std::max(previous_start + 1, previous_end - std::min(config.overlap_bytes, previous_end));
  const std::size_t reach = std::min(no_overlap_start + config.max_bytes, text.size());
  for (std::size_t cut = previous_end + 1; cut <= reach; ++cut) {
    if (IsWordEnd(text, cut)) {
      if (cut > config.max_bytes) from = std::max(from, cut - config.max_bytes);
      break;
    }
  }
  for (std::size_t i = from; i < previous_end; ++i) {
    if (!IsSpace(text[i]) && IsSpace(text[i - 1])) return i;
  }
  for (std::size_t i = from; i < previous_end; ++i) {
    if (!IsContinuationByte(text[i])) return i;
  }
  return no_overlap_start;
}

inline void AppendPieces(std::string_view paragraph, const ChunkerConfig& config,
                         std::vector<std::string>& chunks) {
  std::size_t start = 0;
  std::size_t end = PieceEnd(paragraph, start, start, config.max_bytes).value_or(config.max_bytes);
  chunks.emplace_back(Trimmed(paragraph.substr(start, end - start)));
  while (end < paragraph.size()) {
    const std::size_t previous_end = end;
    const std::size_t no_overlap_start = NextNonSpace(paragraph, previous_end);
    start = PieceStart(paragraph, start, previous_end, no_overlap_start, config);
    std::optional<std::size_t> next = PieceEnd(paragraph, start, previous_end, config.max_bytes);
    if (!next) {
      // The overlap left less room than the next code point needs.
      start = no_overlap_start;
      next = PieceEnd(paragraph, start, start, config.max_bytes);
    }
    // Only text that is not UTF-8 can leave no code point boundary in reach: cut at the byte.
    end = next.value_or(std::min(start + config.max_bytes, paragraph.size()));
    chunks.emplace_back(Trimmed(paragraph.substr(start, end - start)));
  }
}

inline std::vector<std::string> ReferenceSplitIntoChunks(std::string_view content,
                                                         const ChunkerConfig& config) {
  const std::string text = WithLfLineEndings(content);
  std::vector<std::string> chunks;
  std::string packed;
  const auto flush = [&] {
    if (!packed.empty()) chunks.push_back(std::move(packed));
    packed.clear();
  };
  for (std::string_view paragraph : Paragraphs(text)) {
    if (paragraph.size() > config.max_bytes) {
      flush();
      AppendPieces(paragraph, config, chunks);
      continue;
    }
    if (!packed.empty() &&
        packed.size() + kParagraphJoint.size() + paragraph.size() > config.max_bytes) {
      flush();
    }
    if (!packed.empty()) packed += kParagraphJoint;
    packed += paragraph;
  }
  flush();
  return chunks;
}

}  // namespace docgate::chunker_reference
