#include "adapters/sqlite/sqlite_preview_store.h"

#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"

namespace docgate {
namespace {

constexpr std::string_view kUpsertPreview =
    "INSERT INTO kh_document_preview (document_id, version, content, "
    "approved_at)"
    " VALUES (?1, ?2, ?3, ?4)"
    " ON CONFLICT (document_id) DO UPDATE SET version = excluded.version,"
    "   content = excluded.content, approved_at = excluded.approved_at"
    " WHERE excluded.version > kh_document_preview.version";
constexpr std::string_view kSelectPreview = sql::kSqlite<sql::kSelectPreview>;

PreviewRecord PreviewFromRow(const SqliteStatement& row) {
  return PreviewRecord{row.Int64(0), row.Int32(1), row.Text(2), row.Time(3)};
}

}  // namespace

SqlitePreviewStore::SqlitePreviewStore(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

bool SqlitePreviewStore::Project(const PreviewRecord& record) {
  return session_->Atomically([&](SqliteConnection& connection) {
    connection.Prepare(kUpsertPreview)
        .Bind(1, record.document_id)
        .Bind(2, record.version)
        .Bind(3, record.content)
        .Bind(4, record.approved_at)
        .Run();
    return connection.Changes() == 1;
  });
}

std::optional<PreviewRecord> SqlitePreviewStore::Find(DocumentId id) {
  std::vector<PreviewRecord> rows = session_->ReadAll(kSelectPreview, &PreviewFromRow, id);
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

bool SqlitePreviewStore::Ping() { return session_->Ping(); }

}  // namespace docgate
