#pragma once

#include <optional>

#include "app/consumer_store.h"

namespace docgate {

// Where the preview projection keeps each document's approved rendition: the database by default,
// MongoDB when configured. Thread-safe. Throws StorageUnavailable when its backend cannot be
// reached and StorageError on anything else.
class PreviewStore {
 public:
  virtual ~PreviewStore() = default;
  // Writes `record` unless the stored preview of that document has a version >= record.version (a
  // stale event never wins); true when it wrote. A store in the consumers' database writes within
  // `tx`, so the preview and the inbox row commit together; a store elsewhere writes at once, and
  // its version guard makes a repeat a no-op.
  virtual bool Project(ConsumerTransaction& tx, const PreviewRecord& record) = 0;
  virtual std::optional<PreviewRecord> Find(DocumentId id) = 0;
  // True when the backend answers (readiness).
  virtual bool Ping() = 0;
};

}  // namespace docgate
