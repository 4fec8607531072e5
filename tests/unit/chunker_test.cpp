// SplitIntoChunks and ValidateChunkerConfig, against the contract in core/chunker.h.

#include "core/chunker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/utf8.h"

namespace docgate {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using Chunks = std::vector<std::string>;

ChunkerConfig Sizes(std::size_t max_bytes, std::size_t overlap_bytes) {
  return ChunkerConfig{.max_bytes = max_bytes, .overlap_bytes = overlap_bytes};
}

bool IsValidUtf8(std::string_view text) { return Utf8Length(text).has_value(); }

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::vector<std::string> WhitespaceTokens(std::string_view text) {
  std::vector<std::string> tokens;
  std::string token;
  for (char c : text) {
    if (IsAsciiSpace(c)) {
      if (!token.empty()) tokens.push_back(std::move(token));
      token.clear();
    } else {
      token.push_back(c);
    }
  }
  if (!token.empty()) tokens.push_back(std::move(token));
  return tokens;
}

// What every chunk must be whatever the input: non-empty, within max_bytes, valid UTF-8, trimmed.
void ExpectWellFormed(const Chunks& chunks, const ChunkerConfig& config) {
  for (const std::string& chunk : chunks) {
    EXPECT_FALSE(chunk.empty());
    EXPECT_LE(chunk.size(), config.max_bytes) << chunk;
    EXPECT_TRUE(IsValidUtf8(chunk)) << chunk;
    if (chunk.empty()) continue;
    EXPECT_FALSE(IsAsciiSpace(chunk.front())) << chunk;
    EXPECT_FALSE(IsAsciiSpace(chunk.back())) << chunk;
  }
}

// The bytes of `previous`'s end that `next` starts with, at most `limit`: the longest such repeat.
std::size_t RepeatedBytes(const std::string& previous, const std::string& next, std::size_t limit) {
  for (std::size_t n = std::min({limit, previous.size(), next.size()}); n > 0; --n) {
    if (previous.ends_with(std::string_view(next).substr(0, n))) return n;
  }
  return 0;
}

// The pieces of one paragraph cover `text` in order: each is found in it after the previous one
// and no later than where the previous ones ended (but for whitespace between them), and together
// they reach its end. A piece that occurs several times may be at any of its places.
void ExpectCoversInOrder(const std::string& text, const Chunks& pieces) {
  constexpr std::size_t kNowhere = std::string::npos;
  constexpr const char* kSpaces = " \t\n\r\f\v";
  // covered[at]: the furthest end of the text that pieces 0..k cover with piece k at `at`.
  std::vector<std::size_t> covered(text.size() + 1, kNowhere);
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    std::vector<std::size_t> next(text.size() + 1, kNowhere);
    std::size_t furthest_before = k == 0 ? 0 : kNowhere;  // over the places before `at`
    std::size_t scanned = 0;
    bool placed = false;
    for (std::size_t at = text.find(pieces[k]); at != std::string::npos;
         at = text.find(pieces[k], at + 1)) {
      for (; k > 0 && scanned < at; ++scanned) {
        if (covered[scanned] != kNowhere &&
            (furthest_before == kNowhere || covered[scanned] > furthest_before)) {
          furthest_before = covered[scanned];
        }
      }
      if (furthest_before == kNowhere ||
          (at > furthest_before && text.find_first_not_of(kSpaces, furthest_before) < at)) {
        continue;
      }
      next[at] = std::max(furthest_before, at + pieces[k].size());
      placed = true;
    }
    ASSERT_TRUE(placed) << "piece " << k << " is not in the text after the previous ones, or text "
                        << "is lost before it: " << pieces[k];
    covered = std::move(next);
  }
  EXPECT_EQ(*std::max_element(covered.begin(), covered.end(),
                              [](std::size_t a, std::size_t b) {
                                return (a == kNowhere ? 0 : a + 1) < (b == kNowhere ? 0 : b + 1);
                              }),
            text.size());
}

