-- Review quorums (API.md v1.2 "Review policy"): a review is approved once required_approvals
-- distinct reviewers have approved it. kh_review_approval holds one row per reviewer's approval
-- (app/ports/store_transaction.h, AddApproval): comment is NULL when the reviewer wrote none;
-- decided_at is epoch millis (the application's clock); a reviewer approves a review once (the
-- primary key). The twin of migrations/sqlite/0015_review_approvals.sql.
ALTER TABLE kh_document_review ADD COLUMN required_approvals INTEGER NOT NULL DEFAULT 1
  CHECK (required_approvals BETWEEN 1 AND 10);

CREATE TABLE kh_review_approval (
  review_id   BIGINT NOT NULL REFERENCES kh_document_review (id),
  reviewer_id TEXT   NOT NULL,
  comment     TEXT   NULL,
  decided_at  BIGINT NOT NULL,
  PRIMARY KEY (review_id, reviewer_id)
);

-- The reviews approved before quorums existed needed one approval and read as having had it: their
-- decision. A decision without a decider or a time (never written by docgate) records none.
INSERT INTO kh_review_approval (review_id, reviewer_id, comment, decided_at)
SELECT id, decided_by, comment, decided_at FROM kh_document_review
 WHERE status = 'approved' AND decided_by IS NOT NULL AND decided_at IS NOT NULL;
