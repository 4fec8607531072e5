#pragma once

// Generated document text for the consumers' tests and benchmarks: deterministic per seed,
// paragraphs of sentences over a small vocabulary, with one marker word to find a document by.

#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace docgate {

inline const std::vector<std::string>& ArticleVocabulary() {
  static const std::vector<std::string> kWords = {
      "review",  "approval", "knowledge", "document", "reviewer", "author",     "policy",
      "release", "handbook", "security",  "process",  "onboarding", "guide",    "team",
      "deploy",  "incident", "budget",    "travel",   "expense",  "contract",   "quarter"};
  return kWords;
}

// A document's text: `paragraphs` paragraphs of words from a small vocabulary, drawn with `seed`,
// with `marker` (a word no other document has) in the middle.
inline std::string Article(std::uint32_t seed, const std::string& marker, int paragraphs = 4) {
  const std::vector<std::string>& kWords = ArticleVocabulary();
  std::mt19937 random(seed);
  std::string text;
  for (int p = 0; p < paragraphs; ++p) {
    if (p > 0) text += "\n\n";
    const int sentences = 2 + static_cast<int>(random() % 4);
    for (int s = 0; s < sentences; ++s) {
      const int words = 5 + static_cast<int>(random() % 10);
      for (int w = 0; w < words; ++w) {
        std::string word = kWords[random() % kWords.size()];
        if (w == 0) word[0] = static_cast<char>(std::toupper(word[0]));
        text += word + (w + 1 < words ? " " : ". ");
      }
      if (p == paragraphs / 2 && s == 0) text += "The code word is " + marker + ". ";
    }
  }
  return text;
}

// A word of letters only, unique per n, that no stemmer shortens ("zq" ... "x").
inline std::string Marker(int n) {
  std::string word = "zq";
  do {
    word += static_cast<char>('a' + n % 26);
    n /= 26;
  } while (n > 0);
  return word + "x";
}

}  // namespace docgate
