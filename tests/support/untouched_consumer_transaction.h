#pragma once

// A ConsumerTransaction for stores that are handed one but must not use it (a PreviewStore that
// writes outside the consumers' database): every call fails the test. Test use only.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/consumer_store.h"

namespace docgate {

class UntouchedConsumerTransaction final : public ConsumerTransaction {
 public:
  InboxState Claim(std::string_view, std::string_view, TimePoint) override {
    Touched("Claim");
    return InboxState::kDone;
  }
  std::optional<Document> LockDocument(DocumentId) override {
    Touched("LockDocument");
    return std::nullopt;
  }
  std::optional<std::string> ReadContent(DocumentId, std::int32_t) override {
    Touched("ReadContent");
    return std::nullopt;
  }
  bool UpsertPreview(const PreviewRecord&) override {
    Touched("UpsertPreview");
    return false;
  }
  void ReplaceChunks(DocumentId, std::int32_t, const std::string&,
                     const std::vector<std::string>&) override {
    Touched("ReplaceChunks");
  }
  void SetIngestStatus(DocumentId, IngestStatus) override { Touched("SetIngestStatus"); }
  void Commit() override { Touched("Commit"); }

 private:
  static void Touched(const char* method) {
    ADD_FAILURE() << "the store called ConsumerTransaction::" << method;
  }
};

}  // namespace docgate
