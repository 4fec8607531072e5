#pragma once

// A user's search text as docgate matches it, the same on every backend (issues 16 and 34): a
// bag of optional terms that rank (BM25-like in the engines), and phrases in double quotes that a
// hit must hold. Words are the text analyzer's terms (app/text_analyzer.h).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

// Terms that must occur adjacent and in order.
struct SearchPhrase {
  std::string text;                // the user's text of the phrase, for an engine that analyses it
                                   // itself with docgate's analyzer (SQLite's FTS5 tokenizer)
  std::vector<std::string> terms;  // the analyzer's terms of `text`, analysed as a query
  bool required = false;           // quoted: every hit holds it; else it only ranks the hits
  bool operator==(const SearchPhrase&) const = default;
};

// A hit holds every required phrase and, when the query has no required phrase, at least one
// optional one. The engines rank hits by the optional and required phrases they hold, the rarer
// the more. No phrase: the query matches nothing.
struct SearchQuery {
  std::vector<SearchPhrase> phrases;
  bool empty() const { return phrases.empty(); }
};

// The text between two double quotes is one required phrase (a quote left open runs to the end of
// the text). Everything else is cut into words by ICU's dictionary (SegmentWords), and a word that
// is a question word, a particle or a stop word (什么, 如何, 是否, 吗, 的, 了, "how", "the", ...:
// IsQueryStopWord) is dropped. The rest become optional phrases:
// - Han and kana words standing together (no space or dropped word between) are joined into a run
//   where one of two neighbours is a single character (数据|库, 知识|库: the dictionary cuts
//   compounds so, and words it does not know into characters); each analyzer term of a run (its
//   bigrams; one character alone) is an optional phrase of one term. No bigram is made between two
//   words of two or more characters (配置网络 gives 配置 and 网络, not 置网): measured on
//   bench/relevance_qa's tune half, such bigrams matched unrelated text more often than they
//   ranked the words side by side.
// - Each term of any other word is an optional phrase of one term, and two such words in a row an
//   optional phrase of their terms (dead letter), which ranks them side by side higher.
// Phrases without terms (punctuation only) are dropped, and so is a phrase equal to an earlier
// one. Nothing of the text is syntax but the double quote.
SearchQuery ParseSearchQuery(std::string_view text);

// Whether the folded word (NFKC_Casefold, unstemmed) carries nothing a search could match on: a
// Chinese question word, copula or particle, or an English stop word of questions.
bool IsQueryStopWord(std::string_view folded);

// Bytes [begin, end) of a text where phrase number `phrase` of a query occurs.
struct PhraseMatch {
  std::size_t phrase = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
  bool operator==(const PhraseMatch&) const = default;
};

// A text analysed for the index once, to find the phrases of queries in it and to cut it at its
// words' boundaries (the snippets of search hits, and the fake index of the tests).
class AnalyzedText {
 public:
  explicit AnalyzedText(std::string_view text);

  // Every occurrence of every phrase of `query`, ordered by begin (then phrase).
  std::vector<PhraseMatch> Find(const SearchQuery& query) const;
  // The first byte offset >= `at` where a term begins, or `at` when none does. O(log terms).
  std::size_t WordBeginAtOrAfter(std::size_t at) const;
  // The last byte offset <= `at` where a term ends, or `at` when none does. O(log terms).
  std::size_t WordEndAtOrBefore(std::size_t at) const;

 private:
  struct Term {
    std::string text;
    std::size_t begin;
    std::size_t end;
    std::uint32_t position;
  };
  // Whether `term` occurs at `position`; its end byte offset is put in `end`.
  bool At(std::uint32_t position, const std::string& term, std::size_t& end) const;

  std::vector<Term> terms_;            // in order of position
  std::vector<std::size_t> first_at_;  // first_at_[p]: index of the first term at position p
  std::vector<std::size_t> ends_;      // every term's end, ascending
};

}  // namespace docgate
