#include "app/search_query.h"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>

#include "app/text_analyzer.h"
#include "core/search_text.h"

namespace docgate {
namespace {

void AddPhrase(std::string_view text, SearchQuery& query) {
  SearchPhrase phrase{std::string(text), {}};
  for (AnalyzedTerm& term : AnalyzeText(text, AnalyzerUse::kQuery)) {
    phrase.terms.push_back(std::move(term.term));
  }
  if (phrase.terms.empty()) return;
  const bool repeated = std::any_of(query.phrases.begin(), query.phrases.end(),
                                    [&](const SearchPhrase& p) { return p.terms == phrase.terms; });
  if (!repeated) query.phrases.push_back(std::move(phrase));
}

}  // namespace

SearchPhrase SearchQuery::Joined() const {
  SearchPhrase joined;
  for (const SearchPhrase& phrase : phrases) {
    joined.text += (joined.text.empty() ? "" : " ") + phrase.text;
    joined.terms.insert(joined.terms.end(), phrase.terms.begin(), phrase.terms.end());
  }
  return joined;
}

SearchQuery ParseSearchQuery(std::string_view text) {
  SearchQuery query;
  bool quoted = false;
  while (!text.empty()) {
    const std::size_t quote = text.find('"');
    const std::string_view part = text.substr(0, quote);
    if (quoted) {
      // Whitespace only separates words, so a phrase's own text is what SearchWords keeps of it.
      std::string words;
      for (const std::string& word : SearchWords(part)) words += (words.empty() ? "" : " ") + word;
      AddPhrase(words, query);
    } else {
      for (const std::string& word : SearchWords(part)) AddPhrase(word, query);
    }
    if (quote == std::string_view::npos) break;
    text.remove_prefix(quote + 1);
    quoted = !quoted;
  }
  return query;
}

AnalyzedText::AnalyzedText(std::string_view text) {
  for (AnalyzedTerm& term : AnalyzeText(text, AnalyzerUse::kIndex)) {
    while (first_at_.size() <= term.position) first_at_.push_back(terms_.size());
    terms_.push_back(Term{std::move(term.term), term.begin, term.end, term.position});
    ends_.push_back(term.end);
  }
  std::sort(ends_.begin(), ends_.end());
}

bool AnalyzedText::At(std::uint32_t position, const std::string& term, std::size_t& end) const {
  if (position >= first_at_.size()) return false;
  for (std::size_t i = first_at_[position]; i < terms_.size() && terms_[i].position == position;
       ++i) {
    if (terms_[i].text == term) {
      end = terms_[i].end;
      return true;
    }
  }
  return false;
}

std::vector<PhraseMatch> AnalyzedText::Find(const SearchQuery& query) const {
  std::vector<PhraseMatch> matches;
  for (std::size_t p = 0; p < query.phrases.size(); ++p) {
    const std::vector<std::string>& phrase = query.phrases[p].terms;
    for (const Term& first : terms_) {
      if (first.text != phrase.front()) continue;
      std::size_t end = first.end;
      bool all = true;
      for (std::size_t k = 1; all && k < phrase.size(); ++k) {
        all = At(first.position + static_cast<std::uint32_t>(k), phrase[k], end);
      }
      if (all) matches.push_back(PhraseMatch{p, first.begin, end});
    }
  }
  std::sort(matches.begin(), matches.end(), [](const PhraseMatch& a, const PhraseMatch& b) {
    return std::tie(a.begin, a.phrase, a.end) < std::tie(b.begin, b.phrase, b.end);
  });
  return matches;
}

std::size_t AnalyzedText::WordBeginAtOrAfter(std::size_t at) const {
  // Terms come in order of position, so their begins never decrease.
  const auto it = std::lower_bound(terms_.begin(), terms_.end(), at,
                                   [](const Term& term, std::size_t x) { return term.begin < x; });
  return it == terms_.end() ? at : it->begin;
}

std::size_t AnalyzedText::WordEndAtOrBefore(std::size_t at) const {
  const auto it = std::upper_bound(ends_.begin(), ends_.end(), at);
  return it == ends_.begin() ? at : *std::prev(it);
}

}  // namespace docgate