TEST(ChunkerConfig, DefaultsAreValid) {
  EXPECT_EQ(ValidateChunkerConfig(ChunkerConfig{}), std::nullopt);
}

TEST(ChunkerConfig, RejectsTinyMaximumAndOverlapNotBelowIt) {
  EXPECT_EQ(ValidateChunkerConfig(Sizes(16, 15)), std::nullopt);
  EXPECT_EQ(ValidateChunkerConfig(Sizes(16, 0)), std::nullopt);
  EXPECT_EQ(ValidateChunkerConfig(Sizes(15, 0)), "chunker max_bytes must be at least 16, not 15");
  EXPECT_EQ(ValidateChunkerConfig(Sizes(0, 0)), "chunker max_bytes must be at least 16, not 0");
  EXPECT_EQ(ValidateChunkerConfig(Sizes(100, 100)),
            "chunker overlap_bytes must be less than max_bytes (100), not 100");
  EXPECT_EQ(ValidateChunkerConfig(Sizes(100, 250)),
            "chunker overlap_bytes must be less than max_bytes (100), not 250");
}

TEST(Chunker, RefusesAnInvalidConfig) {
  EXPECT_THROW(SplitIntoChunks("text", Sizes(8, 0)), std::invalid_argument);
  EXPECT_THROW(SplitIntoChunks("text", Sizes(100, 100)), std::invalid_argument);
}

TEST(Chunker, EmptyOrWhitespaceOnlyContentYieldsNoChunk) {
  EXPECT_THAT(SplitIntoChunks("", ChunkerConfig{}), IsEmpty());
  EXPECT_THAT(SplitIntoChunks(" ", ChunkerConfig{}), IsEmpty());
  EXPECT_THAT(SplitIntoChunks("\n\n \t\r\n\f\v  \r\n\n", ChunkerConfig{}), IsEmpty());
}

TEST(Chunker, ShortTextIsOneChunkEqualToTheTrimmedText) {
  EXPECT_THAT(SplitIntoChunks("  Hello, world.\n", ChunkerConfig{}), ElementsAre("Hello, world."));
  EXPECT_THAT(SplitIntoChunks("\n\n  Two lines\n of one paragraph \t\n\n", ChunkerConfig{}),
              ElementsAre("Two lines\n of one paragraph"));
}

TEST(Chunker, TextOfExactlyMaxBytesIsOneChunk) {
  const std::string text(40, 'x');
  EXPECT_THAT(SplitIntoChunks(text, Sizes(40, 10)), ElementsAre(text));
}

TEST(Chunker, ShortParagraphsArePackedWhileTheyFit) {
  const std::string text = "aaa bbb.\n\nccc ddd.\n \n\n  eee fff.  \n\nggg\nhhh\n\niii";
  // 8 + 2 + 8 + 2 + 8 = 28 fits 30; ggg\nhhh (7) would make it 37. 7 + 2 + 3 = 12 fits.
  EXPECT_THAT(SplitIntoChunks(text, Sizes(30, 5)),
              ElementsAre("aaa bbb.\n\nccc ddd.\n\neee fff.", "ggg\nhhh\n\niii"));
  // The joint counts: 28 bytes do not fit 27.
  EXPECT_THAT(SplitIntoChunks(text, Sizes(27, 5)),
              ElementsAre("aaa bbb.\n\nccc ddd.", "eee fff.\n\nggg\nhhh\n\niii"));
}

TEST(Chunker, ChunksOfWholeParagraphsDoNotOverlap) {
  const std::string text = "one two three four\n\nfive six seven eight\n\nnine ten";
  EXPECT_THAT(SplitIntoChunks(text, Sizes(20, 10)),
              ElementsAre("one two three four", "five six seven eight", "nine ten"));
}

TEST(Chunker, LongParagraphStandsAloneBetweenPackedOnes) {
  const std::string text = "Intro.\n\nalpha beta gamma delta epsilon zeta\n\nOutro.\n\nEnd.";
  EXPECT_THAT(SplitIntoChunks(text, Sizes(20, 0)),
              ElementsAre("Intro.", "alpha beta gamma", "delta epsilon zeta", "Outro.\n\nEnd."));
}

