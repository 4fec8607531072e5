#pragma once

// The SQL of PgDocumentStore: the statements prepared on every connection
// (kStatements) and the list queries run unprepared.

#include <array>

namespace docgate::pg_sql {

// A statement prepared once per connection.
struct Statement {
  const char *name;
  const char *sql;
};

constexpr Statement kSelectDocument{
    "select_document", "SELECT id, title, status, version, author_id, "
                       "current_review_id, approved_version,"
                       " approved_at, ingest_status, created_at, updated_at "
                       "FROM kh_document WHERE id = $1"};
constexpr Statement kLockDocument{
    "lock_document", "SELECT id, title, status, version, author_id, "
                     "current_review_id, approved_version,"
                     " approved_at, ingest_status, created_at, updated_at FROM "
                     "kh_document WHERE id = $1"
                     " FOR UPDATE"};
constexpr Statement kInsertDocument{
    "insert_document",
    "INSERT INTO kh_document (title, status, version, author_id, "
    "current_review_id,"
    " approved_version, approved_at, ingest_status, created_at, updated_at)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id"};
// The mutable columns only: the author and the creation time never change.
constexpr Statement kUpdateDocument{
    "update_document", "UPDATE kh_document SET title = $2, status = $3, "
                       "version = $4, current_review_id = $5,"
                       " approved_version = $6, approved_at = $7, "
                       "ingest_status = $8, updated_at = $9"
                       " WHERE id = $1"};

constexpr Statement kSelectReview{
    "select_review",
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment FROM kh_document_review WHERE id = $1"};
constexpr Statement kLockReview{
    "lock_review",
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment FROM kh_document_review WHERE id = $1 FOR UPDATE"};
constexpr Statement kInsertReview{
    "insert_review", "INSERT INTO kh_document_review (document_id, "
                     "document_version, status, submitted_by,"
                     " submitted_at, decided_by, decided_at, comment)"
                     " VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id"};
// The decision only: what was submitted, by whom and when, never changes.
constexpr Statement kUpdateReview{
    "update_review", "UPDATE kh_document_review SET status = $2, decided_by = "
                     "$3, decided_at = $4, comment = $5"
                     " WHERE id = $1"};
constexpr Statement kSelectDocumentReviews{
    "select_document_reviews", "SELECT id, document_id, document_version, "
                               "status, submitted_by, submitted_at, decided_by,"
                               " decided_at, comment FROM kh_document_review "
                               "WHERE document_id = $1 ORDER BY id DESC"};

constexpr Statement kSelectContent{"select_content",
                                   "SELECT content FROM kh_document_content "
                                   "WHERE document_id = $1 AND version = $2"};
constexpr Statement kInsertContent{
    "insert_content", "INSERT INTO kh_document_content (document_id, version, "
                      "content, edited_by, created_at)"
                      " VALUES ($1, $2, $3, $4, $5)"};
constexpr Statement kSelectEditors{
    "select_editors", "SELECT DISTINCT edited_by FROM kh_document_content"
                      " WHERE document_id = $1 AND version > $2 AND version <= "
                      "$3 ORDER BY edited_by"};




// The consumer inbox binds $1 consumer, $2 event_id. A claim writes a 'done'
// row, or turns a 'failing' one into 'done', and returns a row when it did; a
// pair already done or parked is left as it is. A concurrent claim of the same
// pair waits on the primary key (or the row lock) for the first to end, then
// inserts (the first rolled back) or finds its committed row.
constexpr Statement kClaimInbox{
    "claim_inbox",
    "INSERT INTO kh_consumer_inbox (consumer, event_id, state, attempts, "
    "updated_at)"
    " VALUES ($1, $2, 'done', 0, $3)"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET state = 'done',"
    "   updated_at = EXCLUDED.updated_at"
    " WHERE kh_consumer_inbox.state = 'failing'"
    " RETURNING state"};
constexpr Statement kSelectInbox{
    "select_inbox", "SELECT state, attempts FROM kh_consumer_inbox WHERE "
                    "consumer = $1 AND event_id = $2"};
// A failed attempt of a new or failing pair, $3 the attempt limit; the event
// ($6..$11) is kept whole. A pair done or parked is left alone and nothing is
// returned.
constexpr Statement kRecordFailure{
    "record_failure",
    "INSERT INTO kh_consumer_inbox (consumer, event_id, state, attempts, "
    "last_error, updated_at,"
    " event_type, document_id, review_id, version, actor_id, occurred_at)"
    " VALUES ($1, $2, CASE WHEN $3::integer <= 1 THEN 'parked' ELSE 'failing' "
    "END, 1, $4, $5,"
    "         $6, $7, $8, $9, $10, $11)"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET attempts = "
    "kh_consumer_inbox.attempts + 1,"
    "   state = CASE WHEN kh_consumer_inbox.attempts + 1 >= $3::integer THEN "
    "'parked'"
    "                ELSE 'failing' END,"
    "   last_error = EXCLUDED.last_error, updated_at = EXCLUDED.updated_at,"
    "   event_type = EXCLUDED.event_type, document_id = EXCLUDED.document_id,"
    "   review_id = EXCLUDED.review_id, version = EXCLUDED.version,"
    "   actor_id = EXCLUDED.actor_id, occurred_at = EXCLUDED.occurred_at"
    " WHERE kh_consumer_inbox.state = 'failing'"
    " RETURNING state, attempts"};
// ToParked reads these columns by position.
constexpr Statement kListParked{
    "list_parked",
    "SELECT consumer, event_id, event_type, document_id, review_id, version, "
    "actor_id,"
    " occurred_at, attempts, last_error, updated_at FROM kh_consumer_inbox"
    " WHERE state = 'parked' ORDER BY updated_at, consumer, event_id LIMIT $1"};
// $1 the event_id, or NULL for every parked pair.
constexpr Statement kUnpark{"unpark",
                            "DELETE FROM kh_consumer_inbox WHERE state = "
                            "'parked' AND ($1::text IS NULL OR event_id = $1)"
                            " RETURNING updated_at, event_id, event_type, "
                            "document_id, review_id, version, actor_id,"
                            " occurred_at"};
// Done rows written before $1 whose event the outbox no longer holds, at most
// $2, oldest first; rows another instance is pruning right now are skipped, not
// waited for.
constexpr Statement kPruneInbox{
    "prune_inbox",
    "DELETE FROM kh_consumer_inbox WHERE (consumer, event_id) IN (SELECT "
    "i.consumer, i.event_id"
    " FROM kh_consumer_inbox i WHERE i.state = 'done' AND i.updated_at < $1"
    "   AND NOT EXISTS (SELECT 1 FROM kh_outbox o WHERE o.event_id = "
    "i.event_id)"
    " ORDER BY i.updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)"};

constexpr Statement kSetIngestStatus{
    "set_ingest_status",
    "UPDATE kh_document SET ingest_status = $2 WHERE id = $1"};

constexpr Statement kPing{"ping", "SELECT 1"};

inline constexpr std::array kStatements{
    kSelectDocument,
    kLockDocument,
    kInsertDocument,
    kUpdateDocument,
    kSelectReview,
    kLockReview,
    kInsertReview,
    kUpdateReview,
    kSelectDocumentReviews,
    kSelectContent,
    kInsertContent,
    kSelectEditors,
    kClaimInbox,
    kSelectInbox,
    kRecordFailure,
    kListParked,
    kUnpark,
    kPruneInbox,
    kSetIngestStatus,
};

// The list queries filter on optional parameters; run unprepared, each is
// planned with its actual values, so a NULL filter folds away and the matching
// index is used.
constexpr const char *kListDocuments =
    "SELECT id, title, status, version, author_id, current_review_id, "
    "approved_version,"
    " approved_at, ingest_status, created_at, updated_at FROM kh_document"
    " WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR "
    "author_id = $2)"
    "   AND ($3::bigint IS NULL OR id < $3)"
    " ORDER BY id DESC LIMIT $4";
constexpr const char *kListReviews =
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment FROM kh_document_review"
    " WHERE ($1::text IS NULL OR status = $1) AND ($2::bigint IS NULL OR id > "
    "$2)"
    " ORDER BY id LIMIT $3";

} // namespace docgate::pg_sql
