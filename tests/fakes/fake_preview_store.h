#pragma once

#include <memory>
#include <optional>

#include "app/ports/preview_store.h"
#include "fakes/fake_database.h"

namespace docgate {

// PreviewStore on a FakeDatabase, shared with the database's other fakes (the database's previews,
// as PgPreviewStore's). Project is a write transaction of its own (FakeTransaction: the writer
// slot, the injected Begin and Commit failures) holding the version-guarded write; a preview of a
// missing document is a StorageError, like the databases' foreign key. Ping answers the database's
// Ping. Thread-safe.
class FakePreviewStore final : public PreviewStore {
 public:
  explicit FakePreviewStore(std::shared_ptr<FakeDatabase> database);

  bool Project(const PreviewRecord& record) override;
  std::optional<PreviewRecord> Find(DocumentId id) override;
  bool Ping() override;

 private:
  std::shared_ptr<FakeDatabase> database_;
};

}  // namespace docgate