TEST(Chunker, LongParagraphIsCutAtTheLastSentenceEndInReach) {
  const std::string text = "One two three. Four five six. Seven eight nine ten eleven twelve.";
  EXPECT_THAT(
      SplitIntoChunks(text, Sizes(30, 0)),
      ElementsAre("One two three. Four five six.", "Seven eight nine ten eleven", "twelve."));
}

TEST(Chunker, SentenceEndsKeepTheirClosersAndNeedWhitespaceAfter) {
  EXPECT_THAT(SplitIntoChunks("He said \"Stop!\" and left (quietly.) Then pi=3.14 was known.",
                              Sizes(40, 0)),
              ElementsAre("He said \"Stop!\" and left (quietly.)", "Then pi=3.14 was known."));
  EXPECT_THAT(SplitIntoChunks("Wait for it\u2026 then go. Another line here", Sizes(20, 0)),
              ElementsAre("Wait for it\u2026", "then go.", "Another line here"));
}

TEST(Chunker, CjkFullStopsEndSentencesWithoutSpaces) {
  const std::string text = "日本語です。二番目の文です。三番目。";  // 18 + 24 + 12 bytes
  EXPECT_THAT(SplitIntoChunks(text, Sizes(42, 0)),
              ElementsAre("日本語です。二番目の文です。", "三番目。"));
}

TEST(Chunker, LongParagraphWithoutSentenceEndsIsCutAtSpaces) {
  EXPECT_THAT(SplitIntoChunks("alpha beta gamma delta epsilon zeta", Sizes(20, 0)),
              ElementsAre("alpha beta gamma", "delta epsilon zeta"));
  // Runs of whitespace and line breaks inside the paragraph are no cut of their own.
  EXPECT_THAT(SplitIntoChunks("alpha beta\n   gamma delta epsilon", Sizes(20, 0)),
              ElementsAre("alpha beta\n   gamma", "delta epsilon"));
}

TEST(Chunker, WordLongerThanMaxIsCutAtCodePointBoundaries) {
  std::string word;
  for (int i = 0; i < 20; ++i) word += "é";  // 2 bytes each
  // 17 bytes hold 8 whole code points: never half of one.
  const std::string eight = word.substr(0, 16);
  EXPECT_THAT(SplitIntoChunks(word, Sizes(17, 0)), ElementsAre(eight, eight, word.substr(0, 8)));
  EXPECT_THAT(SplitIntoChunks("ab " + word, Sizes(17, 0)),
              ElementsAre("ab", eight, eight, word.substr(0, 8)));
}

TEST(Chunker, EachPieceStartsWithTheEndOfThePreviousFromAWordStart) {
  EXPECT_THAT(SplitIntoChunks("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu",
                              Sizes(20, 8)),
              ElementsAre("alpha beta gamma", "gamma delta epsilon", "epsilon zeta eta",
                          "zeta eta theta iota", "iota kappa lambda mu"));
  EXPECT_THAT(SplitIntoChunks("One two three. Four five six. Seven eight nine ten eleven twelve.",
                              Sizes(30, 10)),
              ElementsAre("One two three. Four five six.", "five six. Seven eight nine ten",
                          "nine ten eleven twelve."));
}

TEST(Chunker, OverlapInsideOneLongWordStartsAtACodePoint) {
  const std::string text = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";
  // The last piece repeats less than 5 bytes: with more, it could not reach the word's end.
  EXPECT_THAT(SplitIntoChunks(text, Sizes(20, 5)),
              ElementsAre("abcdefghijklmnopqrst", "pqrstuvwxyzabcdefghi", "ghijklmnopqrstuvwxyz"));
}

TEST(Chunker, OverlapGivesWayRatherThanCutAWordThatFits) {
  // Repeating 15 bytes would leave room for 1 new byte: the next word would be cut.
  EXPECT_THAT(SplitIntoChunks("aaaa bbbb cccc dddd eeee ffff", Sizes(16, 15)),
              ElementsAre("aaaa bbbb cccc", "bbbb cccc dddd", "cccc dddd eeee", "dddd eeee ffff"));
}

