#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "adapters/crypto/openssl_digest.h"
#include "app/consumer_runner.h"
#include "app/document_service.h"
#include "app/ingestion.h"
#include "core/chunker.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"
#include "fakes/fake_stores.h"

namespace docgate {

// Documents written, approved and ingested on the fake stores, as the embeddings' tests need
// them: the use cases, and ingestion with embeddings to follow (versions stay pending until their
// vectors are stored), run by hand on each approval. Paragraphs of up to 100 bytes are chunks of
// their own. `model` is the embedder's (FakeEmbedder's by default), whose stored vectors ingestion
// counts as reused.
class PublishingDesk {
 public:
  explicit PublishingDesk(EmbeddingModel model = {"fake-model", 8})
      : ingestion_(*fakes_.stores.inbox, ChunkerConfig{100, 0}, digest_, std::move(model)) {
    runner_.Register(ingestion_);
  }

  // Creates `content` under `title`, submits, approves and ingests it; returns its id.
  DocumentId Publish(const std::string& title, const std::string& content) {
    auto doc = service_.Create(kAuthor, title, content);
    EXPECT_TRUE(doc.ok());
    Approve(doc->id);
    return doc->id;
  }
  // Submits the document's current version, approves and ingests it.
  void Approve(DocumentId id) {
    auto submitted = service_.Submit(kAuthor, id);
    EXPECT_TRUE(submitted.ok());
    EXPECT_TRUE(service_.Approve(kReviewer, submitted->review.id, std::nullopt).ok());
    EXPECT_EQ(runner_.Run(fakes_.database->AllEvents().back()).outcome, ConsumeOutcome::kDone);
  }
  // Edits the document as its author (no If-Match).
  void Edit(DocumentId id, std::optional<std::string> title, std::optional<std::string> content) {
    EXPECT_TRUE(
        service_
            .Edit(kAuthor, id,
                  EditRequest{std::move(title), std::move(content), std::nullopt, std::nullopt})
            .ok());
  }
  IngestStatus StatusOf(DocumentId id) {
    return fakes_.stores.documents->FindDocument(id)->ingest_status;
  }

  const Actor kAuthor{"alice", "Alice", true, false, false};
  const Actor kReviewer{"bob", "Bob", false, true, false};
  FakeClock clock_;
  FakeRandom random_;
  FakeStores fakes_ = OpenFakeStores();
  FakeLockGate gate_{clock_, random_};
  CountingWakeup wakeup_;
  DocumentService service_{*fakes_.stores.documents, gate_, clock_, random_, wakeup_};
  OpenSslDigest digest_;
  Ingestion ingestion_;
  ConsumerRunner runner_{*fakes_.stores.inbox, clock_, ConsumerRunnerConfig{3}};
};

}  // namespace docgate
