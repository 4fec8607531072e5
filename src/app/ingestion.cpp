#include "app/ingestion.h"

#include <string>

#include "app/consumer_runner.h"
#include "app/embedding_text_key.h"
#include "app/markdown_chunker.h"

namespace docgate {
namespace {

bool IsApprovedVersion(const std::optional<Document>& doc, const OutboxEvent& event) {
  return doc && doc->approved_version == event.version;
}

// The chunks of a version written in `format`: Markdown along its headings, text by paragraphs
// (its sections all ""); nullopt beyond max_chunks.
std::optional<std::vector<SectionedChunk>> ChunksOf(const std::string& content,
                                                    DocumentFormat format,
                                                    const ChunkerConfig& config,
                                                    std::size_t max_chunks) {
  if (format == DocumentFormat::kMarkdown) {
    return SplitMarkdownIntoChunksUpTo(content, config, max_chunks);
  }
  auto texts = SplitIntoChunksUpTo(content, config, max_chunks);
  if (!texts) return std::nullopt;
  std::vector<SectionedChunk> chunks;
  chunks.reserve(texts->size());
  for (std::string& text : *texts) chunks.push_back({"", std::move(text)});
  return chunks;
}

}  // namespace

void Ingestion::Handle(const OutboxEvent& event, ConsumerTransaction& tx) {
  if (event.type != EventType::kApproved) return;
  const auto approved =
      ApprovedByEvent(tx.LockDocumentWithContent(event.document_id, event.version), event);
  if (!approved) return;
  const auto sectioned =
      ChunksOf(*approved->content, approved->document.format, chunker_, kMaxChunksPerDocument);
  if (!sectioned) {
    throw PermanentConsumerError("the content makes more than " +
                                 std::to_string(kMaxChunksPerDocument) + " chunks of at most " +
                                 std::to_string(chunker_.max_bytes) + " bytes");
  }
  // Keys by text alone: a chunk whose text is unchanged keeps its vector, whatever its section.
  std::vector<std::string> chunks;
  std::vector<std::string> sections;
  std::vector<std::string> keys;
  for (const SectionedChunk& chunk : *sectioned) {
    chunks.push_back(chunk.text);
    sections.push_back(chunk.section);
    keys.push_back(EmbeddingTextKey(digest_, chunk.text));
  }
  tx.ReplaceChunks(event.document_id, event.version, approved->document.title, chunks, sections,
                   keys);
  const bool awaits_vectors = embeddings_ && !chunks.empty();
  tx.SetIngestStatus(event.document_id,
                     awaits_vectors ? IngestStatus::kPending : IngestStatus::kDone);
  if (awaits_vectors) {
    const std::size_t reused = tx.CountStoredVectors(*embeddings_, keys);
    if (reused > 0) tx.AfterCommit([this, reused] { reused_vectors_ += reused; });
    if (vectors_wanted_) tx.AfterCommit(vectors_wanted_);
  }
}

void Ingestion::OnParked(const OutboxEvent& event) {
  if (event.type != EventType::kApproved) return;
  auto tx = store_.BeginConsumer();
  if (!IsApprovedVersion(tx->LockDocument(event.document_id), event)) return;
  tx->SetIngestStatus(event.document_id, IngestStatus::kFailed);
  tx->Commit();
}

}  // namespace docgate
