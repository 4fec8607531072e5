-- Inbox retention (issue 12): the janitor deletes 'done' rows older than the retention, oldest
-- first, in batches; this index finds them without reading the whole inbox. The twin of
-- migrations/sqlite/0006_inbox_retention.sql.
CREATE INDEX kh_consumer_inbox_done ON kh_consumer_inbox (updated_at) WHERE state = 'done';
