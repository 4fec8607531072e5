#pragma once

// docgate's BM25 (app/search_ranking.h) as the FTS5 auxiliary function `docgate_bm25`, so that
// SQLite scores a chunk with the coefficients docgate computed, the same numbers PostgreSQL gets.

#include <sqlite3.h>

#include <string>
#include <vector>

namespace docgate {

// `docgate_bm25(<fts table>, coefficients)`: the current row's Okapi BM25 (higher is better)
// over the phrases of the FTS5 query, phrase i weighing coefficients[i] (EncodeCoefficients; 0
// for a phrase that only selects rows). An occurrence in the first column (the title) counts
// kTitleWeight, in another 1; the row's length is its tokens in all columns over their average.
// Registered on `db` (every SqliteConnection calls this when it opens); StorageError when it
// cannot be.
void RegisterDocgateBm25(sqlite3* db);

// The coefficients as docgate_bm25's second argument (a blob of doubles).
std::string EncodeCoefficients(const std::vector<double>& coefficients);

}  // namespace docgate
