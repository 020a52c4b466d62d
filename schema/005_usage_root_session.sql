-- Usage of a whole session tree: each record names the root of its session's tree (sub-agents).
ALTER TABLE __agents_usage ADD COLUMN root_session_id text;
CREATE INDEX __agents_usage_root_idx ON __agents_usage (root_session_id);
