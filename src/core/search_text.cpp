#include "core/search_text.h"

#include <cstddef>

#include "core/utf8.h"

namespace docgate {

std::vector<std::string> SearchWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  const auto end_word = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = Utf8SequenceLength(text, i);
    const auto byte = static_cast<unsigned char>(text[i]);
    if (length == 0 || (length == 1 && (byte <= 0x20 || byte == 0x7F))) {
      end_word();
      i += length == 0 ? 1 : length;
      continue;
    }
    word.append(text.substr(i, length));
    i += length;
  }
  end_word();
  return words;
}

}  // namespace docgate
