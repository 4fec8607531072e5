#pragma once

#include <span>
#include <string_view>

#include "app/ports/document_store.h"
#include "app/ports/inbox_consumer.h"
#include "app/ports/preview_store.h"

namespace docgate {

// On document.approved of the version that is still the document's approved
// one, makes that version's content the document's preview. The write happens
// in Prepare, before the consumer's transaction and outside it, so that no
// database lock (SQLite's writer slot, a PostgreSQL row lock) is held through a
// remote preview store's timeouts; the store's version guard makes the repeat
// after a crash before the inbox commit, or on a redelivery, a no-op. Handle
// has nothing left to do: the runner commits the inbox row.
class PreviewProjection final : public InboxConsumer {
 public:
  // `previews` and `documents` must outlive the projection.
  PreviewProjection(PreviewStore& previews, DocumentStore& documents)
      : previews_(previews), documents_(documents) {}

  std::string_view Name() const override { return "preview"; }
  void Prepare(const OutboxEvent& event) override;
  // The batch's approvals in one read of the documents and one write of the previews.
  void PrepareAll(std::span<const OutboxEvent> events) override;
  void Handle(const OutboxEvent& /*event*/, ConsumerTransaction& /*tx*/) override {}

 private:
  PreviewStore& previews_;
  DocumentStore& documents_;
};

}  // namespace docgate
