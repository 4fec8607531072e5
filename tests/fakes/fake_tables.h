#pragma once

// The tables of the in-memory database (FakeDatabase) that the per-port fakes share, and the few
// helpers with which they enforce what the real databases' constraints enforce.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "app/ports/idempotency_store.h"
#include "app/ports/preview_store.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

// What a commit swaps in: every port's rows.
struct FakeTables {
  struct OutboxRow {
    OutboxEvent event;
    std::optional<TimePoint> delivered_at;
    int attempts = 0;
    std::chrono::system_clock::time_point next_attempt_at{};
    std::string last_error;
    std::string claimed_by;                  // an instance's token; empty: unclaimed
    std::optional<TimePoint> claimed_until;  // on the claim clock
  };
  struct IdempotencyRow {
    IdempotencyRecord record;
    std::string owner;
  };
  enum class InboxRowState { kFailing, kDone, kParked };
  struct InboxRow {
    InboxRowState state = InboxRowState::kDone;
    int attempts = 0;
    std::string last_error;
    TimePoint updated_at{};
    std::optional<OutboxEvent> event;  // kept by a failure; a claim alone knows none
  };
  struct Chunks {
    std::int32_t version = 0;
    std::string title;
    std::vector<std::string> contents;
    std::vector<std::string> text_keys;  // one per content; empty: no key yet
    std::vector<std::string> sections;   // one per content
  };
  // (model, dimensions, text key).
  using EmbeddingKey = std::tuple<std::string, int, std::string>;
  struct EmbeddingRow {
    std::int64_t id = 0;
    std::vector<float> vector;  // empty when refused
    std::string refusal;
    std::optional<TimePoint> orphaned_at;  // on the system clock, as the databases' own
  };
  struct EmbeddingClaim {
    std::string owner;
    TimePoint expires_at{};
  };

  std::map<DocumentId, Document> documents;
  std::map<ReviewId, Review> reviews;
  std::map<std::pair<DocumentId, std::int32_t>, DocumentVersion> versions;  // the kept ones
  // (document, editor) -> the newest version they wrote.
  std::map<std::pair<DocumentId, UserId>, std::int32_t> editors;
  // Every version anyone wrote, dropped drafts included: (document, version) -> its editor.
  std::map<std::pair<DocumentId, std::int32_t>, UserId> version_editors;
  std::map<std::int64_t, OutboxRow> outbox;
  std::map<std::pair<std::string, std::string>, IdempotencyRow> idempotency;  // (caller, key)
  std::map<std::pair<std::string, std::string>, InboxRow> inbox;  // (consumer, event_id)
  // (review, reviewer) -> when they were assigned; the review row holds its assignees in the
  // order the stores read them.
  std::map<std::pair<ReviewId, UserId>, TimePoint> assigned_at;
  std::map<std::int64_t, ReviewComment> comments;
  std::map<DocumentId, PreviewRecord> previews;
  std::map<DocumentId, Chunks> chunks;
  std::map<EmbeddingKey, EmbeddingRow> embeddings;
  std::map<EmbeddingKey, EmbeddingClaim> embedding_claims;
  std::int64_t last_embedding_id = 0;
  DocumentId last_document_id = 0;
  ReviewId last_review_id = 0;
  std::int64_t last_comment_id = 0;
  std::int64_t last_sequence = 0;
};

// What the database's constraints throw in the real stores.
[[noreturn]] inline void FakeViolation(const std::string& what) {
  throw StorageError("fake store: " + what);
}

// The row of `key`, copied, if there is one.
template <typename Map>
std::optional<typename Map::mapped_type> FakeLookup(const Map& map,
                                                    const typename Map::key_type& key) {
  const auto found = map.find(key);
  if (found == map.end()) return std::nullopt;
  return found->second;
}

// The row `id` to update; a FakeViolation when there is none.
template <typename Row>
Row& FakeExisting(std::map<std::int64_t, Row>& rows, std::int64_t id, const char* what) {
  const auto found = rows.find(id);
  if (found == rows.end()) {
    FakeViolation(std::string("no ") + what + " " + std::to_string(id) + " to update");
  }
  return found->second;
}

// Whether any chunk (of any document and version) has `text_key`: whether an embedding is used.
inline bool FakeAnyChunkHasKey(const FakeTables& tables, const std::string& text_key) {
  for (const auto& [id, chunks] : tables.chunks) {
    for (const std::string& key : chunks.text_keys) {
      if (key == text_key) return true;
    }
  }
  return false;
}

// A row that refers to document `id` needs it: the databases' foreign keys.
inline void FakeRequireDocument(const FakeTables& tables, DocumentId id, const char* what) {
  if (!tables.documents.contains(id)) {
    FakeViolation(std::string("FOREIGN KEY constraint failed: ") + what + " of missing document " +
                  std::to_string(id));
  }
}

}  // namespace docgate
