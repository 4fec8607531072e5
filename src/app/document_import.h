#pragma once

// An import (API.md v1.2 "Formats and import"): a file of a kind recognized by its content becomes
// a Markdown draft of its sender, with the source it came from. The conversion itself is the
// DocumentConverter's (app/ports/document_converter.h), outside the server process.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "app/document_service.h"
#include "app/ports/digest.h"
#include "app/ports/document_converter.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

// A file as an import receives it: its name as sent, its bytes, and the title asked for (empty:
// none).
struct ImportedFile {
  std::string filename;
  std::string bytes;
  std::string title;
};

struct ImportedDocument {
  Document document;
  ImportSource source;
};

// The kind of `bytes` by its content: a PDF by its signature, a Word or OpenDocument text by the
// entries of its ZIP archive (the converter reads them, and refuses a zip bomb); text (valid
// UTF-8 without NUL) is HTML when it begins like HTML, else Markdown, plain text or HTML by the
// name's extension (.md/.markdown, .txt, .html/.htm). Anything else is 415
// UNSUPPORTED_MEDIA_TYPE, whatever its name says.
Result<ImportKind> SniffImport(std::string_view filename, std::string_view bytes,
                               const DocumentConverter& converter);

// The media type of a kind, as `source.media_type` names it.
std::string_view MediaTypeOf(ImportKind kind);

// The draft's title: `asked` when given, else the Markdown's first heading, else the file's name
// without its extension; cut to the longest title allowed, on a code point.
std::string ImportTitle(std::string_view asked, std::string_view markdown,
                        std::string_view filename);

// Thread-safe; the referenced objects must outlive it.
class DocumentImporter {
 public:
  DocumentImporter(DocumentService& documents, const DocumentConverter& converter,
                   const Digest& digest, std::size_t max_bytes);

  // Creates the draft (DocumentService::Create, so the roles and the effect are the same as a
  // POST's): 413 above max_bytes, 415 for a kind it does not convert, 422
  // UNPROCESSABLE_DOCUMENT for a file that cannot be read, 400 for a title that is not one.
  // `on_commit` receives the Created outcome with its source.
  Result<ImportedDocument> Import(const Actor& actor, const ImportedFile& file,
                                  const CommitHook& on_commit = {}) const;

  std::size_t max_bytes() const { return max_bytes_; }

 private:
  DocumentService& documents_;
  const DocumentConverter& converter_;
  const Digest& digest_;
  std::size_t max_bytes_;
};

}  // namespace docgate
