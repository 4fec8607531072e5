#pragma once

// A list of words as the databases keep it in one column: space-separated, in order, "" for none.
// A session's roles (kh_session.roles) and a webhook's routing keys (kh_webhook.events), shared by
// the PostgreSQL and SQLite stores. Header-only.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docgate::sql {

// `words` joined by spaces; nullopt for a word that is empty or holds a space (it would come back
// as other words), which the stores refuse with a StorageError.
inline std::optional<std::string> JoinWords(const std::vector<std::string>& words) {
  std::string joined;
  for (const std::string& word : words) {
    if (word.empty() || word.find(' ') != std::string::npos) return std::nullopt;
    if (!joined.empty()) joined += ' ';
    joined += word;
  }
  return joined;
}

inline std::vector<std::string> SplitWords(std::string_view joined) {
  std::vector<std::string> words;
  while (!joined.empty()) {
    const std::size_t end = joined.find(' ');
    words.emplace_back(joined.substr(0, end));
    joined = end == std::string_view::npos ? std::string_view() : joined.substr(end + 1);
  }
  return words;
}

}  // namespace docgate::sql
