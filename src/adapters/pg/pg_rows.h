#pragma once

// Parameters and rows of the PostgreSQL stores (libpqxx 6.4): what every store's statements bind
// and read, so that each store's file holds only its SQL and its logic.

#include <pqxx/pqxx>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/chunk_index.h"
#include "app/ports/inbox_store.h"
#include "app/ports/preview_store.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate::pg {

// Times are stored as milliseconds since the epoch (BIGINT).
std::int64_t Millis(TimePoint t);
TimePoint FromMillis(std::int64_t ms);

// libpqxx 6.4 takes no std::optional parameters: SQL NULL is a null `const char*`, so nullable
// values travel as optional text that lives until the statement has run.
std::optional<std::string> Text(const std::optional<std::int64_t>& v);
std::optional<std::string> Text(const std::optional<std::int32_t>& v);
std::optional<std::string> Text(const std::optional<TimePoint>& v);
std::optional<std::string> Text(std::string_view v);

// Text parameters end at the first NUL byte on their way through libpq, and PostgreSQL's text
// cannot hold one anyway: these refuse (StorageError) instead of storing a silently truncated
// value.
const char* Checked(const std::string& value);
const char* Checked(const std::optional<std::string>& value);

// An enum's spelling as a parameter.
inline std::string Name(std::string_view spelling) { return std::string(spelling); }

// "<operation> <id>", for error messages.
std::string Describe(const char* operation, std::int64_t id);

template <typename T>
std::optional<T> Nullable(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return field.as<T>();
}

// The enum a column spells; StorageError naming `column` for an unknown spelling.
template <typename E, typename Parse>
E Enum(const pqxx::field& field, Parse parse, const char* column) {
  const auto text = field.as<std::string>();
  const auto value = parse(text);
  if (!value) throw StorageError(std::string("postgres: unknown ") + column + " '" + text + "'");
  return *value;
}

// Rows in the column order of the stores' SELECTs (see each store's SQL).
Document ToDocument(const pqxx::row& row);
// ToDocument's columns, then the content (NULL: none).
DocumentWithContent ToDocumentWithContent(const pqxx::row& row);
// The review's columns, then its approvals and its assignees as JSON arrays (NULL: none).
inline constexpr int kReviewColumnCount = 12;
Review ToReview(const pqxx::row& row);
// The event's columns from `first` on: event_id, event_type, document_id, review_id, version,
// actor_id, occurred_at, reviewer_id, comment_id. The sequence is left 0.
OutboxEvent EventAt(const pqxx::row& row, int first);
// sequence, then the event's columns.
OutboxEvent ToEvent(const pqxx::row& row);
ParkedEvent ToParked(const pqxx::row& row);
PreviewRecord ToPreview(const pqxx::row& row);
ChunkHit ToHit(const pqxx::row& row);
std::string ToText(const pqxx::row& row);

template <typename T, typename Convert>
std::optional<T> First(const pqxx::result& result, Convert convert) {
  if (result.empty()) return std::nullopt;
  return convert(result[0]);
}

template <typename T, typename Convert>
std::vector<T> All(const pqxx::result& result, Convert convert) {
  std::vector<T> rows;
  rows.reserve(result.size());
  for (const auto& row : result) rows.push_back(convert(row));
  return rows;
}

// A PostgreSQL array literal of ids: {1,2,3}.
std::string IdArray(const std::vector<std::int64_t>& ids);
// A PostgreSQL array literal of texts, each quoted: {"a","b"}. Refuses a text with a NUL
// character as Checked does.
std::string TextArray(const std::vector<std::string>& texts);
// A PostgreSQL array literal of float8s, each as precise as a double: {0.5,2.25}.
std::string FloatArray(const std::vector<double>& values);

}  // namespace docgate::pg
