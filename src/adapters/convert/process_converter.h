#pragma once

#include "adapters/convert/import_config.h"
#include "app/ports/document_converter.h"

namespace docgate {

// DocumentConverter by child processes (ADR 0016): pandoc for HTML, Word and OpenDocument,
// poppler's pdftotext for PDF. Each runs in a scratch directory of its own (removed afterwards)
// holding the input, in a new session, with no network (a network namespace of its own where the
// kernel allows one), an empty environment, no descriptor of docgate's, and limits: address space
// (memory_bytes), file size (max_output_bytes), CPU time, and a wall-clock timeout after which
// the session is killed. ZipKind reads the archive's central directory with libzip. Thread-safe:
// conversions run side by side, each in its own process.
class ProcessConverter final : public DocumentConverter {
 public:
  explicit ProcessConverter(ImportConfig config);

  Result<std::optional<ImportKind>> ZipKind(std::string_view bytes) const override;
  Result<std::string> ToMarkdown(ImportKind kind, std::string_view bytes) const override;

  // Whether conversions run in a network namespace of their own (false: the kernel refused one,
  // and the converters' own options are the only guard; logged once at start).
  bool NetworkIsolated() const { return network_isolated_; }

 private:
  ImportConfig config_;
  bool network_isolated_;
};

}  // namespace docgate
