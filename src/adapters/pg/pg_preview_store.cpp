#include "adapters/pg/pg_preview_store.h"

#include <array>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

// Previews written unless the stored one has a version >= theirs (a stale event never wins): $1
// document ids, $2 versions, $3 contents, $4 approval times; of a document that comes more than
// once, its highest version. In document order, so that concurrent writes lock their rows alike.
constexpr Statement kUpsertPreviews{
    "upsert_previews",
    "INSERT INTO kh_document_preview (document_id, version, content, approved_at)"
    " SELECT DISTINCT ON (r.document_id) r.document_id, r.version, r.content, r.approved_at"
    " FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::bigint[])"
    "   AS r (document_id, version, content, approved_at)"
    " ORDER BY r.document_id, r.version DESC"
    " ON CONFLICT (document_id) DO UPDATE SET version = EXCLUDED.version,"
    "   content = EXCLUDED.content, approved_at = EXCLUDED.approved_at"
    " WHERE EXCLUDED.version > kh_document_preview.version"};
constexpr Statement kSelectPreview{"select_preview", sql::kSelectPreview};

constexpr std::array kPreviewStatements{kUpsertPreviews, kSelectPreview};

// kUpsertPreviews of `records` in `tx`; how many it wrote.
std::size_t UpsertPreviews(pqxx::transaction_base& tx, const std::vector<PreviewRecord>& records) {
  std::vector<std::int64_t> ids;
  std::vector<std::int64_t> versions;
  std::vector<std::string> contents;
  std::vector<std::int64_t> approved_at;
  for (const PreviewRecord& record : records) {
    ids.push_back(record.document_id);
    versions.push_back(record.version);
    contents.push_back(record.content);
    approved_at.push_back(Millis(record.approved_at));
  }
  return tx
      .exec_prepared(kUpsertPreviews.name, IdArray(ids), IdArray(versions), TextArray(contents),
                     IdArray(approved_at))
      .affected_rows();
}

}  // namespace

PgPreviewStore::PgPreviewStore(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgPreviewStore::Statements() { return kPreviewStatements; }

// One statement in autocommit, without BEGIN and COMMIT round trips. It may run twice
// (PgSession::Autocommit), which the version guard makes a no-op.
bool PgPreviewStore::Project(const PreviewRecord& record) {
  return session_->Autocommit(
      Describe("write preview of document", record.document_id),
      [&](pqxx::transaction_base& tx) { return UpsertPreviews(tx, {record}) == 1; });
}

void PgPreviewStore::ProjectAll(const std::vector<PreviewRecord>& records) {
  if (records.empty()) return;
  session_->Autocommit("write previews",
                       [&](pqxx::transaction_base& tx) { UpsertPreviews(tx, records); });
}

std::optional<PreviewRecord> PgPreviewStore::Find(DocumentId id) {
  return session_->Autocommit(
      Describe("find preview of document", id), [&](pqxx::transaction_base& tx) {
        return First<PreviewRecord>(tx.exec_prepared(kSelectPreview.name, id), ToPreview);
      });
}

bool PgPreviewStore::Ping() { return session_->Ping(); }

}  // namespace docgate
