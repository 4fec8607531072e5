#pragma once

// The statements PostgreSQL and SQLite run alike, written once. Their text is PostgreSQL's, with
// `$N` placeholders; SQLite runs the same text with `?N` (kSqlite, made at compile time: the same
// number binds the same value, whatever order the placeholders come in).
//
// Why the others are not here: they differ in more than the placeholder. PostgreSQL's casts
// (`$1::bigint`, `unnest($4::text[])`), its row locks (`FOR UPDATE [SKIP LOCKED]`, while SQLite's
// writer lock is the whole file), its clock (`clock_timestamp()` against a time docgate binds),
// its upserts and arrays, and SQLite's FTS5 `MATCH` and `INSERT OR REPLACE` are each backend's
// own; a statement shared through a layer of string substitutions would hide that from the reader
// of either file. A statement that becomes the same on both moves here.

#include <array>
#include <cstddef>
#include <string_view>

namespace docgate::sql {

// `postgres` with each `$` that starts a placeholder (a digit follows) made `?`.
template <std::size_t N>
struct SqliteText {
  std::array<char, N> text{};
  consteval explicit SqliteText(const char (&postgres)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      const bool placeholder =
          postgres[i] == '$' && i + 1 < N && postgres[i + 1] >= '0' && postgres[i + 1] <= '9';
      text[i] = placeholder ? '?' : postgres[i];
    }
  }
  constexpr operator std::string_view() const { return {text.data(), N - 1}; }
};

static_assert(std::string_view(SqliteText("a = $2 AND b = $12 AND c = '$x'")) ==
                  "a = ?2 AND b = ?12 AND c = '$x'",
              "a placeholder keeps its number; a `$` before no digit is text");

// The SQLite text of a statement below: `sql::kSqlite<sql::kBacklog>`.
template <const auto& kPostgres>
inline constexpr SqliteText kSqlite{kPostgres};

// idempotency store
inline constexpr char kCompleteIdempotencyKey[] =
    "UPDATE kh_idempotency SET response = $4, expires_at = $5"
    " WHERE caller = $1 AND idem_key = $2 AND owner = $3 AND response IS NULL";
inline constexpr char kReleaseIdempotencyKey[] =
    "DELETE FROM kh_idempotency"
    " WHERE caller = $1 AND idem_key = $2 AND owner = $3 AND response IS NULL";
inline constexpr char kSelectIdempotencyKey[] =
    "SELECT fingerprint, response, expires_at, owner FROM kh_idempotency"
    " WHERE caller = $1 AND idem_key = $2";

// embedding store
inline constexpr char kAdoptOrphans[] =
    "UPDATE kh_embedding SET orphaned_at = NULL"
    " WHERE text_key = $1 AND orphaned_at IS NOT NULL";
inline constexpr char kChunksWithoutKey[] =
    "SELECT document_id, ordinal, content FROM kh_document_chunk WHERE text_key IS NULL"
    " ORDER BY document_id, ordinal LIMIT $1";
inline constexpr char kSetKey[] =
    "UPDATE kh_document_chunk SET text_key = $3"
    " WHERE document_id = $1 AND ordinal = $2 AND text_key IS NULL";
inline constexpr char kVectorIds[] =
    "SELECT id FROM kh_embedding WHERE model = $1 AND dimensions = $2 AND vector IS NOT NULL"
    " ORDER BY id";

// document store
inline constexpr char kInsertDocument[] =
    "INSERT INTO kh_document (title, status, version, author_id, "
    "current_review_id,"
    " approved_version, approved_at, ingest_status, created_at, updated_at, format)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id";
inline constexpr char kInsertReview[] =
    "INSERT INTO kh_document_review (document_id, "
    "document_version, status, submitted_by,"
    " submitted_at, decided_by, decided_at, comment, required_approvals)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id";
// One reviewer's approval of review $1; a second one by the same reviewer violates the key.
inline constexpr char kInsertApproval[] =
    "INSERT INTO kh_review_approval (review_id, reviewer_id, comment, decided_at)"
    " VALUES ($1, $2, $3, $4)";
// Reviewer $2 assigned to review $1 by $3 at $4; a second time violates the key.
inline constexpr char kInsertAssignee[] =
    "INSERT INTO kh_review_assignee (review_id, reviewer_id, assigned_by, assigned_at)"
    " VALUES ($1, $2, $3, $4)";
inline constexpr char kDeleteAssignee[] =
    "DELETE FROM kh_review_assignee WHERE review_id = $1 AND reviewer_id = $2";
// Comments: CommentFromRow / ToComment read the selected columns by position.
inline constexpr char kInsertComment[] =
    "INSERT INTO kh_review_comment (review_id, document_version, author_id, body, line,"
    " parent_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";
inline constexpr char kSelectComment[] =
    "SELECT id, review_id, document_version, author_id, body, line, parent_id, created_at"
    " FROM kh_review_comment WHERE id = $1";
