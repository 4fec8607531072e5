#include "core/chunker.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>

namespace docgate {
namespace {

constexpr std::string_view kParagraphJoint = "\n\n";

constexpr bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

constexpr bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::string WithLfLineEndings(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t crlf = text.find("\r\n"); crlf != std::string_view::npos;
       crlf = text.find("\r\n", from)) {
    out.append(text.substr(from, crlf - from));
    from = crlf + 1;
  }
  out.append(text.substr(from));
  return out;
}

// Trimmed paragraphs in order; the views point into `text`.
std::vector<std::string_view> Paragraphs(std::string_view text) {
  std::vector<std::string_view> paragraphs;
  std::size_t begin = std::string_view::npos;  // start of the paragraph being read
  std::size_t end = 0;                         // end of its last non-blank line
  std::size_t line_start = 0;
  while (line_start <= text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const bool blank = TrimmedOfAsciiSpace(text.substr(line_start, line_end - line_start)).empty();
    if (!blank) {
      if (begin == std::string_view::npos) begin = line_start;
      end = line_end;
    } else if (begin != std::string_view::npos) {
      paragraphs.push_back(TrimmedOfAsciiSpace(text.substr(begin, end - begin)));
      begin = std::string_view::npos;
    }
    line_start = line_end + 1;
  }
  if (begin != std::string_view::npos)
    paragraphs.push_back(TrimmedOfAsciiSpace(text.substr(begin, end - begin)));
  return paragraphs;
}

// The terminators after which a sentence ends only when whitespace (or the paragraph's end)
// follows: "3.14" and "e.g.x" are no sentence ends.
constexpr std::string_view kSpacedTerminators[] = {".", "!", "?", "\u2026"};
// CJK full stops end a sentence whatever follows: CJK text has no spaces between sentences.
constexpr std::string_view kCjkTerminators[] = {"\u3002", "\uFF01", "\uFF1F"};
constexpr std::string_view kClosers[] = {"\"",     "'",      ")",      "]",      "}",     "\u201D",
                                         "\u2019", "\u00BB", "\u300D", "\u300F", "\uFF09"};

// A closer or a terminator, told apart by the byte it ends with: no two of them end with the
// same byte, so one look-up of the byte before a cut finds the only one that may end there.
struct Token {
  enum Kind { kNone, kCloser, kSpacedTerminator, kCjkTerminator };
  std::string_view text;
  Kind kind = kNone;
};

constexpr std::array<Token, 256> kTokenEndingWith = [] {
  std::array<Token, 256> tokens{};
  const auto add = [&](std::span<const std::string_view> texts, Token::Kind kind) {
    for (std::string_view text : texts) {
      Token& token = tokens[static_cast<unsigned char>(text.back())];
      if (token.kind != Token::kNone) throw "two closers or terminators end with the same byte";
      token = {text, kind};
    }
  };
  add(kClosers, Token::kCloser);
  add(kSpacedTerminators, Token::kSpacedTerminator);
  add(kCjkTerminators, Token::kCjkTerminator);
  return tokens;
}();

// What a paragraph allows at one cut (a byte position, its end included), as bits.
using Marks = std::uint8_t;
constexpr Marks kSentenceEnd = 1 << 0;     // a sentence ends here
constexpr Marks kSpaceAfterWord = 1 << 1;  // whitespace here, none before
constexpr Marks kWordEnd = 1 << 2;         // a sentence end, a space after a word, or the end
constexpr Marks kWordStart = 1 << 3;       // no whitespace here, whitespace before
constexpr Marks kCodePoint = 1 << 4;       // a code point starts here, or the end
constexpr Marks kNonSpace = 1 << 5;        // no whitespace here
// The terminator that the text before the cut ends with once its closers are stripped.
constexpr Marks kSpacedTerminatorBefore = 1 << 6;
constexpr Marks kCjkTerminatorBefore = 1 << 7;
constexpr Marks kTerminatorBefore = kSpacedTerminatorBefore | kCjkTerminatorBefore;

// The marks of a cut that depend only on its byte and on whether whitespace comes before it,
// indexed [whitespace before][byte]: all of them but the terminators'.
constexpr auto kByteMarks = [] {
  std::array<std::array<Marks, 256>, 2> table{};
  for (int space_before = 0; space_before < 2; ++space_before) {
    for (int byte = 0; byte < 256; ++byte) {
      const char c = static_cast<char>(byte);
      Marks m = IsContinuationByte(c) ? 0 : kCodePoint;
      if (!IsSpace(c)) {
        m |= space_before ? kNonSpace | kWordStart : kNonSpace;
      } else if (!space_before) {
        m |= kSpaceAfterWord | kWordEnd;
      }
      table[space_before][byte] = m;
    }
  }
  return table;
}();

// The marks that `token`, ending `before`, gives the cut after it, given the marks of the cuts
// before it and whether whitespace (or the paragraph's end) follows the cut. A closer passes on
// the terminator marks of the cut before it, so that a run of closers is never scanned again.
Marks TerminatorMarks(const Token& token, std::string_view before, const std::vector<Marks>& marks,
                      bool spaced) {
  // Byte by byte: a call to memcmp for at most 3 bytes would cost more than the comparison.
  if (before.size() < token.text.size()) return 0;
  for (std::size_t i = 1; i <= token.text.size(); ++i) {
    if (before[before.size() - i] != token.text[token.text.size() - i]) return 0;
  }
  Marks m = kCjkTerminatorBefore;
  if (token.kind == Token::kCloser) {
    m = marks[before.size() - token.text.size()] & kTerminatorBefore;
  } else if (token.kind == Token::kSpacedTerminator) {
    m = kSpacedTerminatorBefore;
  }
  if ((m & kCjkTerminatorBefore) || ((m & kSpacedTerminatorBefore) && spaced)) {
    m |= kSentenceEnd | kWordEnd;
  }
  return m;
}

// The marks of every cut of `text`, in one pass. Cut 0 is never asked about.
std::vector<Marks> MarkCuts(std::string_view text) {
  const std::size_t size = text.size();
  std::vector<Marks> marks(size + 1);
  // Those of `cut`, which whitespace or the end follows when `spaced`.
  const auto terminator_marks = [&](std::size_t cut, bool spaced) -> Marks {
    if (cut == 0) return 0;
    const Token& token = kTokenEndingWith[static_cast<unsigned char>(text[cut - 1])];
    if (token.kind == Token::kNone) return 0;
    return TerminatorMarks(token, text.substr(0, cut), marks, spaced);
  };
  for (std::size_t cut = 0; cut < size; ++cut) {
    // Read from the text rather than from the previous cut's marks, so that no cut waits for the
    // one before it.
    const bool space_before = cut == 0 || IsSpace(text[cut - 1]);
    const Marks m = kByteMarks[space_before][static_cast<unsigned char>(text[cut])];
    marks[cut] = m | terminator_marks(cut, (m & kNonSpace) == 0);
  }
  marks[size] = kWordEnd | kCodePoint | terminator_marks(size, true);
  return marks;
}

// Both look 8 cuts at a time for a mark, as runs without it are long in the inputs that matter.
constexpr std::uint64_t kEveryByte = 0x0101010101010101;

// The first cut in [from, end) that has `mark`, else `end`.
std::size_t FindFirst(const std::vector<Marks>& marks, std::size_t from, std::size_t end,
                      Marks mark) {
  for (std::uint64_t eight; from + 8 <= end; from += 8) {
    std::memcpy(&eight, marks.data() + from, 8);
    if (eight & (kEveryByte * mark)) break;
  }
  while (from < end && !(marks[from] & mark)) ++from;
  return from;
}

// The last cut in [begin, end) that has `mark`, else nullopt.
std::optional<std::size_t> FindLast(const std::vector<Marks>& marks, std::size_t begin,
                                    std::size_t end, Marks mark) {
  for (std::uint64_t eight; end >= begin + 8; end -= 8) {
    std::memcpy(&eight, marks.data() + end - 8, 8);
    if (eight & (kEveryByte * mark)) break;
  }
  for (; end > begin; --end) {
    if (marks[end - 1] & mark) return end - 1;
  }
  return std::nullopt;
}

// The first cut at or after a position that has a mark. A query at or after the previous one
// reuses its answer when it can, so queries at non-decreasing positions look at each cut once.
class NextMark {
 public:
  NextMark(const std::vector<Marks>& marks, Marks mark) : marks_(marks), mark_(mark) {}

