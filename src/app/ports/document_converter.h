#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace docgate {

// The kinds of file an import turns into a Markdown draft (API.md v1.2 "Formats and import").
enum class ImportKind { kMarkdown, kText, kHtml, kDocx, kOdt, kPdf };

// Turns an imported file into Markdown, outside the server process (ADR 0016). Thread-safe.
class DocumentConverter {
 public:
  virtual ~DocumentConverter() = default;

  // What a ZIP archive holds, read without converting it: kDocx (a Word document: its
  // [Content_Types].xml and word/document.xml), kOdt (an OpenDocument text: its `mimetype` entry),
  // or nullopt for any other archive. UNPROCESSABLE_DOCUMENT for an archive that cannot be read,
  // or whose entries would unpack beyond the converter's limits (a zip bomb: too large in all, or
  // compressed too far).
  virtual Result<std::optional<ImportKind>> ZipKind(std::string_view bytes) const = 0;

  // `bytes`, a file of `kind` (kHtml, kDocx, kOdt or kPdf; Markdown and text need no converter),
  // as Markdown. UNPROCESSABLE_DOCUMENT, saying why, for a file the converter cannot read
  // (corrupt, encrypted, without text) or that passes a limit (time, memory, output size).
  virtual Result<std::string> ToMarkdown(ImportKind kind, std::string_view bytes) const = 0;
};

}  // namespace docgate
