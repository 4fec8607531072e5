#include "app/snippet.h"

#include <algorithm>
#include <set>
#include <span>

namespace docgate {
namespace {

constexpr std::size_t kLeadChars = 24;   // context before a window's first match
constexpr std::size_t kMaxAnchors = 32;  // matches a window is tried at

// The byte offset where each code point of valid UTF-8 begins, and the text's size last. (0 is
// always one, so that text that is not UTF-8 still maps every byte to a code point.)
std::vector<std::size_t> CodePointStarts(std::string_view text) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == 0 || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  starts.push_back(text.size());
  return starts;
}

// The code point a byte offset falls in.
std::size_t CodePointAt(const std::vector<std::size_t>& starts, std::size_t byte) {
  const auto it = std::upper_bound(starts.begin(), starts.end(), byte);
  return static_cast<std::size_t>(it - starts.begin()) - 1;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

struct Window {
  std::size_t begin = 0;  // bytes
  std::size_t end = 0;
};

// The window of about `max_chars` code points that starts a little before `anchor` (bytes).
Window WindowAt(std::string_view content, const AnalyzedText& words,
                const std::vector<std::size_t>& starts, std::size_t anchor, std::size_t max_chars) {
  const std::size_t anchor_cp = CodePointAt(starts, anchor);
  const std::size_t total = starts.size() - 1;
  std::size_t first_cp = anchor_cp > kLeadChars ? anchor_cp - kLeadChars : 0;
  if (first_cp + max_chars > total) first_cp = total > max_chars ? total - max_chars : 0;
  Window window{starts[first_cp], starts[std::min(total, first_cp + max_chars)]};
  if (window.begin > 0) window.begin = std::min(words.WordBeginAtOrAfter(window.begin), anchor);
  if (window.end < content.size()) {
    const std::size_t cut = words.WordEndAtOrBefore(window.end);
    if (cut > window.begin && cut > anchor) window.end = cut;
  }
  while (window.begin < window.end && IsSpace(content[window.begin])) ++window.begin;
  while (window.end > window.begin && IsSpace(content[window.end - 1])) --window.end;
  return window;
}

// The number of distinct phrases matched inside the window, then the number of matches.
std::pair<std::size_t, std::size_t> Coverage(const std::vector<PhraseMatch>& matches,
                                             const Window& window) {
  std::set<std::size_t> phrases;
  std::size_t count = 0;
  for (const PhraseMatch& match : matches) {
    if (match.begin >= window.begin && match.end <= window.end) {
      phrases.insert(match.phrase);
      ++count;
    }
  }
  return {phrases.size(), count};
}

}  // namespace

Snippet MakeSnippet(std::string_view content, const SearchQuery& query, std::size_t max_chars) {
  const AnalyzedText words(content);
  const std::vector<PhraseMatch> matches = words.Find(query);
  const std::vector<std::size_t> starts = CodePointStarts(content);

  Window best = WindowAt(content, words, starts, 0, max_chars);
  std::pair<std::size_t, std::size_t> best_coverage = Coverage(matches, best);
  // Windows at the first kMaxAnchors matches only: linear in the chunk however often it matches.
  const std::size_t anchors = std::min(matches.size(), kMaxAnchors);
  for (const PhraseMatch& match : std::span(matches).first(anchors)) {
    const Window window = WindowAt(content, words, starts, match.begin, max_chars);
    const auto coverage = Coverage(matches, window);
    if (coverage > best_coverage) {
      best = window;
      best_coverage = coverage;
    }
  }

  Snippet snippet{std::string(content.substr(best.begin, best.end - best.begin)), {}};
  const std::size_t origin = CodePointAt(starts, best.begin);
  for (const PhraseMatch& match : matches) {
    const std::size_t begin = std::max(match.begin, best.begin);
    const std::size_t end = std::min(match.end, best.end);
    if (begin >= end) continue;
    const Highlight range{CodePointAt(starts, begin) - origin, CodePointAt(starts, end) - origin};
    if (range.first >= range.second) continue;  // only in text that is not UTF-8
    if (!snippet.highlights.empty() && range.first <= snippet.highlights.back().second) {
      snippet.highlights.back().second = std::max(snippet.highlights.back().second, range.second);
    } else {
      snippet.highlights.push_back(range);
    }
  }
  return snippet;
}

}  // namespace docgate
