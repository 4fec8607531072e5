#pragma once

// docgate's text analyzer (app/text_analyzer.h) as the FTS5 tokenizer `docgate`, so that SQLite's
// full-text index, its queries, bm25, snippet() and highlight offsets all see the analyzer's terms
// at their places in the original text.

#include <sqlite3.h>

namespace docgate {

// The connection's FTS5 API, or nullptr when it has no FTS5.
fts5_api* Fts5ApiOf(sqlite3* db);

// Registers the tokenizer on `db` (tokenizers are per connection; every SqliteConnection calls
// this when it opens). Throws StorageError when the connection has no FTS5.
void RegisterDocgateTokenizer(sqlite3* db);

}  // namespace docgate
