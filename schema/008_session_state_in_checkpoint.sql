-- Session state in the checkpoint chain (issue 11): a step commit no longer rewrites the session's whole
-- customState. A NULL custom_state means "the state of the checkpoint this session points at"
-- (checkpoint_id); readers rebuild it from that checkpoint's chain (snapshot + deltas, bounded by the
-- snapshot policy). A non-NULL value (every row written before this migration, and the writes that set
-- customState or move the pointer outside a step commit) is the state itself, as before.
ALTER TABLE __agents_sessions ALTER COLUMN custom_state DROP NOT NULL;
ALTER TABLE __agents_sessions ADD CONSTRAINT __agents_sessions_state_source CHECK (custom_state IS NOT NULL OR checkpoint_id IS NOT NULL);
-- Fewer bytes per checkpoint row: a snapshot is compared with the session state directly (jsonb equality),
-- so new snapshots get no state_hash (older ones keep theirs, unused); and the (session_id, position) index
-- goes: listCheckpoints reads all of a session's rows anyway (through the primary key) and
-- getLatestCheckpoint looks the pointer up by primary key, ordering by position only when it dangles.
DROP INDEX __agents_checkpoints_position_idx;
