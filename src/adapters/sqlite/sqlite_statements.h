#pragma once

// The SQL of SqliteDocumentStore, one named constant per statement.

#include <array>
#include <cstddef>
#include <string_view>

namespace docgate::sqlite_sql {

// SQL text joined from literals at compile time, so each column list is written
// once.
template <std::size_t N> struct SqlText {
  std::array<char, N> chars{};
  constexpr
  operator std::string_view() const { // NOLINT(google-explicit-constructor)
    return {chars.data(), N};
  }
};

template <std::size_t... N>
consteval SqlText<(N + ...) - sizeof...(N)> Sql(const char (&...parts)[N]) {
  SqlText<(N + ...) - sizeof...(N)> out;
  std::size_t at = 0;
  for (const std::string_view part : {std::string_view(parts, N - 1)...}) {
    for (const char c : part)
      out.chars[at++] = c;
  }
  return out;
}

// Row selections; the *FromRow decoders below read their columns by position.
constexpr char kSelectDocuments[] =
    "SELECT id, title, status, version, author_id, current_review_id, "
    "approved_version,"
    " approved_at, ingest_status, created_at, updated_at FROM kh_document "
    "WHERE ";
constexpr char kSelectReviews[] =
    "SELECT id, document_id, document_version, status, submitted_by, "
    "submitted_at, decided_by,"
    " decided_at, comment FROM kh_document_review WHERE ";
constexpr char kSelectEvents[] =
    "SELECT id, event_id, event_type, document_id, review_id, version, "
    "actor_id, occurred_at"
    " FROM kh_outbox WHERE ";

constexpr std::string_view kEnableWal = "PRAGMA journal_mode = WAL";
constexpr std::string_view kPing = "SELECT 1";

constexpr auto kSelectDocument = Sql(kSelectDocuments, "id = ?1");
// Document lists bind ?1 status, ?2 author_id, ?3 the exclusive cursor, ?4 the
// limit; one text per filter combination so that each can use its index.
constexpr char kNewestFirst[] = " ORDER BY id DESC LIMIT ?4";
constexpr auto kListDocuments = Sql(kSelectDocuments, "id < ?3", kNewestFirst);
constexpr auto kListDocumentsByStatus =
    Sql(kSelectDocuments, "status = ?1 AND id < ?3", kNewestFirst);
constexpr auto kListDocumentsByAuthor =
    Sql(kSelectDocuments, "author_id = ?2 AND id < ?3", kNewestFirst);
constexpr auto kListDocumentsByStatusAndAuthor =
    Sql(kSelectDocuments, "status = ?1 AND author_id = ?2 AND id < ?3",
        kNewestFirst);
// Insert and update share the parameter numbers of BindDocument; update leaves
// author_id (?4) and created_at (?9) alone and names the row by ?11.
constexpr std::string_view kInsertDocument =
    "INSERT INTO kh_document (title, status, version, author_id, "
    "current_review_id,"
    " approved_version, approved_at, ingest_status, created_at, updated_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) RETURNING id";
constexpr std::string_view kUpdateDocument =
    "UPDATE kh_document SET title = ?1, status = ?2, version = ?3, "
    "current_review_id = ?5,"
    " approved_version = ?6, approved_at = ?7, ingest_status = ?8, updated_at "
    "= ?10"
    " WHERE id = ?11";

constexpr std::string_view kSelectContent =
    "SELECT content FROM kh_document_content WHERE document_id = ?1 AND "
    "version = ?2";
constexpr std::string_view kInsertContent =
    "INSERT INTO kh_document_content (document_id, version, content, "
    "edited_by, created_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";
constexpr std::string_view kSelectEditors =
    "SELECT DISTINCT edited_by FROM kh_document_content"
    " WHERE document_id = ?1 AND version > ?2 AND version <= ?3 AND edited_by "
    "IS NOT NULL"
    " ORDER BY edited_by";

constexpr auto kSelectReview = Sql(kSelectReviews, "id = ?1");
// Review lists bind ?1 status, ?2 the exclusive cursor, ?3 the limit.
constexpr char kOldestFirst[] = " ORDER BY id LIMIT ?3";
constexpr auto kListReviews = Sql(kSelectReviews, "id > ?2", kOldestFirst);
constexpr auto kListReviewsByStatus =
    Sql(kSelectReviews, "status = ?1 AND id > ?2", kOldestFirst);
constexpr auto kListDocumentReviews =
    Sql(kSelectReviews, "document_id = ?1 ORDER BY id DESC");
// Insert and update share the parameter numbers of BindReview; a decision
// changes only ?3, ?6-?8.
constexpr std::string_view kInsertReview =
    "INSERT INTO kh_document_review (document_id, document_version, status, "
    "submitted_by,"
    " submitted_at, decided_by, decided_at, comment)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id";
constexpr std::string_view kUpdateReview =
    "UPDATE kh_document_review SET status = ?3, decided_by = ?6, decided_at = "
    "?7, comment = ?8"
    " WHERE id = ?9";

constexpr char kInsertEventText[] =
    "INSERT INTO kh_outbox (event_id, event_type, document_id, review_id, "
    "version, actor_id,"
    " occurred_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr std::string_view kInsertEvent = kInsertEventText;
// Claims and retry times are on SQLite's clock in epoch millis
// (julianday('now') is fixed for the duration of one statement). The claim
// statements run under BEGIN IMMEDIATE, which serialises claimers as FOR UPDATE
// does on PostgreSQL.
//
// Claims up to ?1 head events (each document's oldest undelivered event) whose
// retry time has come for instance ?2 for ?3 ms: unclaimed rows, rows of an
// expired claim and this instance's own.
constexpr std::string_view kClaimEvents =
    "WITH now_ms AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 "
    "AS INTEGER) AS ms)"
    " UPDATE kh_outbox SET claimed_by = ?2, claimed_until = (SELECT ms FROM "
    "now_ms) + ?3"
    " WHERE id IN (SELECT o.id FROM kh_outbox o WHERE o.delivered_at IS NULL"
    "   AND o.next_attempt_at <= (SELECT ms FROM now_ms)"
    "   AND (o.claimed_until IS NULL OR o.claimed_until < (SELECT ms FROM "
    "now_ms)"
    "        OR o.claimed_by = ?2)"
    "   AND NOT EXISTS (SELECT 1 FROM kh_outbox p WHERE p.document_id = "
    "o.document_id"
    "                   AND p.delivered_at IS NULL AND p.id < o.id)"
    "   ORDER BY o.id LIMIT ?1)"
    " RETURNING id, event_id, event_type, document_id, review_id, version, "
    "actor_id, occurred_at";
// Lets an idle relay poll without taking the write lock.
constexpr std::string_view kAnyPending =
    "SELECT 1 FROM kh_outbox WHERE delivered_at IS NULL LIMIT 1";
constexpr std::string_view kMarkDelivered =
    "UPDATE kh_outbox SET delivered_at = ?2, claimed_by = NULL, claimed_until "
    "= NULL"
    " WHERE id = ?1 AND delivered_at IS NULL";
// Defers row ?1 if instance ?5 claims it: the next attempt after ?2 *
// 2^attempts ms (attempts before this one), at most ?3 ms.
constexpr std::string_view kDeferEvent =
    "WITH now_ms AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 "
    "AS INTEGER) AS ms)"
    " UPDATE kh_outbox SET claimed_by = NULL, claimed_until = NULL, attempts = "
    "attempts + 1,"
    "   next_attempt_at = (SELECT ms FROM now_ms) + min(?3, ?2 << "
    "min(attempts, 30)),"
    "   last_error = ?4"
    " WHERE id = ?1 AND delivered_at IS NULL AND claimed_by = ?5";
constexpr std::string_view kReleaseClaims =
    "UPDATE kh_outbox SET claimed_by = NULL, claimed_until = NULL"
    " WHERE claimed_by = ?1 AND delivered_at IS NULL";
// Extends instance ?1's claims on undelivered rows to ?2 ms from now.
constexpr std::string_view kRenewClaims =
    "WITH now_ms AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 "
    "AS INTEGER) AS ms)"
    " UPDATE kh_outbox SET claimed_until = (SELECT ms FROM now_ms) + ?2"
    " WHERE claimed_by = ?1 AND delivered_at IS NULL";
// Keeps the approval event of every approved version whose ingestion is not
// done: the reconciler replays it (FindStuckIngestions).
constexpr std::string_view kPruneDelivered =
    "DELETE FROM kh_outbox WHERE id IN (SELECT o.id FROM kh_outbox o"
    " WHERE o.delivered_at IS NOT NULL AND o.delivered_at < ?1"
    "   AND NOT EXISTS (SELECT 1 FROM kh_document d WHERE o.event_type = "
    "'document.approved'"
    "                   AND d.id = o.document_id AND d.approved_version = "
    "o.version"
    "                   AND d.ingest_status <> 'done')"
    " ORDER BY o.delivered_at LIMIT ?2)";
constexpr std::string_view kBacklog = "SELECT count(*), min(occurred_at) FROM "
                                      "kh_outbox WHERE delivered_at IS NULL";

// Idempotency keys bind ?1 caller, ?2 key, ?3 owner. Reservation reads and
// writes under BEGIN IMMEDIATE, which makes the check and the write one step
// for every process on the file.
constexpr std::string_view kSelectIdempotencyKey =
    "SELECT fingerprint, response, expires_at, owner FROM kh_idempotency"
    " WHERE caller = ?1 AND idem_key = ?2";
constexpr std::string_view kReserveIdempotencyKey =
    "INSERT OR REPLACE INTO kh_idempotency"
    " (caller, idem_key, owner, fingerprint, response, created_at, expires_at)"
    " VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6)";
constexpr std::string_view kCompleteIdempotencyKey =
    "UPDATE kh_idempotency SET response = ?4, expires_at = ?5"
    " WHERE caller = ?1 AND idem_key = ?2 AND owner = ?3 AND response IS NULL";
constexpr std::string_view kReleaseIdempotencyKey =
    "DELETE FROM kh_idempotency"
    " WHERE caller = ?1 AND idem_key = ?2 AND owner = ?3 AND response IS NULL";
constexpr std::string_view kPruneIdempotencyKeys =
    "DELETE FROM kh_idempotency WHERE rowid IN (SELECT rowid FROM "
    "kh_idempotency"
    " WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2)";

// The consumer inbox binds ?1 consumer, ?2 event_id. A claim writes a 'done'
// row, or turns a 'failing' one into 'done'; a pair already done or parked is
// left as it is (no change).
constexpr std::string_view kClaimInbox =
    "INSERT INTO kh_consumer_inbox (consumer, event_id, state, attempts, "
    "updated_at)"
    " VALUES (?1, ?2, 'done', 0, ?3)"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET state = 'done',"
    "   updated_at = excluded.updated_at"
    " WHERE kh_consumer_inbox.state = 'failing'";
constexpr std::string_view kSelectInbox =
    "SELECT state, attempts FROM kh_consumer_inbox WHERE consumer = ?1 AND "
    "event_id = ?2";
// A failed attempt of consumer ?1 on the event ?5..?11 (BindEvent), ?2 the
// attempt limit, ?3 the error, ?4 the time; the event is kept whole. A pair
// done or parked is left alone.
constexpr std::string_view kRecordFailure =
    "INSERT INTO kh_consumer_inbox (consumer, state, attempts, last_error, "
    "updated_at,"
    " event_id, event_type, document_id, review_id, version, actor_id, "
    "occurred_at)"
    " VALUES (?1, CASE WHEN ?2 <= 1 THEN 'parked' ELSE 'failing' END, 1, ?3, "
    "?4,"
    "         ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    " ON CONFLICT (consumer, event_id) DO UPDATE SET attempts = attempts + 1,"
    "   state = CASE WHEN attempts + 1 >= ?2 THEN 'parked' ELSE 'failing' END,"
    "   last_error = excluded.last_error, updated_at = excluded.updated_at,"
    "   event_type = excluded.event_type, document_id = excluded.document_id,"
    "   review_id = excluded.review_id, version = excluded.version, actor_id = "
    "excluded.actor_id,"
    "   occurred_at = excluded.occurred_at"
    " WHERE kh_consumer_inbox.state = 'failing'";
// ParkedFromRow reads these columns by position.
constexpr std::string_view kListParked =
    "SELECT consumer, event_id, event_type, document_id, review_id, version, "
    "actor_id,"
    " occurred_at, attempts, last_error, updated_at FROM kh_consumer_inbox"
    " WHERE state = 'parked' ORDER BY updated_at, consumer, event_id LIMIT ?1";
// ?1 the event_id, or NULL for every parked pair.
constexpr std::string_view kUnpark =
    "DELETE FROM kh_consumer_inbox WHERE state = 'parked' AND (?1 IS NULL OR "
    "event_id = ?1)"
    " RETURNING updated_at, event_id, event_type, document_id, review_id, "
    "version, actor_id,"
    " occurred_at";
// Done rows written before ?1 whose event the outbox no longer holds, at most
// ?2, oldest first.
constexpr std::string_view kPruneInbox =
    "DELETE FROM kh_consumer_inbox WHERE rowid IN (SELECT i.rowid FROM "
    "kh_consumer_inbox i"
    " WHERE i.state = 'done' AND i.updated_at < ?1"
    "   AND NOT EXISTS (SELECT 1 FROM kh_outbox o WHERE o.event_id = "
    "i.event_id)"
    " ORDER BY i.updated_at LIMIT ?2)";
// The event again as new: undelivered, unclaimed, no attempts, due now.
constexpr auto kRequeueEvent =
    Sql(kInsertEventText, " ON CONFLICT (event_id) DO UPDATE SET delivered_at "
                          "= NULL, claimed_by = NULL,"
                          " claimed_until = NULL, attempts = 0, "
                          "next_attempt_at = 0, last_error = NULL");
// The newest approval event of each approved version not ingested, if delivered
// before ?1.
constexpr std::string_view kFindStuckIngestions =
    "SELECT o.id, o.event_id, o.event_type, o.document_id, o.review_id, "
    "o.version, o.actor_id,"
    " o.occurred_at FROM kh_document d"
    " JOIN kh_outbox o ON o.id = (SELECT max(n.id) FROM kh_outbox n"
    "   WHERE n.event_type = 'document.approved' AND n.document_id = d.id"
    "     AND n.version = d.approved_version)"
    " WHERE d.approved_version IS NOT NULL AND d.ingest_status IN ('none', "
    "'pending')"
    "   AND o.delivered_at IS NOT NULL AND o.delivered_at < ?1"
    " ORDER BY o.delivered_at, o.id LIMIT ?2";

constexpr std::string_view kSetIngestStatus =
    "UPDATE kh_document SET ingest_status = ?2 WHERE id = ?1";
constexpr std::string_view kUpsertPreview =
    "INSERT INTO kh_document_preview (document_id, version, content, "
    "approved_at)"
    " VALUES (?1, ?2, ?3, ?4)"
    " ON CONFLICT (document_id) DO UPDATE SET version = excluded.version,"
    "   content = excluded.content, approved_at = excluded.approved_at"
    " WHERE excluded.version > kh_document_preview.version";
constexpr std::string_view kSelectPreview =
    "SELECT document_id, version, content, approved_at FROM kh_document_preview"
    " WHERE document_id = ?1";
constexpr std::string_view kDeleteChunks =
    "DELETE FROM kh_document_chunk WHERE document_id = ?1";
constexpr std::string_view kInsertChunk =
    "INSERT INTO kh_document_chunk (document_id, ordinal, version, title, "
    "content)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";
constexpr std::string_view kListChunks =
    "SELECT content FROM kh_document_chunk WHERE document_id = ?1 ORDER BY "
    "ordinal";
// ?1 an FTS5 query built by FtsQuery, ?2 the limit. bm25 is lower for better
// matches; its column weights are title 2.5, content 1.0.
constexpr std::string_view kSearch =
    "SELECT c.document_id, c.version, c.title, snippet(kh_document_chunk_fts, "
    "1, '', '', '', 32),"
    " -bm25(kh_document_chunk_fts, 2.5, 1.0) AS score"
    " FROM kh_document_chunk_fts"
    " JOIN kh_document_chunk c ON c.id = kh_document_chunk_fts.rowid"
    " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = "
    "c.version"
    " WHERE kh_document_chunk_fts MATCH ?1"
    " ORDER BY score DESC, c.document_id, c.ordinal LIMIT ?2";

} // namespace docgate::sqlite_sql
