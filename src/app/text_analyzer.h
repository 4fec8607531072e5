#pragma once

// docgate's one text analyzer (issue 16): what the search index stores for a text and what a
// query is turned into, the same on every backend, so that SQLite and PostgreSQL find the same
// documents for the same query.
//
// A text is split into words by ICU's word BreakIterator (dictionary-based for scripts written
// without spaces: Chinese, Japanese, Thai, Khmer, ...). Each word is folded with NFKC_Casefold
// (full-width and half-width forms, ligatures and case fold together), and a word of the letters
// of one script is reduced to its Snowball stem (libstemmer) in the language most written in that
// script: English for Latin (so that `locks` finds `lock`), Russian for Cyrillic, Greek, Arabic,
// Armenian, Hindi for Devanagari, Tamil.
//
// For the index, identifiers are also split into their parts, terms at the whole word's position:
// at `_`, `:`, a `.` not between digits, and where case changes inside a word (lock_timeout,
// readinessProbe, mTLS, alerts.yml), so `timeout` finds lock_timeout, and `rabbitmq` finds
// RabbitMQ.
//
// Runs of Han and kana characters are indexed as overlapping two-character terms (bigrams, the
// approach of Lucene's `cjk` analyzer) instead of the dictionary's words: any word or phrase of two
// or more characters that appears in a text is then found by the bigrams of the query, whatever
// the dictionary decided in context. A run of one such character is one term. A text analysed for
// the index also gets each character of such a run as a term of its own, at the position of the
// bigram it starts (the last one at the last bigram's), so a query of one character (锁) finds it
// inside longer words (加锁) while phrases of bigrams stay adjacent.
//
// Linear in the text's length; never throws for any input (bytes that are not well-formed UTF-8
// separate words, like spaces). Thread-safe: each thread uses its own break iterator and stemmer.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

// What a text is analysed for: the index (stored text: bigrams and the single characters of Han
// and kana runs) or a query (bigrams only, unless a run is one character long).
enum class AnalyzerUse { kIndex, kQuery };

// One term and where it came from in the analysed text.
struct AnalyzedTerm {
  std::string term;            // UTF-8, folded (and stemmed, or a bigram); never empty
  std::size_t begin = 0;       // byte offset in the text
  std::size_t end = 0;         // byte offset just past it
  std::uint32_t position = 0;  // 0 for the first term; terms at one position are alternatives
  bool operator==(const AnalyzedTerm&) const = default;
};

// The terms of `text` in the order they appear (positions never decrease; a term that shares the
// previous term's position follows it).
std::vector<AnalyzedTerm> AnalyzeText(std::string_view text, AnalyzerUse use);

// A word of a text as ICU's word BreakIterator finds it (by its dictionary in Han and kana), with
// its NFKC_Casefold form, unstemmed.
struct TextWord {
  std::string folded;
  std::size_t begin = 0;  // byte offsets in the text
  std::size_t end = 0;
  bool bigram_script = false;  // every character is Han or kana (indexed as bigrams)
  bool operator==(const TextWord&) const = default;
};

// The words of `text` in order (punctuation and whitespace are none): what a query is made of
// before its words become terms (app/search_query.h), so that a question word or a particle can
// be told from the words around it (如何配置 -> 如何, 配置). Never throws; thread-safe.
std::vector<TextWord> SegmentWords(std::string_view text);

}  // namespace docgate