// The comments of review $1 after id $2 (the exclusive cursor), oldest first, at most $3.
inline constexpr char kListComments[] =
    "SELECT id, review_id, document_version, author_id, body, line, parent_id, created_at"
    " FROM kh_review_comment WHERE review_id = $1 AND id > $2 ORDER BY id LIMIT $3";
inline constexpr char kInsertVersion[] =
    "INSERT INTO kh_document_content (document_id, version, title, "
    "content, edited_by, created_at)"
    " VALUES ($1, $2, $3, $4, $5, $6)";
// The kept versions of document $1 below version $2 (the exclusive cursor), newest first, at most
// $3 of them.
inline constexpr char kListVersions[] =
    "SELECT c.version, c.title, c.edited_by, c.created_at, r.id, r.status"
    " FROM kh_document_content c"
    " LEFT JOIN kh_document_review r ON r.id = (SELECT max(id) FROM kh_document_review"
    "   WHERE document_id = c.document_id AND document_version = c.version)"
    " WHERE c.document_id = $1 AND c.version < $2 ORDER BY c.version DESC LIMIT $3";
// The document $1 with the content of its current version (NULL when it has none), in one
// statement: one snapshot on either backend. The document's columns are those of every document
// select, the content last.
inline constexpr char kSelectDocumentWithContent[] =
    "SELECT d.id, d.title, d.status, d.version, d.author_id, d.current_review_id,"
    " d.approved_version, d.approved_at, d.ingest_status, d.created_at, d.updated_at, d.format,"
    " c.content FROM kh_document d LEFT JOIN kh_document_content c"
    " ON c.document_id = d.id AND c.version = d.version WHERE d.id = $1";
inline constexpr char kSelectContent[] =
    "SELECT content FROM kh_document_content "
    "WHERE document_id = $1 AND version = $2";
inline constexpr char kSelectEditors[] =
    "SELECT editor FROM kh_document_editor"
    " WHERE document_id = $1 AND last_version > $2 ORDER BY editor";
// Who wrote each kept version of document $1 from version $2 to $3, newest version first: the
// editors of every version after the kept one before it, up to it (dropped drafts included; see
// migrations 0012), each once, in the order they first wrote.
inline constexpr char kListVersionEditors[] =
    "SELECT c.version, e.editor, min(e.version) AS first_written"
    " FROM kh_document_content c JOIN kh_version_editor e"
    " ON e.document_id = c.document_id AND e.version <= c.version"
    " AND e.version > COALESCE((SELECT max(p.version) FROM kh_document_content p"
    "   WHERE p.document_id = c.document_id AND p.version < c.version), 0)"
    " WHERE c.document_id = $1 AND c.version BETWEEN $2 AND $3"
    " GROUP BY c.version, e.editor ORDER BY c.version DESC, first_written, e.editor";
inline constexpr char kInsertVersionEditor[] =
    "INSERT INTO kh_version_editor (document_id, version, editor) VALUES ($1, $2, $3)";
inline constexpr char kSelectVersion[] =
    "SELECT document_id, version, title, content, edited_by, "
    "created_at FROM kh_document_content"
    " WHERE document_id = $1 AND version = $2";
inline constexpr char kSetIngestStatus[] =
    "UPDATE kh_document SET ingest_status = $2 WHERE id = $1";

// inbox store
inline constexpr char kListParked[] =
    "SELECT consumer, event_id, event_type, document_id, review_id, version, "
    "actor_id,"
    " occurred_at, reviewer_id, comment_id, attempts, last_error, updated_at FROM kh_consumer_inbox"
    " WHERE state = 'parked' ORDER BY updated_at, consumer, event_id LIMIT $1";
inline constexpr char kSelectInbox[] =
    "SELECT state, attempts FROM kh_consumer_inbox WHERE "
    "consumer = $1 AND event_id = $2";

// outbox store
inline constexpr char kBacklog[] =
    "SELECT count(*), min(occurred_at) FROM kh_outbox "
    "WHERE delivered_at IS NULL";
inline constexpr char kFindStuckIngestions[] =
    "SELECT o.id, o.event_id, o.event_type, o.document_id, o.review_id, "
    "o.version, o.actor_id,"
    " o.occurred_at, o.reviewer_id, o.comment_id FROM kh_document d"
    " JOIN kh_outbox o ON o.id = (SELECT max(n.id) FROM kh_outbox n"
    "   WHERE n.event_type = 'document.approved' AND n.document_id = d.id"
    "     AND n.version = d.approved_version)"
    " WHERE d.approved_version IS NOT NULL AND d.ingest_status IN ('none', "
    "'pending')"
    "   AND o.delivered_at IS NOT NULL AND o.delivered_at < $1"
    "   AND NOT EXISTS (SELECT 1 FROM kh_document_chunk c"
    "     WHERE c.document_id = d.id AND c.version = d.approved_version)"
    " ORDER BY o.delivered_at, o.id LIMIT $2";
