#include "app/text_analyzer.h"

#include <libstemmer.h>
#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace docgate {
namespace {

// The ICU and Snowball objects one thread analyses with.
class Analyzer {
 public:
  Analyzer() {
    UErrorCode status = U_ZERO_ERROR;
    words_.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    fold_ = icu::Normalizer2::getNFKCCasefoldInstance(status);
    if (U_FAILURE(status) || !words_ || fold_ == nullptr) {
      throw std::runtime_error(std::string("ICU cannot analyse text: ") + u_errorName(status));
    }
  }
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;
  ~Analyzer() {
    for (auto& [language, stemmer] : stemmers_) sb_stemmer_delete(stemmer.snowball);
  }

  std::vector<AnalyzedTerm> Analyze(std::string_view text, AnalyzerUse use);
  std::vector<TextWord> Segment(std::string_view text);

 private:
  // A character of a run of Han or kana, at its byte offsets.
  struct RunChar {
    std::size_t begin;
    std::size_t end;
  };

  std::string Fold(std::string_view utf8) const;
  // `folded` stemmed in `language` (a Snowball language name).
  std::string Stem(const char* language, const std::string& folded);
  // Appends a term at the next position, or at the last one when `colocated`.
  void Add(std::string term, std::size_t begin, std::size_t end, bool colocated,
           std::vector<AnalyzedTerm>& terms);
  void AddWord(std::string_view text, std::size_t begin, std::size_t end, bool colocated,
               std::vector<AnalyzedTerm>& terms);
  // A word of any script but Han and kana; for the index, an identifier's parts (SplitCompound)
  // too, at the whole word's position.
  void AddCompound(std::string_view text, std::size_t begin, std::size_t end,
                   std::vector<AnalyzedTerm>& terms);
  void FlushRun(std::string_view text, std::vector<AnalyzedTerm>& terms);

  std::unique_ptr<icu::BreakIterator> words_;
  const icu::Normalizer2* fold_ = nullptr;  // owned by ICU
  // A Snowball stemmer and the stems of the words it saw last (Snowball is most of the cost of
  // English text otherwise). Made on first use of its language.
  struct Stemmer {
    sb_stemmer* snowball = nullptr;
    std::unordered_map<std::string, std::string> stems;
  };
  static constexpr std::size_t kMaxCachedStems = 50'000;
  std::unordered_map<std::string_view, Stemmer> stemmers_;
  std::vector<RunChar> run_;  // the Han and kana characters not yet turned into bigrams
  AnalyzerUse use_ = AnalyzerUse::kIndex;
  std::uint32_t next_position_ = 0;
};

// Han, Hiragana and Katakana: the characters that are indexed as bigrams.
bool IsBigramScript(UChar32 c) {
  if (c < 0x2E80) return false;  // below the CJK radicals: no Han, Hiragana or Katakana
  const UScriptCode script = static_cast<UScriptCode>(u_getIntPropertyValue(c, UCHAR_SCRIPT));
  return script == USCRIPT_HAN || script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA ||
         // KATAKANA-HIRAGANA PROLONGED SOUND MARK, full and half width (script Common)
         c == 0x30FC || c == 0xFF70;
}

// The voiced and semi-voiced sound marks of kana, which NFKC composes with the kana before them
// (half-width ﾃﾞ becomes デ): part of that character, so bigrams pair the same characters however
// the text was written.
bool IsSoundMark(UChar32 c) { return (c >= 0x3099 && c <= 0x309C) || c == 0xFF9E || c == 0xFF9F; }

// The Snowball language for a word made of the letters (and combining marks) of one script, by
// the language most written in that script; none for anything else (digits, mixed scripts). Latin
// is English: docgate's users write Chinese and English, and a French or German word gets English
// stems too (no worse than none for finding it, as index and query agree).
const char* StemmerLanguage(std::string_view folded) {
  UScriptCode script = USCRIPT_INVALID_CODE;
  for (std::size_t i = 0; i < folded.size();) {
    UChar32 c;
    U8_NEXT(folded.data(), i, folded.size(), c);
    UScriptCode of = USCRIPT_LATIN;
    if (c >= 0 && c < 0x80) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return nullptr;
    } else if (c >= 0 && (U_GET_GC_MASK(c) & U_GC_M_MASK) != 0) {
      continue;  // a combining mark belongs to its letter
    } else if (c < 0 || !u_isalpha(c)) {
      return nullptr;
    } else {
      of = static_cast<UScriptCode>(u_getIntPropertyValue(c, UCHAR_SCRIPT));
    }
    if (script != USCRIPT_INVALID_CODE && of != script) return nullptr;
    script = of;
  }
  switch (script) {
    case USCRIPT_LATIN: return "english";
    case USCRIPT_CYRILLIC: return "russian";
    case USCRIPT_GREEK: return "greek";
    case USCRIPT_ARABIC: return "arabic";
    case USCRIPT_ARMENIAN: return "armenian";
    case USCRIPT_DEVANAGARI: return "hindi";
    case USCRIPT_TAMIL: return "tamil";
    default: return nullptr;
  }
}

