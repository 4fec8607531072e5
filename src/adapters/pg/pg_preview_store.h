#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/ports/preview_store.h"

namespace docgate {

class PgSession;

// The database's PreviewStore on PostgreSQL (kh_document_preview), over a PgSession shared with the
// database's other stores; its SQL is in pg_preview_store.cpp. Project is one version-guarded
// upsert in a transaction of its own (PgSession::Atomically; a repeat is a no-op). A preview of a
// document the database does not have is a StorageError (a foreign key). Thread-safe.
class PgPreviewStore final : public PreviewStore {
 public:
  explicit PgPreviewStore(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();

  bool Project(const PreviewRecord& record) override;
  void ProjectAll(const std::vector<PreviewRecord>& records) override;
  std::optional<PreviewRecord> Find(DocumentId id) override;
  bool Ping() override;  // the session's

 private:
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
