#include "fakes/fake_chunk_index.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/search_text.h"
#include "core/utf8.h"

namespace docgate {
namespace {

// A word of the fake's full-text search: lower-cased (ASCII), where it starts in the text.
struct Word {
  std::string text;
  std::size_t at = 0;
};

// Letters and digits, crudely: ASCII letters and digits, and any other code point except the
// punctuation and symbol blocks U+2000..U+2BFF and everything from U+1F000 on (emoji).
bool IsWordCodePoint(std::string_view sequence) {
  const auto lead = static_cast<unsigned char>(sequence[0]);
  if (sequence.size() == 1) return std::isalnum(lead) != 0;
  if (sequence.size() == 4) return false;
  if (sequence.size() == 3) {
    const char32_t cp =
        ((lead & 0x0Fu) << 12) | ((sequence[1] & 0x3Fu) << 6) | (sequence[2] & 0x3Fu);
    return cp < 0x2000 || cp > 0x2BFF;
  }
  return true;
}

std::vector<Word> Words(std::string_view text) {
  std::vector<Word> words;
  std::optional<Word> word;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = std::max<std::size_t>(Utf8SequenceLength(text, i), 1);
    const std::string_view sequence = text.substr(i, length);
    if (Utf8SequenceLength(text, i) > 0 && IsWordCodePoint(sequence)) {
      if (!word) word = Word{"", i};
      for (const char c : sequence) {
        word->text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    } else if (word) {
      words.push_back(std::move(*word));
      word.reset();
    }
    i += length;
  }
  if (word) words.push_back(std::move(*word));
  return words;
}

// Crude suffix stripping, enough for "reviews", "reviewed" and "reviewing" to meet "review".
std::string Stem(std::string word) {
  const auto strip = [&](std::string_view suffix, std::size_t min_rest) {
    if (word.size() >= suffix.size() + min_rest && word.ends_with(suffix)) {
      word.resize(word.size() - suffix.size());
      return true;
    }
    return false;
  };
  if (strip("ing", 3) || strip("ed", 3)) return word;
  if (!word.ends_with("ss")) strip("s", 3);
  return word;
}

int CountStem(const std::vector<Word>& words, const std::string& stem) {
  return static_cast<int>(std::count_if(words.begin(), words.end(),
                                        [&](const Word& w) { return Stem(w.text) == stem; }));
}

// The content from a few words before the first word with one of `stems`, at most about 240
// bytes, cut at a space.
std::string Snippet(const std::string& content, const std::vector<Word>& words,
                    const std::set<std::string>& stems) {
  constexpr std::size_t kBefore = 4;
  constexpr std::size_t kMaxBytes = 240;
  std::size_t first = 0;
  while (first < words.size() && !stems.contains(Stem(words[first].text))) ++first;
  const std::size_t begin = words[first < kBefore ? 0 : first - kBefore].at;
  std::string snippet = content.substr(begin, kMaxBytes);
  if (begin + kMaxBytes < content.size()) {
    const auto space = snippet.rfind(' ');
    if (space != std::string::npos && space > 0) snippet.resize(space);
  }
  return snippet;
}

using RankedHit = std::tuple<double, DocumentId, std::size_t, SearchHit>;  // (-score, id, ordinal)

// Every chunk of the approved versions in `tables` that has all of `stems`.
std::vector<RankedHit> Matches(const FakeTables& tables, const std::set<std::string>& stems) {
  std::vector<RankedHit> hits;
  for (const auto& [id, chunks] : tables.chunks) {
    const Document& doc = tables.documents.at(id);
    if (doc.approved_version != chunks.version) continue;
    const std::vector<Word> title = Words(chunks.title);
    for (std::size_t ordinal = 0; ordinal < chunks.contents.size(); ++ordinal) {
      const std::string& content = chunks.contents[ordinal];
      const std::vector<Word> words = Words(content);
      double score = 0;
      bool all = true;
      for (const std::string& stem : stems) {
        const int in_title = CountStem(title, stem);
        const int in_content = CountStem(words, stem);
        all = all && in_title + in_content > 0;
        score += 2.5 * in_title + in_content;
      }
      if (!all) continue;
      hits.emplace_back(
          -score, id, ordinal,
          SearchHit{id, chunks.version, chunks.title, Snippet(content, words, stems), score});
    }
  }
  return hits;
}

}  // namespace

FakeChunkIndex::FakeChunkIndex(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

std::vector<SearchHit> FakeChunkIndex::Search(const std::string& query, int limit) {
  std::set<std::string> stems;
  for (const std::string& word : SearchWords(query)) {
    for (const Word& part : Words(word)) stems.insert(Stem(part.text));
  }
  if (stems.empty() || limit <= 0) return {};
  std::vector<RankedHit> hits =
      database_->Read([&](const FakeTables& tables) { return Matches(tables, stems); });
  std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });
  std::vector<SearchHit> page;
  for (auto& hit : hits) {
    if (static_cast<int>(page.size()) >= limit) break;
    page.push_back(std::move(std::get<3>(hit)));
  }
  return page;
}

std::vector<std::string> FakeChunkIndex::ListChunks(DocumentId id) {
  return database_->Read([&](const FakeTables& tables) {
    const auto found = tables.chunks.find(id);
    if (found == tables.chunks.end()) return std::vector<std::string>{};
    return found->second.contents;
  });
}

void FakeChunkWriter::Replace(DocumentId id, std::int32_t version, const std::string& title,
                              const std::vector<std::string>& chunks) {
  FakeTables& tables = tx_.Open();
  tables.chunks.erase(id);
  if (chunks.empty()) return;
  FakeRequireDocument(tables, id, "chunk");
  tables.chunks.emplace(id, FakeTables::Chunks{version, title, chunks});
}

}  // namespace docgate