  // The paragraph's end when no cut from `from` on has the mark.
  std::size_t From(std::size_t from) {
    if (from < asked_ || next_ < from) next_ = FindFirst(marks_, from, marks_.size() - 1, mark_);
    asked_ = from;
    return next_;
  }

 private:
  const std::vector<Marks>& marks_;
  Marks mark_;
  std::size_t asked_ = 0;
  std::size_t next_ = 0;  // the answer for asked_
};

// The last cut in a range that has a mark. A query whose range ends at or after the previous
// one's looks only at the cuts after that end, so such queries look at each cut once.
class LastMark {
 public:
  LastMark(const std::vector<Marks>& marks, Marks mark) : marks_(marks), mark_(mark) {}

  // The last cut in (after, at] that has the mark.
  std::optional<std::size_t> In(std::size_t after, std::size_t at) {
    if (at + 1 < scanned_) return FindLast(marks_, after + 1, at + 1, mark_);
    if (auto cut = FindLast(marks_, scanned_, at + 1, mark_)) last_ = cut;
    scanned_ = at + 1;
    if (last_ && *last_ > after) return last_;
    return std::nullopt;
  }

 private:
  const std::vector<Marks>& marks_;
  Marks mark_;
  std::size_t scanned_ = 0;          // cuts before it have been looked at
  std::optional<std::size_t> last_;  // the last of them with the mark
};

// Where the pieces of one paragraph start and end. Pieces move forward (starts, ends and limits
// increase), so that every query is amortised O(1).
class PieceFinder {
 public:
  PieceFinder(std::string_view paragraph, const ChunkerConfig& config)
      : size_(paragraph.size()), config_(config), marks_(MarkCuts(paragraph)) {}

