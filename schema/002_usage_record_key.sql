-- Idempotent usage recording: each record carries the key of the step that produced it.
ALTER TABLE __agents_usage ADD COLUMN record_key text;
ALTER TABLE __agents_usage ADD COLUMN step integer;
CREATE UNIQUE INDEX __agents_usage_record_key_idx ON __agents_usage (session_id, record_key);
CREATE INDEX __agents_usage_run_idx ON __agents_usage (session_id, run_id);
