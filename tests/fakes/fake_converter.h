#pragma once

// A DocumentConverter that converts nothing: ZipKind answers the kind (or refusal) it was given,
// ToMarkdown the Markdown it was given (or its refusal), and both count their calls.

#include <atomic>
#include <optional>
#include <string>

#include "app/ports/document_converter.h"

namespace docgate {

class FakeConverter final : public DocumentConverter {
 public:
  Result<std::optional<ImportKind>> ZipKind(std::string_view) const override {
    ++zip_calls;
    return zip_answer;
  }
  Result<std::string> ToMarkdown(ImportKind kind, std::string_view) const override {
    ++conversions;
    last_kind = kind;
    return markdown_answer;
  }

  Result<std::optional<ImportKind>> zip_answer = std::optional(ImportKind::kDocx);
  Result<std::string> markdown_answer = std::string("# 转换结果\n\n正文。\n");
  mutable std::atomic<int> zip_calls{0};
  mutable std::atomic<int> conversions{0};
  mutable std::optional<ImportKind> last_kind;
};

}  // namespace docgate