  // The end of a piece that starts at `start`, is at most max_bytes long and ends after
  // `min_end` and after `start`: the last sentence end, else the last end of a word, else the
  // last code point boundary. nullopt when no code point ends in (max(min_end, start),
  // start + max_bytes]. (A piece that skips whitespace starts after min_end; in text that is not
  // UTF-8 the last boundary may lie in that whitespace, before the piece.)
  std::optional<std::size_t> End(std::size_t start, std::size_t min_end) {
    const std::size_t limit = start + config_.max_bytes;
    if (limit >= size_) return size_;
    const std::size_t after = std::max(min_end, start);
    if (auto cut = last_sentence_end_.In(after, limit)) return cut;
    if (auto cut = last_space_after_word_.In(after, limit)) return cut;
    return last_code_point_.In(after, limit);
  }

  // Where the piece after [previous_start, previous_end) starts: `no_overlap_start` or, repeating
  // up to overlap_bytes of the previous piece's end, the first word start in that range, else its
  // first code point boundary (inside one long word). The overlap is shortened so that the piece
  // can still end at the first word end after the previous piece when one is in reach: an overlap
  // never makes a piece cut a word that it could have kept whole.
  std::size_t Start(std::size_t previous_start, std::size_t previous_end,
                    std::size_t no_overlap_start) {
    std::size_t from =
        std::max(previous_start + 1, previous_end - std::min(config_.overlap_bytes, previous_end));
    const std::size_t reach = std::min(no_overlap_start + config_.max_bytes, size_);
    const std::size_t word_end = next_word_end_.From(previous_end + 1);
    if (word_end <= reach && word_end > config_.max_bytes) {
      from = std::max(from, word_end - config_.max_bytes);
    }
    if (from >= previous_end) return no_overlap_start;
    if (const std::size_t word = next_word_start_.From(from); word < previous_end) return word;
    if (const std::size_t cut = next_code_point_.From(from); cut < previous_end) return cut;
    return no_overlap_start;
  }

