#include "adapters/sqlite/sqlite_tokenizer.h"

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "app/text_analyzer.h"
#include "core/error.h"

namespace docgate {
namespace {

using TokenCallback = int (*)(void*, int, const char*, int, int, int);

// The tokenizer keeps no state: every call analyses its text from scratch.
int Create(void* /*context*/, const char** /*args*/, int /*count*/, Fts5Tokenizer** out) {
  static char instance;
  *out = reinterpret_cast<Fts5Tokenizer*>(&instance);
  return SQLITE_OK;
}

void Delete(Fts5Tokenizer* /*tokenizer*/) {}

// Documents and queries alike: FTS5 tokenizes a query's phrases with the same tokenizer, telling
// it so in `flags`. A term at the previous term's position is FTS5's colocated token.
int Tokenize(Fts5Tokenizer* /*tokenizer*/, void* context, int flags, const char* text, int size,
             TokenCallback token) {
  try {
    const std::string_view input(text, size < 0 ? 0 : static_cast<std::size_t>(size));
    const AnalyzerUse use =
        (flags & FTS5_TOKENIZE_QUERY) != 0 ? AnalyzerUse::kQuery : AnalyzerUse::kIndex;
    const std::vector<AnalyzedTerm> terms = AnalyzeText(input, use);
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const AnalyzedTerm& term = terms[i];
      const bool colocated = i > 0 && terms[i - 1].position == term.position;
      const int rc = token(context, colocated ? FTS5_TOKEN_COLOCATED : 0, term.term.data(),
                           static_cast<int>(term.term.size()), static_cast<int>(term.begin),
                           static_cast<int>(term.end));
      if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
  } catch (const std::exception&) {
    return SQLITE_NOMEM;  // the analyzer throws only when it cannot allocate
  }
}

}  // namespace

fts5_api* Fts5ApiOf(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr) == SQLITE_OK) {
    sqlite3_bind_pointer(stmt, 1, &api, "fts5_api_ptr", nullptr);
    sqlite3_step(stmt);
  }
  sqlite3_finalize(stmt);
  return api;
}

void RegisterDocgateTokenizer(sqlite3* db) {
  fts5_api* api = Fts5ApiOf(db);
  if (api == nullptr) throw StorageError("sqlite: this SQLite has no FTS5");
  static fts5_tokenizer tokenizer{&Create, &Delete, &Tokenize};
  if (api->xCreateTokenizer(api, "docgate", nullptr, &tokenizer, nullptr) != SQLITE_OK) {
    throw StorageError(std::string("sqlite: cannot register the docgate tokenizer: ") +
                       sqlite3_errmsg(db));
  }
}

}  // namespace docgate
