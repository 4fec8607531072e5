#include "app/ports/consumer_transaction.h"

namespace docgate {

std::vector<InboxState> ConsumerTransaction::ClaimAll(std::string_view consumer,
                                                      const std::vector<std::string>& event_ids,
                                                      TimePoint at) {
  std::vector<InboxState> states;
  states.reserve(event_ids.size());
  for (const std::string& event_id : event_ids) states.push_back(Claim(consumer, event_id, at));
  return states;
}

std::optional<DocumentWithContent> ConsumerTransaction::LockDocumentWithContent(
    DocumentId id, std::int32_t version) {
  auto doc = LockDocument(id);
  if (!doc) return std::nullopt;
  return DocumentWithContent{std::move(*doc), ReadContent(id, version)};
}

}  // namespace docgate
