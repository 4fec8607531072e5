#pragma once

// Rows and parameters of the SQLite store: how each row decodes, how each write binds, and the
// small reads that both of its transactions and its autocommit calls share. Used by
// sqlite_document_store.cpp only; header-only so that its templates and helpers stay together.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/sqlite/sqlite_connection.h"
#include "adapters/sqlite/sqlite_connection_pool.h"
#include "adapters/sqlite/sqlite_statements.h"
#include "app/chunk_index.h"
#include "app/document_store.h"
#include "app/inbox_store.h"
#include "app/preview_store.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate::sqlite_rows {

using namespace sqlite_sql;


template <typename T>
std::optional<T> Nullable(const SqliteStatement &row, int column,
                          T (SqliteStatement::*read)(int) const) {
  if (row.IsNull(column))
    return std::nullopt;
  return (row.*read)(column);
}

template <typename E>
E EnumColumn(const SqliteStatement &row, int column,
             std::optional<E> (*parse)(std::string_view),
             std::string_view what) {
  const std::string text = row.Text(column);
  if (const std::optional<E> value = parse(text))
    return *value;
  throw StorageError("sqlite: " + std::string(what) + " holds unknown value '" +
                     text + "'");
}

inline Document DocumentFromRow(const SqliteStatement &row) {
  Document doc;
  doc.id = row.Int64(0);
  doc.title = row.Text(1);
  doc.status = EnumColumn(row, 2, &ParseDocumentStatus, "kh_document.status");
  doc.version = row.Int32(3);
  doc.author_id = row.Text(4);
  doc.current_review_id = Nullable(row, 5, &SqliteStatement::Int64);
  doc.approved_version = Nullable(row, 6, &SqliteStatement::Int32);
  doc.approved_at = Nullable(row, 7, &SqliteStatement::Time);
  doc.ingest_status =
      EnumColumn(row, 8, &ParseIngestStatus, "kh_document.ingest_status");
  doc.created_at = row.Time(9);
  doc.updated_at = row.Time(10);
  return doc;
}

inline Review ReviewFromRow(const SqliteStatement &row) {
  Review review;
  review.id = row.Int64(0);
  review.document_id = row.Int64(1);
  review.document_version = row.Int32(2);
  review.status =
      EnumColumn(row, 3, &ParseReviewStatus, "kh_document_review.status");
  review.submitted_by = row.Text(4);
  review.submitted_at = row.Time(5);
  review.decided_by = Nullable(row, 6, &SqliteStatement::Text);
  review.decided_at = Nullable(row, 7, &SqliteStatement::Time);
  review.comment = Nullable(row, 8, &SqliteStatement::Text);
  return review;
}

// The event's columns from `first` on: event_id, event_type, document_id,
// review_id, version, actor_id, occurred_at. The sequence is left 0.
inline OutboxEvent EventAt(const SqliteStatement &row, int first) {
  OutboxEvent event;
  event.event_id = row.Text(first);
  event.type = EnumColumn(row, first + 1, &ParseEventType, "event_type");
  event.document_id = row.Int64(first + 2);
  event.review_id = row.Int64(first + 3);
  event.version = row.Int32(first + 4);
  event.actor_id = row.Text(first + 5);
  event.occurred_at = row.Time(first + 6);
  return event;
}

inline OutboxEvent EventFromRow(const SqliteStatement &row) {
  OutboxEvent event = EventAt(row, 1);
  event.sequence = row.Int64(0);
  return event;
}

inline ParkedEvent ParkedFromRow(const SqliteStatement &row) {
  ParkedEvent parked;
  parked.consumer = row.Text(0);
  parked.event = EventAt(row, 1);
  parked.attempts = row.Int32(8);
  parked.last_error = Nullable(row, 9, &SqliteStatement::Text).value_or("");
  parked.parked_at = row.Time(10);
  return parked;
}

inline PreviewRecord PreviewFromRow(const SqliteStatement &row) {
  return PreviewRecord{row.Int64(0), row.Int32(1), row.Text(2), row.Time(3)};
}

inline SearchHit HitFromRow(const SqliteStatement &row) {
  return SearchHit{row.Int64(0), row.Int32(1), row.Text(2), row.Text(3),
                   row.Double(4)};
}

inline std::string TextFromRow(const SqliteStatement &row) { return row.Text(0); }

struct InboxRow {
  std::string state;
  int attempts = 0;
};

// The inbox row of (consumer, event_id), which the caller's write transaction
// has just written or found; StorageError if there is none.
inline InboxRow ReadInbox(SqliteConnection &connection, std::string_view consumer,
                   std::string_view event_id) {
  auto stmt = connection.Prepare(kSelectInbox);
  stmt.Bind(1, consumer).Bind(2, event_id);
  if (!stmt.Step()) {
    throw StorageError("sqlite: inbox row of " + std::string(event_id) +
                       " vanished");
  }
  return InboxRow{stmt.Text(0), stmt.Int32(1)};
}

