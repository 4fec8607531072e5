// Invariants of search for any text (issues 16 and 34): docgate's text analyzer gives well-formed
// terms with offsets inside the text; the user's text is never FTS5 syntax (each phrase of
// ParseSearchQuery is quoted by FtsQuery, `"` doubled, whatever the plan); a real SQLite store (a
// temporary file) answers any query without an error; the snippet of the text for its own query
// stays within it; and a document whose content is the text itself is found by searching for that
// text, as it would not be if any word were read as an operator or analysed differently at query
// time.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/sqlite/sqlite_chunk_index.h"
#include "adapters/sqlite/sqlite_document_store.h"
#include "adapters/sqlite/sqlite_fts_query.h"
#include "adapters/sqlite/sqlite_inbox_store.h"
#include "adapters/sqlite/sqlite_session.h"
#include "app/search_query.h"
#include "app/search_ranking.h"
#include "app/snippet.h"
#include "app/text_analyzer.h"
#include "core/utf8.h"
#include "fuzz_support.h"

namespace {

using docgate::fuzz::AsText;

// A store in a fresh temporary directory, holding one approved document (version 1) whose chunks
// each input replaces. The directory is removed at exit.
class SearchStore {
 public:
  SearchStore() {
    std::string pattern = (std::filesystem::temp_directory_path() / "docgate-search-fuzz-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    dir_ = pattern;
    auto session = std::make_shared<docgate::SqliteSession>(
        docgate::SqliteConfig{.path = (dir_ / "search.db").string(), .pool_size = 1});
    documents_ = std::make_unique<docgate::SqliteDocumentStore>(session);
    inbox_ = std::make_unique<docgate::SqliteInboxStore>(session);
    chunks_ = std::make_unique<docgate::SqliteChunkIndex>(session);
    docgate::Document doc;
    doc.title = "fuzz";
    doc.status = docgate::DocumentStatus::kApproved;
    doc.author_id = "fuzz";
    doc.approved_version = 1;
    doc.approved_at = doc.created_at = doc.updated_at = docgate::TimePoint{};
    auto transaction = documents_->Begin();
    id_ = transaction->InsertDocument(doc);
    transaction->Commit();
  }
  ~SearchStore() {
    chunks_.reset();
    inbox_.reset();
    documents_.reset();  // the last store closes the file
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  docgate::SqliteChunkIndex& chunks() { return *chunks_; }

  void Index(const std::string& content) {
    auto transaction = inbox_->BeginConsumer();
    transaction->ReplaceChunks(id_, 1, "fuzz", {content}, /*sections=*/{}, /*text_keys=*/{});
    transaction->Commit();
  }

  bool Finds(const docgate::SearchQuery& query) {
    for (const auto& hit : chunks_->Search(query, 10, docgate::SearchGrouping::kDocument)) {
      if (hit.document_id == id_) return true;
    }
    return false;
  }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<docgate::SqliteDocumentStore> documents_;
  std::unique_ptr<docgate::SqliteInboxStore> inbox_;
  std::unique_ptr<docgate::SqliteChunkIndex> chunks_;
  docgate::DocumentId id_ = 0;
};

void CheckTerms(std::string_view text, docgate::AnalyzerUse use) {
  std::uint32_t position = 0;
  for (const docgate::AnalyzedTerm& term : docgate::AnalyzeText(text, use)) {
    FUZZ_CHECK(!term.term.empty());
    FUZZ_CHECK(docgate::Utf8Length(term.term).has_value());
    FUZZ_CHECK(term.begin < term.end && term.end <= text.size());
    FUZZ_CHECK(docgate::Utf8Length(text.substr(term.begin, term.end - term.begin)).has_value());
    FUZZ_CHECK(term.position >= position);
    position = term.position;
  }
}

std::string Quoted(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// Each phrase has terms, the FTS5 query holds each phrase's text quoted with `"` doubled, and it is
// empty only for an empty query. (That no query is FTS5 syntax is checked by running it.)
void CheckQuery(const docgate::SearchQuery& query, const std::string& fts) {
  for (const docgate::SearchPhrase& phrase : query.phrases) {
    FUZZ_CHECK(!phrase.terms.empty());
    FUZZ_CHECK(fts.find(Quoted(phrase.text)) != std::string::npos, fts);
  }
  FUZZ_CHECK(fts.empty() == query.empty(), fts);
}

// The FTS5 query of a plan where the first phrase is rare and the others common (each phrase is
// in it whatever the plan).
std::string FtsQueryOf(const docgate::SearchQuery& query) {
  std::vector<std::int64_t> holding(query.phrases.size(), 900000);
  if (!holding.empty()) holding[0] = 1;
  std::vector<double> coefficients;
  return docgate::FtsQuery(query, docgate::PlanSearch(query, 1000000, holding, 10), coefficients);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static SearchStore search;
  const std::string text(AsText(data, size));
  CheckTerms(text, docgate::AnalyzerUse::kIndex);
  CheckTerms(text, docgate::AnalyzerUse::kQuery);
  const docgate::SearchQuery query = docgate::ParseSearchQuery(text);
  CheckQuery(query, FtsQueryOf(query));
  // Within the text, whatever it holds.
  const docgate::Snippet snippet = docgate::MakeSnippet(text, query);
  for (const auto& [start, end] : snippet.highlights) FUZZ_CHECK(start < end);

  // Throws (and so crashes the fuzzer) on any SQLite error.
  search.chunks().Search(query, 10, docgate::SearchGrouping::kChunk);
  if (!query.empty() && docgate::IsStorableText(text)) {
    search.Index(text);
    FUZZ_CHECK(search.Finds(query), FtsQueryOf(query));
  }
  return 0;
}
