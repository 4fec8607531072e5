#include "adapters/sqlite/sqlite_bm25.h"

#include <cstring>
#include <exception>
#include <memory>

#include "adapters/sqlite/sqlite_tokenizer.h"
#include "app/search_ranking.h"
#include "core/error.h"

namespace docgate {
namespace {

// What stays the same for every row of one query: kept as FTS5's auxiliary data.
struct QueryTotals {
  std::vector<double> coefficients;
  double average_length = 1;
};

void Fail(sqlite3_context* context, const char* message) {
  sqlite3_result_error(context, message, -1);
}

// The coefficients and the average row length, read on the query's first row.
QueryTotals* TotalsOf(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_value* argument) {
  if (auto* totals = static_cast<QueryTotals*>(api->xGetAuxdata(fts, 0))) return totals;
  auto totals = std::make_unique<QueryTotals>();
  const auto bytes = static_cast<std::size_t>(sqlite3_value_bytes(argument));
  const void* blob = sqlite3_value_blob(argument);
  totals->coefficients.resize(bytes / sizeof(double));
  if (blob != nullptr && bytes > 0) std::memcpy(totals->coefficients.data(), blob, bytes);
  sqlite3_int64 rows = 0;
  sqlite3_int64 tokens = 0;
  if (api->xRowCount(fts, &rows) != SQLITE_OK ||
      api->xColumnTotalSize(fts, -1, &tokens) != SQLITE_OK) {
    return nullptr;
  }
  if (rows > 0 && tokens > 0) {
    totals->average_length = static_cast<double>(tokens) / static_cast<double>(rows);
  }
  QueryTotals* kept = totals.get();
  if (api->xSetAuxdata(fts, totals.release(),
                       [](void* p) { delete static_cast<QueryTotals*>(p); }) != SQLITE_OK) {
    return nullptr;  // xSetAuxdata deleted it
  }
  return kept;
}

void Bm25(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* context, int count,
          sqlite3_value** arguments) {
  if (count != 1 || sqlite3_value_type(arguments[0]) != SQLITE_BLOB) {
    return Fail(context, "docgate_bm25: expects the coefficients as one blob");
  }
  try {
    const QueryTotals* totals = TotalsOf(api, fts, arguments[0]);
    if (totals == nullptr) return Fail(context, "docgate_bm25: cannot read the index's totals");
    const auto phrases = static_cast<std::size_t>(api->xPhraseCount(fts));
    if (totals->coefficients.size() != phrases) {
      return Fail(context, "docgate_bm25: one coefficient per phrase of the query expected");
    }
    std::vector<double> frequency(phrases, 0.0);
    int instances = 0;
    if (api->xInstCount(fts, &instances) != SQLITE_OK) {
      return Fail(context, "docgate_bm25: xInstCount");
    }
    for (int i = 0; i < instances; ++i) {
      int phrase = 0;
      int column = 0;
      int offset = 0;
      if (api->xInst(fts, i, &phrase, &column, &offset) != SQLITE_OK) {
        return Fail(context, "docgate_bm25: xInst");
      }
      frequency[static_cast<std::size_t>(phrase)] += column == 0 ? kTitleWeight : 1.0;
    }
    int length = 0;
    if (api->xColumnSize(fts, -1, &length) != SQLITE_OK) {
      return Fail(context, "docgate_bm25: xColumnSize");
    }
    const double relative_length = static_cast<double>(length) / totals->average_length;
    double score = 0;
    for (std::size_t p = 0; p < phrases; ++p) {
      score += totals->coefficients[p] * Saturation(frequency[p], relative_length);
    }
    sqlite3_result_double(context, score);
  } catch (const std::exception&) {
    sqlite3_result_error_nomem(context);
  }
}

}  // namespace

void RegisterDocgateBm25(sqlite3* db) {
  fts5_api* api = Fts5ApiOf(db);
  if (api == nullptr ||
      api->xCreateFunction(api, "docgate_bm25", nullptr, &Bm25, nullptr) != SQLITE_OK) {
    throw StorageError(std::string("sqlite: cannot register docgate_bm25: ") + sqlite3_errmsg(db));
  }
}

std::string EncodeCoefficients(const std::vector<double>& coefficients) {
  std::string blob(coefficients.size() * sizeof(double), '\0');
  if (!blob.empty()) std::memcpy(blob.data(), coefficients.data(), blob.size());
  return blob;
}

}  // namespace docgate
