#pragma once

// A user's search text as docgate matches it, the same on every backend (issue 16): phrases of
// the text analyzer's terms (app/text_analyzer.h), every phrase required.

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
  bool operator==(const SearchPhrase&) const = default;
};

// Every phrase must match. No phrase: the query matches nothing.
struct SearchQuery {
  std::vector<SearchPhrase> phrases;
  bool empty() const { return phrases.empty(); }
  // All the phrases as one, in order (their texts joined by a space, their terms in turn): what
  // the engines OR with a query of several phrases, so chunks holding them adjacent rank first.
  SearchPhrase Joined() const;
};

// The text between two double quotes is one phrase (a quote left open runs to the end of the
// text); any other word (SearchWords, core/search_text.h: split at whitespace) is a phrase of its
// own, so 知识库 is the phrase 知识 识库 and e-mail the phrase e mail. Phrases without terms
// (punctuation only) are dropped, and so is a phrase equal to an earlier one. Nothing of the text
// is syntax but the double quote.
SearchQuery ParseSearchQuery(std::string_view text);

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
