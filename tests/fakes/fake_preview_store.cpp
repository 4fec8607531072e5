#include "fakes/fake_preview_store.h"

#include <utility>

namespace docgate {
namespace {

// The version-guarded upsert: false when the stored preview is as new or newer.
bool Upsert(FakeTables& tables, const PreviewRecord& record) {
  const auto found = tables.previews.find(record.document_id);
  if (found != tables.previews.end()) {
    if (found->second.version >= record.version) return false;
    found->second = record;
    return true;
  }
  FakeRequireDocument(tables, record.document_id, "preview");
  tables.previews.emplace(record.document_id, record);
  return true;
}

}  // namespace

FakePreviewStore::FakePreviewStore(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

bool FakePreviewStore::Project(const PreviewRecord& record) {
  FakeTransaction tx(*database_);
  const bool wrote = Upsert(tx.Open(), record);
  tx.Commit();
  return wrote;
}

std::optional<PreviewRecord> FakePreviewStore::Find(DocumentId id) {
  return database_->Read([&](const FakeTables& tables) { return FakeLookup(tables.previews, id); });
}

bool FakePreviewStore::Ping() { return database_->Ping(); }

}  // namespace docgate