bool IsDigit(UChar32 c) { return c >= 0 && (c < 0x80 ? c >= '0' && c <= '9' : u_isdigit(c)); }
bool IsUpper(UChar32 c) { return c >= 0 && (c < 0x80 ? c >= 'A' && c <= 'Z' : u_isUUppercase(c)); }
bool IsLower(UChar32 c) { return c >= 0 && (c < 0x80 ? c >= 'a' && c <= 'z' : u_isULowercase(c)); }

// The parts of an identifier-like word, as byte ranges: split at `_`, `:` and at a `.` that is not
// between two digits (lock_timeout, alerts.yml, but 3.14), and where case changes inside a word
// (readinessProbe, mTLS, HTTPServer -> HTTP Server), so each part is found on its own and the
// parts in order as a phrase. A word without such places is one part.
std::vector<std::pair<std::size_t, std::size_t>> SplitCompound(std::string_view text,
                                                               std::size_t begin, std::size_t end) {
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  std::size_t part_begin = begin;
  UChar32 before = U_SENTINEL;  // the previous code point of the word, if any
  for (std::size_t i = begin; i < end;) {
    const std::size_t at = i;
    UChar32 c;
    U8_NEXT(text.data(), i, end, c);
    UChar32 after = U_SENTINEL;
    if (std::size_t next = i; next < end) U8_NEXT(text.data(), next, end, after);
    const bool separator =
        c == '_' || c == ':' || (c == '.' && !(IsDigit(before) && IsDigit(after)));
    const bool case_change =
        IsUpper(c) && (IsLower(before) || (IsUpper(before) && IsLower(after)));
    if (separator || case_change) {
      if (at > part_begin) parts.emplace_back(part_begin, at);
      part_begin = separator ? i : at;
    }
    before = c;
  }
  if (end > part_begin) parts.emplace_back(part_begin, end);
  return parts;
}

// Characters NFKC_Casefold maps to themselves, for which the fold is a copy: ASCII other than
// A-Z, the CJK Unified Ideographs and extension A, Hiragana and Katakana (not their
// half-width forms, nor the compatibility ideographs).
bool FoldsToItself(UChar32 c) {
  return (c >= 0 && c < 0x80 && !(c >= 'A' && c <= 'Z')) || (c >= 0x4E00 && c <= 0x9FFF) ||
         (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x3041 && c <= 0x3096) ||
         (c >= 0x30A1 && c <= 0x30FA) || c == 0x30FC;
}

std::string Analyzer::Fold(std::string_view utf8) const {
  // The common cases without ICU: ASCII words (lower-cased) and text that folds to itself.
  bool stable = true;
  bool ascii = true;
  for (std::size_t i = 0; i < utf8.size() && (stable || ascii);) {
    UChar32 c;
    U8_NEXT(utf8.data(), i, utf8.size(), c);
    ascii = ascii && c >= 0 && c < 0x80;
    stable = stable && FoldsToItself(c);
  }
  if (stable) return std::string(utf8);
  if (ascii) {
    std::string lower(utf8);
    for (char& ch : lower) {
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    }
    return lower;
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString folded =
      fold_->normalize(icu::UnicodeString::fromUTF8(
                           icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size()))),
                       status);
  std::string out;
  if (U_SUCCESS(status)) folded.toUTF8String(out);
  return out;
}

std::string Analyzer::Stem(const char* language, const std::string& folded) {
  Stemmer& stemmer = stemmers_[language];
  if (stemmer.snowball == nullptr) {
    stemmer.snowball = sb_stemmer_new(language, "UTF_8");
    if (stemmer.snowball == nullptr) return folded;  // this libstemmer lacks the language
  }
  if (const auto known = stemmer.stems.find(folded); known != stemmer.stems.end()) {
    return known->second;
  }
  const sb_symbol* stem =
      sb_stemmer_stem(stemmer.snowball, reinterpret_cast<const sb_symbol*>(folded.data()),
                      static_cast<int>(folded.size()));
  if (stem == nullptr) return folded;  // out of memory in the stemmer: the unstemmed word
  std::string stemmed(reinterpret_cast<const char*>(stem),
                      static_cast<std::size_t>(sb_stemmer_length(stemmer.snowball)));
  if (stemmer.stems.size() >= kMaxCachedStems) stemmer.stems.clear();
  stemmer.stems.emplace(folded, stemmed);
  return stemmed;
}

void Analyzer::Add(std::string term, std::size_t begin, std::size_t end, bool colocated,
                   std::vector<AnalyzedTerm>& terms) {
  if (term.empty()) return;
  const bool shared = colocated && !terms.empty();
  const std::uint32_t position = shared ? terms.back().position : next_position_++;
  terms.push_back(AnalyzedTerm{std::move(term), begin, end, position});
}

