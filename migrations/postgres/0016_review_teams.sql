-- Reviews as teams run them (API.md v1.2 "Review policy", "Comments", "Events"): assigned reviewers,
-- comments on a review, and the events review.assigned, review.voted and review.commented. The twin
-- of migrations/sqlite/0016_review_teams.sql.

-- One row per reviewer assigned to a review (StoreTransaction::AddAssignee): who assigned them and
-- when (epoch millis), which orders a review's assignees. The second index finds a reviewer's
-- queue (`assignee=me`).
CREATE TABLE kh_review_assignee (
  review_id   BIGINT NOT NULL REFERENCES kh_document_review (id),
  reviewer_id TEXT   NOT NULL,
  assigned_by TEXT   NOT NULL,
  assigned_at BIGINT NOT NULL,
  PRIMARY KEY (review_id, reviewer_id)
);

CREATE INDEX kh_review_assignee_by_reviewer ON kh_review_assignee (reviewer_id, review_id);

-- A comment on a review: on the reviewed version's `line` (1-based) or on the whole (NULL), and a
-- reply to `parent_id` (a comment of the same review; the store checks it) or not. id orders them.
CREATE TABLE kh_review_comment (
  id               BIGSERIAL PRIMARY KEY,
  review_id        BIGINT  NOT NULL REFERENCES kh_document_review (id),
  document_version INTEGER NOT NULL,
  author_id        TEXT    NOT NULL,
  body             TEXT    NOT NULL,
  line             INTEGER CHECK (line >= 1),
  parent_id        BIGINT  REFERENCES kh_review_comment (id),
  created_at       BIGINT  NOT NULL
);

CREATE INDEX kh_review_comment_by_review ON kh_review_comment (review_id, id);

-- The outbox and the inbox take the new event types and their extra fields: reviewer_id (the
-- assignee of review.assigned, the voter of review.voted) and comment_id (review.commented).
ALTER TABLE kh_outbox
  DROP CONSTRAINT kh_outbox_event_type_check,
  ADD CONSTRAINT kh_outbox_event_type_check
    CHECK (event_type IN ('document.submitted', 'document.approved', 'document.rejected',
                          'document.withdrawn', 'review.assigned', 'review.voted',
                          'review.commented')),
  ADD COLUMN reviewer_id TEXT,
  ADD COLUMN comment_id BIGINT;

ALTER TABLE kh_consumer_inbox
  DROP CONSTRAINT kh_consumer_inbox_event_type_check,
  ADD CONSTRAINT kh_consumer_inbox_event_type_check
    CHECK (event_type IN ('document.submitted', 'document.approved', 'document.rejected',
                          'document.withdrawn', 'review.assigned', 'review.voted',
                          'review.commented')),
  ADD COLUMN reviewer_id TEXT,
  ADD COLUMN comment_id BIGINT;

-- The review `wanted` locked (FOR UPDATE) and then read with its approvals and assignees, in one
-- round trip (PgDocumentStore's LockReview; docgate's approval path reads its review here). Two
-- statements on purpose: under READ COMMITTED each statement of a function takes a new snapshot,
-- so the read after the lock sees every approval committed by the transaction the lock waited
-- for; one statement would read them from the snapshot taken before it waited. The approvals and
-- assignees are JSON arrays (NULL: none), in the order the stores read them.
CREATE FUNCTION kh_lock_review(wanted BIGINT)
RETURNS TABLE (id BIGINT, document_id BIGINT, document_version INTEGER, status TEXT,
               submitted_by TEXT, submitted_at BIGINT, decided_by TEXT, decided_at BIGINT,
               comment TEXT, required_approvals INTEGER, approvals JSON, assignees JSON)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
  PERFORM 1 FROM kh_document_review r WHERE r.id = wanted FOR UPDATE;
  RETURN QUERY
  SELECT r.id, r.document_id, r.document_version, r.status, r.submitted_by, r.submitted_at,
         r.decided_by, r.decided_at, r.comment, r.required_approvals,
         (SELECT json_agg(json_build_array(a.reviewer_id, a.comment, a.decided_at)
                          ORDER BY a.decided_at, a.reviewer_id COLLATE "C")
            FROM kh_review_approval a WHERE a.review_id = r.id),
         (SELECT json_agg(s.reviewer_id ORDER BY s.assigned_at, s.reviewer_id COLLATE "C")
            FROM kh_review_assignee s WHERE s.review_id = r.id)
    FROM kh_document_review r WHERE r.id = wanted;
END
$$;
