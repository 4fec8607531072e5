// Invariant: the user's search text is never FTS5 syntax. SearchWords (core/search_text.h) splits
// any text into non-empty words of valid UTF-8 without whitespace or control characters, in the
// order they appear; FtsQuery (adapters/sqlite/sqlite_fts_query.h) quotes each of them; and a real
// SQLite store (a temporary file) answers SqliteDocumentStore::Search for any text without raising
// an error. Moreover a document whose content is the text itself is found by searching for that
// text, as it would not be if any word were read as an operator, whenever the text holds a word
// FTS5 indexes (a query of only punctuation matches nothing).

#include <sqlite3.h>
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
#include "core/search_text.h"
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
    transaction->ReplaceChunks(id_, 1, "fuzz", {content});
    transaction->Commit();
  }

  bool Finds(const std::string& text) {
    for (const auto& hit : chunks_->Search(text, 10)) {
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

// Whether `text` holds a token for FTS5 with the store's tokenizer (migrations/sqlite/0004):
// a text of only punctuation and symbols makes a query that matches nothing, as documented.
class Tokenizer {
 public:
  Tokenizer() {
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK ||
        sqlite3_exec(db_,
                     "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 "
                     "remove_diacritics 0');"
                     "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');",
                     nullptr, nullptr, nullptr) != SQLITE_OK) {
      std::abort();
    }
  }
  ~Tokenizer() { sqlite3_close(db_); }

  bool HasToken(const std::string& text) {
    sqlite3_exec(db_, "DELETE FROM t", nullptr, nullptr, nullptr);
    sqlite3_stmt* insert = nullptr;
    sqlite3_prepare_v2(db_, "INSERT INTO t (x) VALUES (?1)", -1, &insert, nullptr);
    sqlite3_bind_text(insert, 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    FUZZ_CHECK(sqlite3_step(insert) == SQLITE_DONE);
    sqlite3_finalize(insert);
    sqlite3_stmt* count = nullptr;
    sqlite3_prepare_v2(db_, "SELECT count(*) FROM v", -1, &count, nullptr);
    FUZZ_CHECK(sqlite3_step(count) == SQLITE_ROW);
    const bool any = sqlite3_column_int64(count, 0) > 0;
    sqlite3_finalize(count);
    return any;
  }

 private:
  sqlite3* db_ = nullptr;
};

void CheckWords(std::string_view text, const std::vector<std::string>& words) {
  std::size_t from = 0;
  for (const std::string& word : words) {
    FUZZ_CHECK(!word.empty());
    FUZZ_CHECK(docgate::Utf8Length(word).has_value());
    for (const char c : word) {
      const auto byte = static_cast<unsigned char>(c);
      FUZZ_CHECK(byte > 0x20 && byte != 0x7F);
    }
    // A word is a run of the text's code points between separators.
    const auto at = text.find(word, from);
    FUZZ_CHECK(at != std::string_view::npos);
    from = at + word.size();
  }
}

void CheckQuery(const std::vector<std::string>& words, const std::string& query) {
  std::string expected;
  for (const std::string& word : words) {
    if (!expected.empty()) expected += ' ';
    expected += '"';
    for (const char c : word) expected += c == '"' ? std::string("\"\"") : std::string(1, c);
    expected += '"';
  }
  FUZZ_CHECK(query == expected, query);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static SearchStore search;
  static Tokenizer tokenizer;
  const std::string text(AsText(data, size));
  const auto words = docgate::SearchWords(text);
  CheckWords(text, words);
  CheckQuery(words, docgate::FtsQuery(words));

  // Throws (and so crashes the fuzzer) on any SQLite error.
  search.chunks().Search(text, 10);
  if (!words.empty() && docgate::IsStorableText(text) && tokenizer.HasToken(text)) {
    search.Index(text);
    FUZZ_CHECK(search.Finds(text), docgate::FtsQuery(words));
  }
  return 0;
}
