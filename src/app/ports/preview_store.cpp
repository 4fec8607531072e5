#include "app/ports/preview_store.h"

namespace docgate {

void PreviewStore::ProjectAll(const std::vector<PreviewRecord>& records) {
  for (const PreviewRecord& record : records) Project(record);
}

}  // namespace docgate
