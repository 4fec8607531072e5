#include "adapters/pg/pg_preview_store.h"

#include <array>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

constexpr Statement kUpsertPreview{
    "upsert_preview",
    "INSERT INTO kh_document_preview (document_id, version, content, "
    "approved_at)"
    " VALUES ($1, $2, $3, $4)"
    " ON CONFLICT (document_id) DO UPDATE SET version = EXCLUDED.version,"
    "   content = EXCLUDED.content, approved_at = EXCLUDED.approved_at"
    " WHERE EXCLUDED.version > kh_document_preview.version"};
constexpr Statement kSelectPreview{
    "select_preview",
    "SELECT document_id, version, content, approved_at FROM kh_document_preview"
    " WHERE document_id = $1"};

constexpr std::array kPreviewStatements{kUpsertPreview, kSelectPreview};

}  // namespace

PgPreviewStore::PgPreviewStore(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgPreviewStore::Statements() { return kPreviewStatements; }

// One statement in autocommit, without BEGIN and COMMIT round trips (two of the three it took in
// a transaction of its own). It may run twice (PgSession::Autocommit), which the version guard
// makes a no-op.
bool PgPreviewStore::Project(const PreviewRecord& record) {
  return session_->Autocommit(
      Describe("write preview of document", record.document_id), [&](pqxx::transaction_base& tx) {
        return tx.exec_prepared(kUpsertPreview.name, record.document_id, record.version,
                                Checked(record.content), Millis(record.approved_at))
                   .affected_rows() == 1;
      });
}

std::optional<PreviewRecord> PgPreviewStore::Find(DocumentId id) {
  return session_->Autocommit(
      Describe("find preview of document", id), [&](pqxx::transaction_base& tx) {
        return First<PreviewRecord>(tx.exec_prepared(kSelectPreview.name, id), ToPreview);
      });
}

bool PgPreviewStore::Ping() { return session_->Ping(); }

}  // namespace docgate