void Analyzer::AddWord(std::string_view text, std::size_t begin, std::size_t end, bool colocated,
                       std::vector<AnalyzedTerm>& terms) {
  std::string folded = Fold(text.substr(begin, end - begin));
  if (const char* language = StemmerLanguage(folded)) folded = Stem(language, folded);
  Add(std::move(folded), begin, end, colocated, terms);
}

void Analyzer::AddCompound(std::string_view text, std::size_t begin, std::size_t end,
                           std::vector<AnalyzedTerm>& terms) {
  const auto parts = use_ == AnalyzerUse::kIndex ? SplitCompound(text, begin, end)
                                                 : decltype(SplitCompound(text, begin, end)){};
  AddWord(text, begin, end, false, terms);
  if (parts.size() <= 1) return;
  for (const auto& [part_begin, part_end] : parts) AddWord(text, part_begin, part_end, true, terms);
}

void Analyzer::FlushRun(std::string_view text, std::vector<AnalyzedTerm>& terms) {
  if (run_.size() == 1) AddWord(text, run_[0].begin, run_[0].end, false, terms);
  const bool unigrams = use_ == AnalyzerUse::kIndex;
  for (std::size_t i = 0; i + 1 < run_.size(); ++i) {
    const std::size_t begin = run_[i].begin;
    const std::size_t end = run_[i + 1].end;
    Add(Fold(text.substr(begin, end - begin)), begin, end, false, terms);
    if (unigrams) AddWord(text, begin, run_[i].end, true, terms);
  }
  if (unigrams && run_.size() > 1) AddWord(text, run_.back().begin, run_.back().end, true, terms);
  run_.clear();
}

std::vector<AnalyzedTerm> Analyzer::Analyze(std::string_view text, AnalyzerUse use) {
  std::vector<AnalyzedTerm> terms;
  use_ = use;
  next_position_ = 0;
  UErrorCode status = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
  if (U_FAILURE(status)) return terms;
  words_->setText(ut, status);
  if (U_FAILURE(status)) {
    utext_close(ut);
    return terms;
  }
  run_.clear();
  std::size_t start = 0;
  for (int32_t next = words_->next(); next != icu::BreakIterator::DONE; next = words_->next()) {
    const auto end = static_cast<std::size_t>(next);
    const bool word = words_->getRuleStatus() >= UBRK_WORD_NONE_LIMIT;
    // Walk the segment's characters: Han and kana join the current run; anything else ends it.
    std::size_t i = start;
    std::size_t word_begin = start;
    bool in_other = false;
    while (i < end) {
      const std::size_t at = i;
      UChar32 c;
      U8_NEXT(text.data(), i, end, c);
      if (IsSoundMark(c) && !run_.empty() && run_.back().end == at) {
        run_.back().end = i;  // ﾃﾞ is one character, デ, once folded
        continue;
      }
      const bool bigram = c >= 0 && word && IsBigramScript(c);
      if (bigram) {
        if (in_other) AddCompound(text, word_begin, at, terms);
        in_other = false;
        if (!run_.empty() && run_.back().end != at) FlushRun(text, terms);
        run_.push_back(RunChar{at, i});
      } else if (!in_other) {
        if (!run_.empty()) FlushRun(text, terms);
        in_other = true;
        word_begin = at;
      }
    }
    if (in_other && word) AddCompound(text, word_begin, end, terms);
    start = end;
  }
  FlushRun(text, terms);
  utext_close(ut);
  return terms;
}

std::vector<TextWord> Analyzer::Segment(std::string_view text) {
  std::vector<TextWord> words;
  UErrorCode status = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
  if (U_FAILURE(status)) return words;
  words_->setText(ut, status);
  std::size_t start = 0;
  for (int32_t next = words_->next(); U_SUCCESS(status) && next != icu::BreakIterator::DONE;
       next = words_->next()) {
    const auto end = static_cast<std::size_t>(next);
    if (words_->getRuleStatus() >= UBRK_WORD_NONE_LIMIT) {
      bool bigram = true;
      for (std::size_t i = start; i < end && bigram;) {
        UChar32 c;
        U8_NEXT(text.data(), i, end, c);
        bigram = c >= 0 && (IsBigramScript(c) || IsSoundMark(c));
      }
      std::string folded = Fold(text.substr(start, end - start));
      if (!folded.empty()) words.push_back(TextWord{std::move(folded), start, end, bigram});
    }
    start = end;
  }
  utext_close(ut);
  return words;
}

// This thread's analyzer.
Analyzer& ThreadAnalyzer() {
  thread_local Analyzer analyzer;
  return analyzer;
}

}  // namespace

std::vector<TextWord> SegmentWords(std::string_view text) { return ThreadAnalyzer().Segment(text); }

std::vector<AnalyzedTerm> AnalyzeText(std::string_view text, AnalyzerUse use) {
  return ThreadAnalyzer().Analyze(text, use);
}

}  // namespace docgate
