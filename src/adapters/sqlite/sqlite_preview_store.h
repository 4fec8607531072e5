#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "app/ports/preview_store.h"

namespace docgate {

class SqliteSession;

// The database's PreviewStore on SQLite (kh_document_preview), over a SqliteSession shared with
// the file's other stores; its SQL is in sqlite_preview_store.cpp. Project is one version-guarded
// upsert under BEGIN IMMEDIATE with the writer slot (a repeat is a no-op). A preview of a document
// the database does not have is a StorageError (a foreign key). Thread-safe.
class SqlitePreviewStore final : public PreviewStore {
 public:
  explicit SqlitePreviewStore(std::shared_ptr<SqliteSession> session);

  bool Project(const PreviewRecord& record) override;
  std::optional<PreviewRecord> Find(DocumentId id) override;
  bool Ping() override;  // the session's

 private:
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
