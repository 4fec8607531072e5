#pragma once

// Rows and parameters the SQLite stores share: nullable and enum columns, the outbox event's
// columns (the outbox's and the inbox's rows), and stepping through a statement's rows. Each
// store decodes and binds its own rows in its own file. Header-only, so that the templates and
// their helpers stay together.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/sqlite/sqlite_connection.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate::sqlite_rows {

template <typename T>
std::optional<T> Nullable(const SqliteStatement& row, int column,
                          T (SqliteStatement::*read)(int) const) {
  if (row.IsNull(column)) return std::nullopt;
  return (row.*read)(column);
}

template <typename E>
E EnumColumn(const SqliteStatement& row, int column, std::optional<E> (*parse)(std::string_view),
             std::string_view what) {
  const std::string text = row.Text(column);
  if (const std::optional<E> value = parse(text)) return *value;
  throw StorageError("sqlite: " + std::string(what) + " holds unknown value '" + text + "'");
}

// The event's columns from `first` on: event_id, event_type, document_id,
// review_id, version, actor_id, occurred_at, reviewer_id, comment_id. The sequence is left 0.
inline OutboxEvent EventAt(const SqliteStatement& row, int first) {
  OutboxEvent event;
  event.event_id = row.Text(first);
  event.type = EnumColumn(row, first + 1, &ParseEventType, "event_type");
  event.document_id = row.Int64(first + 2);
  event.review_id = row.Int64(first + 3);
  event.version = row.Int32(first + 4);
  event.actor_id = row.Text(first + 5);
  event.occurred_at = row.Time(first + 6);
  event.reviewer_id = Nullable(row, first + 7, &SqliteStatement::Text);
  event.comment_id = Nullable(row, first + 8, &SqliteStatement::Int64);
  return event;
}

// The sequence (id), then the event's columns as EventAt reads them.
inline OutboxEvent EventFromRow(const SqliteStatement& row) {
  OutboxEvent event = EventAt(row, 1);
  event.sequence = row.Int64(0);
  return event;
}

// Binds the event's columns as EventAt reads them, from parameter `first` on
// (sequence aside).
inline SqliteStatement& BindEvent(SqliteStatement& stmt, const OutboxEvent& event, int first) {
  return stmt.Bind(first, event.event_id)
      .Bind(first + 1, ToString(event.type))
      .Bind(first + 2, event.document_id)
      .Bind(first + 3, event.review_id)
      .Bind(first + 4, event.version)
      .Bind(first + 5, event.actor_id)
      .Bind(first + 6, event.occurred_at)
      .Bind(first + 7, event.reviewer_id)
      .Bind(first + 8, event.comment_id);
}

inline std::string TextFromRow(const SqliteStatement& row) { return row.Text(0); }

template <typename T>
std::optional<T> FirstRow(SqliteStatement& stmt, T (*decode)(const SqliteStatement&)) {
  if (!stmt.Step()) return std::nullopt;
  return decode(stmt);
}

template <typename T>
std::vector<T> AllRows(SqliteStatement& stmt, T (*decode)(const SqliteStatement&)) {
  std::vector<T> rows;
  while (stmt.Step()) rows.push_back(decode(stmt));
  return rows;
}

inline std::int64_t ReturnedId(SqliteStatement& stmt) {
  if (!stmt.Step()) throw StorageError("sqlite: INSERT ... RETURNING id returned no row");
  const std::int64_t id = stmt.Int64(0);
  stmt.Run();
  return id;
}

inline void ExpectOneRowChanged(SqliteConnection& connection, std::string_view what,
                                std::int64_t id) {
  if (connection.Changes() != 1) {
    throw StorageError("sqlite: no " + std::string(what) + " " + std::to_string(id) + " to update");
  }
}

inline std::int64_t NonNegative(int limit) { return std::max(limit, 0); }

}  // namespace docgate::sqlite_rows
