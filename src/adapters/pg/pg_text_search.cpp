#include "adapters/pg/pg_text_search.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "app/text_analyzer.h"

namespace docgate {
namespace {

constexpr std::uint32_t kMaxPosition = 16'383;
constexpr std::size_t kMaxPositionsPerTerm = 256;
constexpr std::size_t kMaxTermBytes = 2'046;

// A term as a quoted lexeme: `'` doubled and `\` escaped, as tsvector and tsquery input read it.
void AppendLexeme(std::string_view term, std::string& out) {
  out += '\'';
  for (const char c : term) {
    if (c == '\'' || c == '\\') out += c;
    out += c;
  }
  out += '\'';
}

// A phrase as its lexemes joined by `<->` (adjacent, in order), in parentheses.
void AppendPhrase(const SearchPhrase& phrase, std::string& out) {
  out += '(';
  for (std::size_t i = 0; i < phrase.terms.size(); ++i) {
    if (i > 0) out += " <-> ";
    AppendLexeme(phrase.terms[i], out);
  }
  out += ')';
}

using Positions = std::map<std::string, std::vector<std::uint16_t>>;  // the weight in bits 14-15

// Adds the terms of `text` at `first` + their positions; returns the position after the last.
std::uint32_t AddTerms(std::string_view text, std::uint32_t first, std::uint16_t weight,
                       Positions& positions) {
  std::uint32_t next = first;
  for (const AnalyzedTerm& term : AnalyzeText(text, AnalyzerUse::kIndex)) {
    const std::uint32_t position = std::min(first + term.position, kMaxPosition);
    next = std::max(next, position + 1);
    if (term.term.size() > kMaxTermBytes) continue;
    std::vector<std::uint16_t>& at = positions[term.term];
    if (at.size() < kMaxPositionsPerTerm) {
      at.push_back(static_cast<std::uint16_t>(weight << 14 | position));
    }
  }
  return next;
}

}  // namespace

std::string TsVectorLiteral(std::string_view title, std::string_view content,
                            std::int32_t* length) {
  constexpr std::uint16_t kWeightA = 3;
  constexpr std::uint16_t kWeightB = 2;
  Positions positions;
  const std::uint32_t after_title = AddTerms(title, 1, kWeightA, positions);
  const std::uint32_t end = AddTerms(content, after_title + 1, kWeightB, positions);
  if (length != nullptr) *length = static_cast<std::int32_t>(end - 2);  // the gaps before each
  std::string out;
  for (const auto& [term, at] : positions) {
    if (!out.empty()) out += ' ';
    AppendLexeme(term, out);
    char separator = ':';
    for (const std::uint16_t entry : at) {
      out += separator;
      out += std::to_string(entry & 0x3FFF);
      out += (entry >> 14) == kWeightA ? 'A' : 'B';
      separator = ',';
    }
  }
  return out;
}

std::vector<std::string> TsPhraseLiterals(const SearchQuery& query) {
  std::vector<std::string> phrases;
  for (const SearchPhrase& phrase : query.phrases) {
    phrases.emplace_back();
    AppendPhrase(phrase, phrases.back());
  }
  return phrases;
}

std::string TsFindersLiteral(const SearchQuery& query, const SearchPlan& plan) {
  return WriteFinders(query, plan, AppendPhrase, " & ", " | ");
}

}  // namespace docgate