TEST(Chunker, OverlapPropertiesHoldOnLongProse) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "word" + std::to_string(i) + (i % 9 == 8 ? ". " : " ");
  const ChunkerConfig config = Sizes(120, 40);
  const Chunks chunks = SplitIntoChunks(text, config);
  ASSERT_GT(chunks.size(), 20u);
  ExpectWellFormed(chunks, config);
  ExpectCoversInOrder(std::string(text.substr(0, text.size() - 1)), chunks);
  for (std::size_t k = 0; k + 1 < chunks.size(); ++k) {
    const std::string& previous = chunks[k];
    const std::size_t repeated = RepeatedBytes(previous, chunks[k + 1], config.overlap_bytes);
    EXPECT_GT(repeated, 0u) << "chunk " << k + 1 << " repeats nothing of chunk " << k;
    EXPECT_LT(repeated, previous.size());
    // From a word start: the repeat is preceded by a space in the previous chunk.
    EXPECT_EQ(previous[previous.size() - repeated - 1], ' ') << chunks[k + 1];
  }
}

TEST(Chunker, CrLfLineEndingsAreReadAsLf) {
  const std::string lf = "First para\nline two.\n\nSecond para.\n \nThird one here, longer.\n";
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const ChunkerConfig config = Sizes(30, 5);
  EXPECT_THAT(SplitIntoChunks(crlf, config),
              ElementsAre("First para\nline two.", "Second para.", "Third one here, longer."));
  EXPECT_EQ(SplitIntoChunks(crlf, config), SplitIntoChunks(lf, config));
}

// Text of many scripts and widths: CJK (3 bytes), emoji (4), letters with combining marks (1 + 2),
// Cyrillic (2), with and without spaces.
std::string MultiByteText() {
  const std::string pieces[] = {"日本語の文章",    "😀🎉👍",        "e\u0301te\u0301",
                                "Привет мир",      "naïve café", "한국어 텍스트",
                                "a\u0308\u0323bc", "😀 x 🎉",      "中文。更多文字！",
                                "plain ascii",     "Ω≈ç√∫˜µ≤≥÷", "🏳️‍🌈 flags"};
  std::string text;
  for (int i = 0; i < 60; ++i) {
    text += pieces[(i * 7) % std::size(pieces)];
    text += i % 5 == 4 ? "\n\n" : (i % 3 == 0 ? "" : " ");
  }
  return text;
}

TEST(Chunker, MultiByteTextGivesValidUtf8WithinMaxForEveryConfig) {
  const std::string text = MultiByteText();
  ASSERT_TRUE(IsValidUtf8(text));
  for (std::size_t max_bytes : {16u, 17u, 18u, 19u, 23u, 40u, 64u, 101u, 1000u}) {
    for (std::size_t overlap : {std::size_t{0}, std::size_t{1}, max_bytes / 3, max_bytes - 1}) {
      SCOPED_TRACE("max " + std::to_string(max_bytes) + " overlap " + std::to_string(overlap));
      const Chunks chunks = SplitIntoChunks(text, Sizes(max_bytes, overlap));
      ASSERT_FALSE(chunks.empty());
      ExpectWellFormed(chunks, Sizes(max_bytes, overlap));
    }
  }
}

TEST(Chunker, RunOfFiveThousandBytesWithoutSpacesIsCutAtCodePoints) {
  const std::string units[] = {"日", "😀", "e\u0301", "ж", "x", "語", "🎉", "a\u0308\u0323"};
  std::mt19937 random(20240611);
  std::string run;
  while (run.size() < 5000) run += units[random() % std::size(units)];
  ASSERT_TRUE(IsValidUtf8(run));
  for (const ChunkerConfig config :
       {Sizes(16, 0), Sizes(16, 15), Sizes(100, 30), Sizes(1000, 150)}) {
    SCOPED_TRACE("max " + std::to_string(config.max_bytes));
    const Chunks chunks = SplitIntoChunks(run, config);
    ExpectWellFormed(chunks, config);
    ExpectCoversInOrder(run, chunks);
    // Full pieces: a cut loses at most the 3 bytes of a code point that did not fit.
    for (std::size_t k = 0; k + 1 < chunks.size(); ++k) {
      EXPECT_GE(chunks[k].size(), config.max_bytes - 3);
    }
  }
}