inline constexpr char kPruneDelivered[] =
    "DELETE FROM kh_outbox WHERE id IN (SELECT o.id FROM kh_outbox o"
    " WHERE o.delivered_at IS NOT NULL AND o.delivered_at < $1"
    "   AND NOT EXISTS (SELECT 1 FROM kh_document d WHERE o.event_type = "
    "'document.approved'"
    "                   AND d.id = o.document_id AND d.approved_version = "
    "o.version"
    "                   AND d.ingest_status <> 'done')"
    " ORDER BY o.delivered_at LIMIT $2)";
inline constexpr char kReleaseClaims[] =
    "UPDATE kh_outbox SET claimed_by = NULL, claimed_until = NULL"
    " WHERE claimed_by = $1 AND delivered_at IS NULL";

// chunk index
inline constexpr char kListChunks[] =
    "SELECT content FROM kh_document_chunk WHERE "
    "document_id = $1 ORDER BY ordinal";

// migrations
inline constexpr char kSelectApplied[] =
    "SELECT version, name FROM schema_migrations ORDER BY version";

// preview store
inline constexpr char kSelectPreview[] =
    "SELECT document_id, version, content, approved_at FROM kh_document_preview"
    " WHERE document_id = $1";

// user directory
// A sighting of user $1 named $2 (NULL: no name) at $3: a new user is added, a known one takes it
// unless it was seen later already, so that the latest sighting wins in any order of arrival.
inline constexpr char kUpsertUser[] =
    "INSERT INTO kh_user (id, name, seen_at) VALUES ($1, $2, $3)"
    " ON CONFLICT (id) DO UPDATE SET name = excluded.name, seen_at = excluded.seen_at"
    " WHERE excluded.seen_at >= kh_user.seen_at";
inline constexpr char kSelectUser[] = "SELECT id, name, seen_at FROM kh_user WHERE id = $1";

// session store
// Roles ($4) are space-separated; times ($7, $8 and the `now` of $2) are epoch millis. A session
// is gone once expires_at <= now.
inline constexpr char kInsertSession[] =
    "INSERT INTO kh_session (id_hash, user_id, user_name, roles, csrf_token, id_token, created_at,"
    " expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
inline constexpr char kSelectSession[] =
    "SELECT id_hash, user_id, user_name, roles, csrf_token, id_token, created_at, expires_at"
    " FROM kh_session WHERE id_hash = $1 AND expires_at > $2";
inline constexpr char kDeleteSession[] = "DELETE FROM kh_session WHERE id_hash = $1";
inline constexpr char kDeleteExpiredSessions[] = "DELETE FROM kh_session WHERE expires_at <= $1";

// webhook store (ADR 0017). A webhook's `events` are space-separated routing keys or "*".
inline constexpr char kInsertWebhook[] =
    "INSERT INTO kh_webhook (url, events, format, sealed_secret, description, created_by,"
    " created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";
inline constexpr char kSelectWebhooks[] =
    "SELECT id, url, events, format, sealed_secret, description, created_by, created_at"
    " FROM kh_webhook WHERE deleted_at IS NULL ORDER BY id";
inline constexpr char kSelectWebhook[] =
    "SELECT id, url, events, format, sealed_secret, description, created_by, created_at"
    " FROM kh_webhook WHERE id = $1 AND deleted_at IS NULL";
inline constexpr char kDeleteWebhook[] =
    "UPDATE kh_webhook SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL";
// A delivery of event $1 (type $2, body $3) for each live webhook taking its type, due at $4.
inline constexpr char kEnqueueWebhookDeliveries[] =
    "INSERT INTO kh_webhook_delivery (webhook_id, event_id, event_type, payload, status,"
    " next_attempt_at, created_at)"
    " SELECT id, CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS TEXT), 'pending',"
    " CAST($4 AS BIGINT), CAST($4 AS BIGINT) FROM kh_webhook"
    " WHERE deleted_at IS NULL"
    " AND (events = '*' OR (' ' || events || ' ') LIKE ('% ' || CAST($2 AS TEXT) || ' %'))"
    " ON CONFLICT (webhook_id, event_id) DO NOTHING";
inline constexpr char kSelectWebhookDeliveries[] =
    "SELECT id, webhook_id, event_id, event_type, payload, status, attempts, last_status,"
    " last_error, next_attempt_at, delivered_at, created_at FROM kh_webhook_delivery"
    " WHERE webhook_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3";
inline constexpr char kSelectWebhookDelivery[] =
    "SELECT id, webhook_id, event_id, event_type, payload, status, attempts, last_status,"
    " last_error, next_attempt_at, delivered_at, created_at FROM kh_webhook_delivery"
    " WHERE webhook_id = $1 AND id = $2";
inline constexpr char kRedeliverWebhookDelivery[] =
    "UPDATE kh_webhook_delivery SET status = 'pending', next_attempt_at = $3, claimed_by = NULL,"
    " claimed_until = NULL WHERE webhook_id = $1 AND id = $2"
    " AND EXISTS (SELECT 1 FROM kh_webhook WHERE id = $1 AND deleted_at IS NULL)";

}  // namespace docgate::sql
