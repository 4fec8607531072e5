#pragma once

#include <string_view>

#include "app/consumer_runner.h"
#include "app/preview_store.h"

namespace docgate {

// On document.approved, makes the approved version's content the document's preview. A stale
// event (for a version older than the stored preview's) changes nothing: the store's version guard.
class PreviewProjection final : public InboxConsumer {
 public:
  // `previews` must outlive the projection.
  explicit PreviewProjection(PreviewStore& previews) : previews_(previews) {}

  std::string_view Name() const override { return "preview"; }
  void Handle(const OutboxEvent& event, ConsumerTransaction& tx) override;

 private:
  PreviewStore& previews_;
};

// The PreviewStore in the consumers' own database (the default): it writes within the consumer's
// transaction, so the preview and the inbox row commit together.
class DatabasePreviewStore final : public PreviewStore {
 public:
  // `store` must outlive this.
  explicit DatabasePreviewStore(ConsumerStore& store) : store_(store) {}

  bool Project(ConsumerTransaction& tx, const PreviewRecord& record) override {
    return tx.UpsertPreview(record);
  }
  std::optional<PreviewRecord> Find(DocumentId id) override { return store_.FindPreview(id); }
  bool Ping() override { return true; }  // the database's own readiness check covers it

 private:
  ConsumerStore& store_;
};

}  // namespace docgate