TEST(Chunker, PiecesOfOnlyWhitespaceAreNoChunks) {
  // The piece after "ne" ends inside the spaces: none of them ends a word, and the word after
  // them is longer than max_bytes.
  const std::string text = "One" + std::string(30, ' ') + "abcdefghijklmnopqrst";
  EXPECT_THAT(SplitIntoChunks(text, Sizes(16, 4)),
              ElementsAre("One", "ne", "abcdefgh", "efghijklmnopqrst"));
}

// Found by fuzz/chunker_fuzz.cpp (fuzz/regressions/chunker/): a piece that skips whitespace
// starts after the previous piece's end, and in text that is not UTF-8 the last code point
// boundary in reach was one of those spaces, before the piece's start; the piece then ran to the
// paragraph's end, far beyond max_bytes. It is cut at max_bytes, as documented.
TEST(Chunker, TextThatIsNotUtf8NeverGivesAChunkAboveMaxBytes) {
  const std::string text = "abcdefghij" + std::string(10, ' ') + std::string(40, '\x80');
  EXPECT_THAT(SplitIntoChunks(text, Sizes(16, 0)),
              ElementsAre("abcdefghij", std::string(16, '\x80'), std::string(16, '\x80'),
                          std::string(8, '\x80')));
  for (const std::size_t overlap : {1, 5, 15}) {
    for (const std::string& chunk : SplitIntoChunks(text, Sizes(16, overlap))) {
      EXPECT_FALSE(chunk.empty());
      EXPECT_LE(chunk.size(), 16u) << "overlap " << overlap;
    }
  }
}

TEST(Chunker, IsDeterministic) {
  const std::string text = MultiByteText() + "\r\n\r\n" + MultiByteText();
  const ChunkerConfig config = Sizes(50, 20);
  const Chunks first = SplitIntoChunks(text, config);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(SplitIntoChunks(text, Sizes(50, 20)), first);
}

// A text of random words (ASCII and multi-byte, some ending sentences) in random paragraphs with
// random line endings.
std::string GeneratedText(std::mt19937& random) {
  const std::string letters[] = {"a", "e", "k", "s", "t", "é", "ж", "ü", "語", "😀", "x", "o"};
  const std::string breaks[] = {"\n\n", "\r\n\r\n", "\n \n", "\n", "\r\n", "\n\n\n"};
  std::string text;
  const int words = 1 + static_cast<int>(random() % 300);
  for (int w = 0; w < words; ++w) {
    const int length = 1 + static_cast<int>(random() % 3);  // at most 14 bytes: fits 16
    for (int i = 0; i < length; ++i) text += letters[random() % std::size(letters)];
    if (random() % 6 == 0) text += (random() % 2 == 0) ? "." : "?\"";
    const auto gap = random() % 12;
    text += gap < 2 ? breaks[random() % std::size(breaks)] : (gap < 3 ? "  " : " ");
  }
  return text;
}

TEST(Chunker, NoWordIsLostFromGeneratedTexts) {
  std::mt19937 random(7);
  for (int round = 0; round < 300; ++round) {
    const std::string text = GeneratedText(random);
    const std::size_t max_bytes = kMinChunkBytes + random() % 200;
    const ChunkerConfig config = Sizes(max_bytes, random() % max_bytes);
    SCOPED_TRACE("round " + std::to_string(round) + " max " + std::to_string(config.max_bytes) +
                 " overlap " + std::to_string(config.overlap_bytes));
    const Chunks chunks = SplitIntoChunks(text, config);
    ExpectWellFormed(chunks, config);
    std::set<std::string> chunk_words;
    for (const std::string& chunk : chunks) {
      for (std::string& word : WhitespaceTokens(chunk)) chunk_words.insert(std::move(word));
    }
    for (const std::string& word : WhitespaceTokens(text)) {
      ASSERT_TRUE(chunk_words.contains(word)) << "lost: " << word << "\nin: " << text;
    }
    EXPECT_EQ(SplitIntoChunks(text, config), chunks);
  }
}

