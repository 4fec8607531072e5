#include "app/document_import.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/lifecycle.h"
#include "core/utf8.h"

namespace docgate {

namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// The name's extension, lower case, without its dot ("" for none).
std::string Extension(std::string_view filename) {
  const std::size_t slash = filename.find_last_of("/\\");
  if (slash != std::string_view::npos) filename.remove_prefix(slash + 1);
  const std::size_t dot = filename.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? "" : Lower(filename.substr(dot + 1));
}

// Whether a text begins like an HTML document (after a byte order mark and blank space).
bool LooksLikeHtml(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return false;
  const std::string head = Lower(text.substr(start, 15));
  return head.starts_with("<!doctype html") || head.starts_with("<html");
}

Error Unsupported(std::string detail) {
  return MakeError(
      ErrorCode::kUnsupportedMediaType,
      std::move(detail) + "; docgate imports .md, .txt, .html, .docx, .odt and .pdf files");
}

}  // namespace

Result<ImportKind> SniffImport(std::string_view filename, std::string_view bytes,
                               const DocumentConverter& converter) {
  if (bytes.starts_with("%PDF-")) return ImportKind::kPdf;
  if (bytes.starts_with(std::string_view("PK\x03\x04", 4))) {
    auto kind = converter.ZipKind(bytes);
    if (!kind) return kind.error();
    if (!*kind)
      return Unsupported(
          "the file is a ZIP archive, but neither a Word (.docx) nor an OpenDocument (.odt) text");
    return **kind;
  }
  if (!IsStorableText(bytes)) {
    return Unsupported("the file is neither text (UTF-8) nor a PDF, Word or OpenDocument file");
  }
  if (LooksLikeHtml(bytes)) return ImportKind::kHtml;
  const std::string extension = Extension(filename);
  if (extension == "md" || extension == "markdown") return ImportKind::kMarkdown;
  if (extension == "txt") return ImportKind::kText;
  if (extension == "html" || extension == "htm") return ImportKind::kHtml;
  return Unsupported("a text file named '" + std::string(Utf8Prefix(filename, 255)) +
                     "' is not one docgate imports");
}

std::string_view MediaTypeOf(ImportKind kind) {
  switch (kind) {
    case ImportKind::kMarkdown:
      return "text/markdown";
    case ImportKind::kText:
      return "text/plain";
    case ImportKind::kHtml:
      return "text/html";
    case ImportKind::kDocx:
      return "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    case ImportKind::kOdt:
      return "application/vnd.oasis.opendocument.text";
    case ImportKind::kPdf:
      return "application/pdf";
  }
  return "application/octet-stream";
}

std::string ImportTitle(std::string_view asked, std::string_view markdown,
                        std::string_view filename) {
  std::string_view title = asked;
  if (title.find_first_not_of(" \t") == std::string_view::npos) {
    title = {};
    // The first ATX heading ("# Title", "## Title", ...).
    for (std::size_t at = 0; at < markdown.size() && title.empty();) {
      std::size_t end = markdown.find('\n', at);
      if (end == std::string_view::npos) end = markdown.size();
      std::string_view line = markdown.substr(at, end - at);
      const std::size_t hashes = line.find_first_not_of('#');
      if (hashes >= 1 && hashes <= 6 && hashes < line.size() && line[hashes] == ' ') {
        line.remove_prefix(hashes + 1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '#' || line.back() == '\r')) {
          line.remove_suffix(1);
        }
        title = line;
      }
      at = end + 1;
    }
  }
  std::string chosen;
  if (!title.empty()) {
    chosen = std::string(title);
  } else {
    const std::size_t slash = filename.find_last_of("/\\");
    std::string_view name = slash == std::string_view::npos ? filename : filename.substr(slash + 1);
    const std::size_t dot = name.rfind('.');
    if (dot != std::string_view::npos && dot > 0) name = name.substr(0, dot);
    chosen = name.empty() ? "imported document" : std::string(name);
  }
  // At most kMaxTitle code points.
  std::size_t at = 0;
  for (std::size_t count = 0; at < chosen.size() && count < kMaxTitle; ++count) {
    at += std::max<std::size_t>(1, Utf8SequenceLength(chosen, at));
  }
  chosen.resize(std::min(at, chosen.size()));
  return chosen;
}

DocumentImporter::DocumentImporter(DocumentService& documents, const DocumentConverter& converter,
                                   const Digest& digest, std::size_t max_bytes)
    : documents_(documents), converter_(converter), digest_(digest), max_bytes_(max_bytes) {}

Result<ImportedDocument> DocumentImporter::Import(const Actor& actor, const ImportedFile& file,
                                                  const CommitHook& on_commit) const {
  if (auto role = RequireAuthorRole(actor); !role) return role.error();
  if (file.bytes.size() > max_bytes_) {
    return MakeError(ErrorCode::kPayloadTooLarge,
                     "the file has " + std::to_string(file.bytes.size()) +
                         " bytes; an import takes at most " + std::to_string(max_bytes_));
  }
  if (file.bytes.empty()) {
    return MakeError(ErrorCode::kUnprocessableDocument, "the file is empty");
  }
  auto kind = SniffImport(file.filename, file.bytes, converter_);
  if (!kind) return kind.error();
  std::string markdown;
  if (*kind == ImportKind::kMarkdown || *kind == ImportKind::kText) {
    markdown = file.bytes.starts_with("\xEF\xBB\xBF") ? file.bytes.substr(3) : file.bytes;
  } else {
    auto converted = converter_.ToMarkdown(*kind, file.bytes);
    if (!converted) return converted.error();
    markdown = std::move(*converted);
  }
  if (!IsStorableText(markdown)) {
    return MakeError(ErrorCode::kUnprocessableDocument,
                     "the converted text is not UTF-8 without NUL characters");
  }
  ImportSource source{file.filename, std::string(MediaTypeOf(*kind)), file.bytes.size(),
                      digest_.Sha256Hex(file.bytes)};
  const std::string title = ImportTitle(file.title, markdown, file.filename);
  CommitHook with_source;
  if (on_commit) {
    with_source = [&on_commit, &source](StoreTransaction& transaction,
                                        const IdempotentOutcome& outcome) {
      IdempotentOutcome imported = outcome;
      imported.source = source;
      on_commit(transaction, imported);
    };
  }
  auto document = documents_.Create(actor, title, markdown, DocumentFormat::kMarkdown, with_source);
  if (!document) return document.error();
  return ImportedDocument{std::move(*document), std::move(source)};
}

}  // namespace docgate
