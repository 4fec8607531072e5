#include "app/search_query.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <tuple>
#include <utility>

#include "app/text_analyzer.h"
#include "core/search_text.h"
#include "core/utf8.h"

namespace docgate {
namespace {

// Folded (NFKC_Casefold) words of a question that carry no topic, sorted for binary search: the
// Chinese question words, copulas, particles, pronouns and conjunctions ICU's dictionary cuts out
// of a question, and the English stop words of questions (their contractions included).
constexpr std::array kStopWords = std::to_array<std::string_view>({
    "a",      "about",  "am",       "an",       "and",     "any",   "are",   "aren't", "as",
    "at",     "be",     "been",     "being",    "but",     "by",    "can",   "can't",  "cannot",
    "could",  "did",    "do",       "does",     "doesn't", "doing", "don't", "for",    "from",
    "had",    "has",    "have",     "here",     "how",     "how's", "i",     "if",     "in",
    "into",   "is",     "isn't",    "it",       "it's",    "its",   "may",   "me",     "might",
    "must",   "my",     "of",       "on",       "or",      "our",   "shall", "should", "so",
    "some",   "that",   "the",      "their",    "them",    "then",  "there", "these",  "they",
    "this",   "those",  "to",       "us",       "was",     "we",    "were",  "what",   "what's",
    "when",   "where",  "which",    "who",      "whom",    "whose", "why",   "will",   "with",
    "would",  "you",    "your",     "一下",     "为什么",  "为何",  "么",    "之",     "了",
    "什么",   "什么是", "什么时候", "什么样",   "他",      "他们",  "以及",  "会",     "会不会",
    "你",     "你们",   "吗",       "吧",       "呀",      "呢",    "和",    "咋",     "咋样",
    "哪",     "哪个",   "哪些",     "哪儿",     "哪种",    "哪里",  "啊",    "啥",     "嘛",
    "在",     "多少",   "她",       "如何",     "它",      "我",    "我们",  "或",     "或者",
    "是",     "是不是", "是否",     "有",       "有没有",  "的",    "着",    "能",     "能不能",
    "能否",   "要不要", "该",       "请",       "请问",    "还是",  "这",    "这个",   "这些",
    "那",     "那个",   "那些",     "可不可以", "可否",    "与",    "及",    "怎么",   "怎么办",
    "怎么样", "怎样",   "为啥",     "地",       "得",      "过",
});

// kStopWords sorted (by bytes), made once.
const std::vector<std::string_view>& SortedStopWords() {
  static const std::vector<std::string_view> sorted = [] {
    std::vector<std::string_view> words(kStopWords.begin(), kStopWords.end());
    std::sort(words.begin(), words.end());
    return words;
  }();
  return sorted;
}

// Adds `text` as one phrase of its terms, unless it has none. A phrase of the same terms as an
// earlier one is that one, required if either is.
void AddPhrase(std::string_view text, bool required, SearchQuery& query) {
  SearchPhrase phrase{std::string(text), {}, required};
  for (AnalyzedTerm& term : AnalyzeText(text, AnalyzerUse::kQuery)) {
    phrase.terms.push_back(std::move(term.term));
  }
  if (phrase.terms.empty()) return;
  const auto earlier = std::find_if(query.phrases.begin(), query.phrases.end(),
                                    [&](const SearchPhrase& p) { return p.terms == phrase.terms; });
  if (earlier == query.phrases.end()) {
    query.phrases.push_back(std::move(phrase));
  } else {
    earlier->required = earlier->required || required;
  }
}

// Adds each term of `text` as an optional phrase of its own, with the text it was made of.
void AddTerms(std::string_view text, SearchQuery& query) {
  for (const AnalyzedTerm& term : AnalyzeText(text, AnalyzerUse::kQuery)) {
    AddPhrase(text.substr(term.begin, term.end - term.begin), false, query);
  }
}

// The optional phrases of unquoted text (ParseSearchQuery).
void AddWords(std::string_view text, SearchQuery& query) {
  constexpr std::size_t kNone = std::string_view::npos;
  std::size_t run_begin = kNone;  // the Han and kana words not yet added, as one byte range
  std::size_t run_end = 0;
  bool run_ends_single = false;        // the run's last word is one character
  std::size_t previous_begin = kNone;  // the word before, when it was of another script
  std::string previous_folded;
  const auto flush_run = [&] {
    if (run_begin != kNone) AddTerms(text.substr(run_begin, run_end - run_begin), query);
    run_begin = kNone;
  };
  for (const TextWord& word : SegmentWords(text)) {
    const bool stop = IsQueryStopWord(word.folded);
    const bool single = word.bigram_script && Utf8Length(word.folded) == std::size_t{1};
    const bool joins =
        word.bigram_script && !stop && run_end == word.begin && (single || run_ends_single);
    if (!joins) flush_run();
    if (stop) {
      previous_begin = kNone;
    } else if (word.bigram_script) {
      if (run_begin == kNone) run_begin = word.begin;
      run_end = word.end;
      run_ends_single = single;
      previous_begin = kNone;
    } else {
      AddTerms(text.substr(word.begin, word.end - word.begin), query);
      if (previous_begin != kNone && previous_folded != word.folded) {
        AddPhrase(text.substr(previous_begin, word.end - previous_begin), false, query);
      }
      previous_begin = word.begin;
      previous_folded = word.folded;
    }
  }
  flush_run();
}

// The words of `text` (SearchWords: control characters and bytes that are not UTF-8 are
// whitespace) joined by single spaces.
std::string CleanWords(std::string_view text) {
  std::string words;
  for (const std::string& word : SearchWords(text)) words += (words.empty() ? "" : " ") + word;
  return words;
}

}  // namespace

bool IsQueryStopWord(std::string_view folded) {
  return std::binary_search(SortedStopWords().begin(), SortedStopWords().end(), folded);
}

SearchQuery ParseSearchQuery(std::string_view text) {
  SearchQuery query;
  bool quoted = false;
  while (!text.empty()) {
    const std::size_t quote = text.find('"');
    const std::string cleaned = CleanWords(text.substr(0, quote));
    if (quoted) {
      AddPhrase(cleaned, true, query);
    } else {
      AddWords(cleaned, query);
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