// Pieces of text that the rules treat differently: letters of 1 to 4 bytes, whitespace and line
// endings, spaced and CJK terminators, every closer, and bytes that are not UTF-8 (a lone
// continuation byte, a truncated sequence).
const std::string kTokens[] = {
    "a",      "bc",     "Word",   "é",      "中",   "😀",    " ",        "  ",      "\t",
    "\n",     "\r\n",   "\n\n",   "\r",     ".",    "!",    "?",        "\u2026",  "\u3002",
    "\uFF01", "\uFF1F", "\"",     "'",      ")",    "]",    "}",        "\u201D",  "\u2019",
    "\u00BB", "\u300D", "\u300F", "\uFF09", "3.14", "\x80", "\xE2\x80", "\xF0\x9F"};

// A random mix of kTokens: `bias` tokens (when given) are drawn half of the time, so that some
// texts are long runs of closers, terminators or one word.
std::string RandomMix(std::mt19937& random, std::size_t tokens, bool valid_utf8,
                      const std::vector<std::string>& bias = {}) {
  std::string text;
  while (tokens-- > 0) {
    const std::string& token = !bias.empty() && random() % 2 == 0
                                   ? bias[random() % bias.size()]
                                   : kTokens[random() % std::size(kTokens)];
    if (valid_utf8 && !IsValidUtf8(token)) continue;
    text += token;
  }
  return text;
}

std::vector<std::string> RandomBias(std::mt19937& random) {
  std::vector<std::string> bias;
  for (auto n = random() % 4; n > 0; --n) bias.push_back(kTokens[random() % std::size(kTokens)]);
  return bias;
}

ChunkerConfig RandomConfig(std::mt19937& random) {
  const std::size_t max_bytes = kMinChunkBytes + random() % 48;
  return Sizes(max_bytes, random() % 3 == 0 ? max_bytes - 1 : random() % max_bytes);
}

// Every input, of any script and any mix of closers, terminators and whitespace: a paragraph's
// pieces are well formed (within max_bytes and non-empty when it is not UTF-8) and cover it in
// order.
TEST(Chunker, PiecesOfRandomParagraphsAreWellFormedAndCoverThemInOrder) {
  std::mt19937 random(1212);
  for (int round = 0; round < 5000; ++round) {
    const bool valid_utf8 = round % 4 != 0;
    std::string paragraph = RandomMix(random, 1 + random() % 400, valid_utf8, RandomBias(random));
    std::replace_if(paragraph.begin(), paragraph.end(), IsAsciiSpace, ' ');
    const std::string trimmed = WhitespaceTokens(paragraph).empty() ? "" : [&] {
      const auto first = paragraph.find_first_not_of(' ');
      return paragraph.substr(first, paragraph.find_last_not_of(' ') + 1 - first);
    }();
    const ChunkerConfig config = RandomConfig(random);
    SCOPED_TRACE("round " + std::to_string(round) + " max " + std::to_string(config.max_bytes) +
                 " overlap " + std::to_string(config.overlap_bytes) + " text: " + paragraph);
    const Chunks pieces = SplitIntoChunks(paragraph, config);
    if (valid_utf8) {
      ExpectWellFormed(pieces, config);
    } else {
      for (const std::string& piece : pieces) {
        EXPECT_FALSE(piece.empty());
        EXPECT_LE(piece.size(), config.max_bytes);
      }
    }
    if (trimmed.empty()) {
      EXPECT_THAT(pieces, IsEmpty());
    } else {
      ExpectCoversInOrder(trimmed, pieces);
    }
  }
}