  // The first cut at or after `from` that is not whitespace, else the paragraph's end.
  std::size_t NextNonSpace(std::size_t from) { return next_non_space_.From(from); }

 private:
  std::size_t size_;
  ChunkerConfig config_;
  std::vector<Marks> marks_;
  LastMark last_sentence_end_{marks_, kSentenceEnd};
  LastMark last_space_after_word_{marks_, kSpaceAfterWord};
  LastMark last_code_point_{marks_, kCodePoint};
  NextMark next_word_end_{marks_, kWordEnd};
  NextMark next_word_start_{marks_, kWordStart};
  NextMark next_code_point_{marks_, kCodePoint};
  NextMark next_non_space_{marks_, kNonSpace};
};

// Appends the pieces of `paragraph` to `chunks`; false, and stops, as soon as `chunks` holds more
// than `max_chunks`.
bool AppendPieces(std::string_view paragraph, const ChunkerConfig& config, std::size_t max_chunks,
                  std::vector<std::string>& chunks) {
  PieceFinder finder(paragraph, config);
  std::size_t start = 0;
  std::size_t end = finder.End(start, start).value_or(config.max_bytes);
  chunks.emplace_back(TrimmedOfAsciiSpace(paragraph.substr(start, end - start)));
  while (end < paragraph.size() && chunks.size() <= max_chunks) {
    const std::size_t previous_end = end;
    const std::size_t no_overlap_start = finder.NextNonSpace(previous_end);
    start = finder.Start(start, previous_end, no_overlap_start);
    std::optional<std::size_t> next = finder.End(start, previous_end);
    if (!next) {
      // The overlap left less room than the next code point needs.
      start = no_overlap_start;
      next = finder.End(start, start);
    }
    // Only text that is not UTF-8 can leave no code point boundary in reach: cut at the byte.
    end = next.value_or(std::min(start + config.max_bytes, paragraph.size()));
    // A piece inside a run of whitespace longer than max_bytes - overlap_bytes has no text.
    const std::string_view piece = TrimmedOfAsciiSpace(paragraph.substr(start, end - start));
    if (!piece.empty()) chunks.emplace_back(piece);
  }
  return chunks.size() <= max_chunks;
}

}  // namespace

std::string_view TrimmedOfAsciiSpace(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<std::string> ValidateChunkerConfig(const ChunkerConfig& config) {
  if (config.max_bytes < kMinChunkBytes) {
    return "chunker max_bytes must be at least " + std::to_string(kMinChunkBytes) + ", not " +
           std::to_string(config.max_bytes);
  }
  if (config.overlap_bytes >= config.max_bytes) {
    return "chunker overlap_bytes must be less than max_bytes (" +
           std::to_string(config.max_bytes) + "), not " + std::to_string(config.overlap_bytes);
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> SplitIntoChunksUpTo(std::string_view content,
                                                            const ChunkerConfig& config,
                                                            std::size_t max_chunks) {
  if (auto error = ValidateChunkerConfig(config)) throw std::invalid_argument(*error);
  const std::string text = WithLfLineEndings(content);
  std::vector<std::string> chunks;
  std::string packed;
  const auto flush = [&] {
    if (!packed.empty()) chunks.push_back(std::move(packed));
    packed.clear();
    return chunks.size() <= max_chunks;
  };
  for (std::string_view paragraph : Paragraphs(text)) {
    if (paragraph.size() > config.max_bytes) {
      if (!flush() || !AppendPieces(paragraph, config, max_chunks, chunks)) return std::nullopt;
      continue;
    }
    if (!packed.empty() &&
        packed.size() + kParagraphJoint.size() + paragraph.size() > config.max_bytes && !flush()) {
      return std::nullopt;
    }
    if (!packed.empty()) packed += kParagraphJoint;
    packed += paragraph;
  }
  if (!flush()) return std::nullopt;
  return chunks;
}

std::vector<std::string> SplitIntoChunks(std::string_view content, const ChunkerConfig& config) {
  return *SplitIntoChunksUpTo(content, config, std::numeric_limits<std::size_t>::max());
}

}  // namespace docgate
