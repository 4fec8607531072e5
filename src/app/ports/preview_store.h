#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"

namespace docgate {

// The approved rendition of a document, as the preview projection keeps it.
struct PreviewRecord {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::string content;
  TimePoint approved_at{};

  bool operator==(const PreviewRecord&) const = default;
};

// Where the preview projection keeps each document's approved rendition: the database by default,
// MongoDB when configured. Thread-safe. Throws StorageUnavailable when its backend cannot be
// reached and StorageError on anything else (a preview of a document the database does not have
// is a StorageError there).
class PreviewStore {
 public:
  virtual ~PreviewStore() = default;
  // Writes `record` at once, in its own unit of work, unless the stored preview of that document
  // has a version >= record.version (a stale event never wins); true when it wrote. Called
  // outside any consumer transaction, so a slow or unreachable store holds no database lock; the
  // version guard makes a repeat a no-op, so a store may run the write again when it cannot tell
  // whether the first try reached its backend (that repeat answers false).
  virtual bool Project(const PreviewRecord& record) = 0;
  // Project for each of `records` (a batch; a document may come more than once, and its newest
  // version wins). When it throws, some may have been written: each write is a no-op when
  // repeated, so the batch may simply run again. A store may write them in one round trip; this
  // one calls Project for each.
  virtual void ProjectAll(const std::vector<PreviewRecord>& records);
  virtual std::optional<PreviewRecord> Find(DocumentId id) = 0;
  // True when the backend answers (readiness).
  virtual bool Ping() = 0;
};

}  // namespace docgate