std::string Repeated(std::string_view unit, std::size_t bytes) {
  std::string text;
  text.reserve(bytes + unit.size());
  while (text.size() < bytes) text += unit;
  return text;
}

// Issue 12: the chunker used to re-scan a run of closers at every candidate cut, so that 16 KiB of
// ")" took seconds and 64 KiB hours. A megabyte of each input that defeats a cut rule is chunked
// here, with the same pieces as if each were ordinary long text.
TEST(Chunker, MegabyteParagraphsThatDefeatEveryCutRuleAreChunked) {
  constexpr std::size_t kMegabyte = 1 << 20;
  std::mt19937 random(4096);
  const std::string no_spaces = RandomMix(random, kMegabyte / 2, true, {"中", "。", ")", "x."});
  const std::string inputs[] = {
      Repeated(")", kMegabyte),
      Repeated("\"", kMegabyte),
      Repeated("\u201D", kMegabyte),
      Repeated("\u3002", kMegabyte),
      Repeated("\u3002\u300D", kMegabyte),
      "." + Repeated(")", kMegabyte) + " end.",
      Repeated("x", kMegabyte),
      Repeated("中", kMegabyte),
      Repeated("x.", kMegabyte),
      "a" + Repeated(" ", kMegabyte) + "b",
      no_spaces.substr(0, no_spaces.find_last_not_of(' ') + 1),
  };
  const ChunkerConfig config{};
  for (const std::string& text : inputs) {
    SCOPED_TRACE(text.substr(0, 12));
    const Chunks chunks = SplitIntoChunks(text, config);
    ExpectWellFormed(chunks, config);
    std::size_t total = 0;
    for (const std::string& chunk : chunks) total += chunk.size();
    // Everything but whitespace is in some chunk; pieces move on by at least max - overlap - 3.
    EXPECT_GE(total + std::count(text.begin(), text.end(), ' '), text.size());
    EXPECT_LE(chunks.size(), text.size() / (config.max_bytes - config.overlap_bytes - 3) + 2);
  }
  // A run of one closer is one long word: every piece but the last is max_bytes of it, and each
  // repeats overlap_bytes of the previous one.
  const Chunks closers = SplitIntoChunks(Repeated(")", kMegabyte), config);
  const std::size_t advance = config.max_bytes - config.overlap_bytes;
  ASSERT_EQ(closers.size(), 1 + (kMegabyte - config.max_bytes + advance - 1) / advance);
  EXPECT_EQ(std::count(closers.begin(), closers.end(), std::string(config.max_bytes, ')')),
            closers.size() - 1);
  EXPECT_EQ(closers.back(),
            std::string(config.overlap_bytes + (kMegabyte - config.max_bytes) % advance, ')'));
}

// The bounded split gives SplitIntoChunks's chunks, or gives up at the first chunk beyond its
// limit (so a megabyte-long word with a limit of 10 costs 11 chunks).
TEST(Chunker, UpToMaxChunksGivesTheChunksOrNothingWhenThereAreMore) {
  const std::string text = "alpha beta gamma delta epsilon zeta\n\none more";
  const Chunks all = SplitIntoChunks(text, Sizes(20, 0));
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(SplitIntoChunksUpTo(text, Sizes(20, 0), 3), all);
  EXPECT_EQ(SplitIntoChunksUpTo(text, Sizes(20, 0), 2), std::nullopt);
  EXPECT_EQ(SplitIntoChunksUpTo(text, Sizes(20, 0), 0), std::nullopt);
  EXPECT_EQ(SplitIntoChunksUpTo("", Sizes(20, 0), 0), Chunks{});
  EXPECT_EQ(SplitIntoChunksUpTo(Repeated("x", 1 << 20), ChunkerConfig{}, 10), std::nullopt);
  EXPECT_THROW(SplitIntoChunksUpTo(text, Sizes(8, 0), 3), std::invalid_argument);
}

}  // namespace
}  // namespace docgate