// Binds the event's columns as EventAt reads them, from parameter `first` on
// (sequence aside).
inline SqliteStatement &BindEvent(SqliteStatement &stmt, const OutboxEvent &event,
                           int first) {
  return stmt.Bind(first, event.event_id)
      .Bind(first + 1, ToString(event.type))
      .Bind(first + 2, event.document_id)
      .Bind(first + 3, event.review_id)
      .Bind(first + 4, event.version)
      .Bind(first + 5, event.actor_id)
      .Bind(first + 6, event.occurred_at);
}

inline void BindDocument(SqliteStatement &stmt, const Document &doc) {
  stmt.Bind(1, doc.title)
      .Bind(2, ToString(doc.status))
      .Bind(3, doc.version)
      .Bind(4, doc.author_id)
      .Bind(5, doc.current_review_id)
      .Bind(6, doc.approved_version)
      .Bind(7, doc.approved_at)
      .Bind(8, ToString(doc.ingest_status))
      .Bind(9, doc.created_at)
      .Bind(10, doc.updated_at);
}

inline void BindReview(SqliteStatement &stmt, const Review &review) {
  stmt.Bind(1, review.document_id)
      .Bind(2, review.document_version)
      .Bind(3, ToString(review.status))
      .Bind(4, review.submitted_by)
      .Bind(5, review.submitted_at)
      .Bind(6, review.decided_by)
      .Bind(7, review.decided_at)
      .Bind(8, review.comment);
}

inline std::string_view DocumentListSql(const DocumentQuery &query) {
  if (query.status && query.author_id)
    return kListDocumentsByStatusAndAuthor;
  if (query.status)
    return kListDocumentsByStatus;
  if (query.author_id)
    return kListDocumentsByAuthor;
  return kListDocuments;
}

template <typename T>
std::optional<T> FirstRow(SqliteStatement &stmt,
                          T (*decode)(const SqliteStatement &)) {
  if (!stmt.Step())
    return std::nullopt;
  return decode(stmt);
}

template <typename T>
std::vector<T> AllRows(SqliteStatement &stmt,
                       T (*decode)(const SqliteStatement &)) {
  std::vector<T> rows;
  while (stmt.Step())
    rows.push_back(decode(stmt));
  return rows;
}

// Runs `sql` with `params` bound as ?1, ?2, ... on a pooled connection in
// autocommit: every row, decoded.
template <typename T, typename... Params>
std::vector<T> ReadAll(SqliteConnectionPool &pool, std::string_view sql,
                       T (*decode)(const SqliteStatement &),
                       const Params &...params) {
  auto lease = pool.Acquire();
  auto stmt = lease->Prepare(sql);
  int index = 0;
  (stmt.Bind(++index, params), ...);
  return AllRows(stmt, decode);
}

inline std::optional<Document> SelectDocument(SqliteConnection &connection,
                                       DocumentId id) {
  auto stmt = connection.Prepare(kSelectDocument);
  stmt.Bind(1, id);
  return FirstRow(stmt, &DocumentFromRow);
}

inline std::optional<Review> SelectReview(SqliteConnection &connection, ReviewId id) {
  auto stmt = connection.Prepare(kSelectReview);
  stmt.Bind(1, id);
  return FirstRow(stmt, &ReviewFromRow);
}

inline std::optional<std::string> SelectContent(SqliteConnection &connection,
                                         DocumentId id, std::int32_t version) {
  auto stmt = connection.Prepare(kSelectContent);
  stmt.Bind(1, id).Bind(2, version);
  if (!stmt.Step())
    return std::nullopt;
  return stmt.Text(0);
}

inline std::int64_t ReturnedId(SqliteStatement &stmt) {
  if (!stmt.Step())
    throw StorageError("sqlite: INSERT ... RETURNING id returned no row");
  const std::int64_t id = stmt.Int64(0);
  stmt.Run();
  return id;
}

inline void ExpectOneRowChanged(SqliteConnection &connection, std::string_view what,
                         std::int64_t id) {
  if (connection.Changes() != 1) {
    throw StorageError("sqlite: no " + std::string(what) + " " +
                       std::to_string(id) + " to update");
  }
}

inline std::int64_t NonNegative(int limit) { return std::max(limit, 0); }

// Completes `owner`'s in-flight record; false when there is none.
inline bool CompleteIdempotencyKey(SqliteConnection &connection,
                            const std::string &caller, const std::string &key,
                            const std::string &owner,
                            const std::string &response, TimePoint expires_at) {
  connection.Prepare(kCompleteIdempotencyKey)
      .Bind(1, caller)
      .Bind(2, key)
      .Bind(3, owner)
      .Bind(4, response)
      .Bind(5, expires_at)
      .Run();
  return connection.Changes() == 1;
}

}  // namespace docgate::sqlite_rows
