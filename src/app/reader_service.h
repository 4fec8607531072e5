#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/document_service.h"
#include "app/ports/chunk_index.h"
#include "app/ports/document_store.h"
#include "app/ports/preview_store.h"
#include "app/semantic_search.h"
#include "app/snippet.h"
#include "core/error.h"

namespace docgate {

struct ReaderConfig {
  int default_search_limit = 10;
  int max_search_limit = 50;
};

// How a search ranks: by the words (full text), by meaning (embeddings), or both fused.
enum class SearchMode { kKeyword, kSemantic, kHybrid };

// One ranked hit of a search: a chunk of an approved, ingested version.
struct SearchHit {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::string title;
  Snippet snippet;   // an excerpt of the chunk around its matches, and where they are in it
  double score = 0;  // higher is better; comparable within one result only
  std::int32_t chunk_index = 0;  // the chunk's place in its version, from 0
  std::string section;           // the chunk's heading path ("" in text, before a first heading)
};

struct SearchResults {
  SearchMode mode = SearchMode::kKeyword;  // the mode that ran
  // Semantic or hybrid was asked for, and the query could not be embedded (the provider down,
  // slow or refusing): the keyword ranking answered instead.
  bool keyword_fallback = false;
  std::vector<SearchHit> items;
};

// The constant of reciprocal rank fusion: an item's hybrid score is the sum over the keyword and
// the semantic ranking of 1 / (kRrfK + its rank there, from 1). 60 is the constant of the paper
// that introduced RRF (Cormack et al., 2009); it keeps one list's first ranks from outweighing
// agreement between the two.
inline constexpr int kRrfK = 60;

// What readers of the knowledge base get from the consumers' work: a document's preview (the
// projection of its last approval) and search over ingested, approved versions: full text, and
// with embeddings by meaning or both fused (ADR 0010).
// Thread-safe. Throws what the stores throw (StorageUnavailable, StorageError).
class ReaderService {
 public:
  // The stores and `semantic` (null: no embeddings) must outlive the service.
  ReaderService(DocumentStore& documents, PreviewStore& previews, ChunkIndex& chunks,
                ReaderConfig config = {}, SemanticSearch* semantic = nullptr)
      : documents_(documents),
        previews_(previews),
        chunks_(chunks),
        config_(config),
        semantic_(semantic) {}

  // The document's last approved version, or a later one. Reads its own writes:
  // once an approval has committed, its version is served even before the
  // projection has run (or while the preview store cannot be reached), from the
  // content the database keeps of every version. NOT_FOUND for an unknown
  // document and for one never approved.
  Result<Preview> GetPreview(DocumentId id);
  // The approved versions for `query`, best first, each by its best chunk (kDocument) or each
  // matching chunk (kChunk), with a snippet around its keyword matches. `mode`, by default hybrid
  // with embeddings and keyword without:
  // - keyword: the chunks that match `query` (ParseSearchQuery: any of its words but question
  //   words and particles, every quoted phrase), ranked by the full-text index;
  // - semantic: the chunks nearest `query` by meaning (SemanticSearch), scored by similarity;
  // - hybrid: both rankings fused by reciprocal rank fusion (kRrfK), of documents with kDocument
  //   (a document's rank in each is its best chunk's), of chunks with kChunk.
  // VALIDATION for a bad query (ValidateSearchQuery), a limit outside 1..max_search_limit, or
  // semantic or hybrid without embeddings. While the provider cannot embed the query (down,
  // overloaded, answering garbage), semantic and hybrid answer the keyword ranking with mode
  // keyword and keyword_fallback: said, never silent, and never an error of the searcher's.
  Result<SearchResults> Search(const std::string& query, std::optional<int> limit,
                               std::optional<SearchMode> mode = std::nullopt,
                               SearchGrouping grouping = SearchGrouping::kDocument);

 private:
  DocumentStore& documents_;
  PreviewStore& previews_;
  SearchResults Keyword(const SearchQuery& query, int limit, SearchGrouping grouping);
  SearchResults Fused(const SearchQuery& query, std::vector<ChunkHit> by_words,
                      std::vector<ChunkHit> by_meaning, int limit, SearchGrouping grouping);

  ChunkIndex& chunks_;
  const ReaderConfig config_;
  SemanticSearch* semantic_;
};

}  // namespace docgate
