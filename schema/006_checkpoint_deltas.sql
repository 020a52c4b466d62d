-- Checkpoints as deltas (issue 11): a checkpoint row holds either a full snapshot of customState
-- (custom_state, as every row before this migration does) or the RFC 6902 patches its step applied to the
-- state of its base checkpoint (patches + base_checkpoint_id, same session). Reads walk back from a row to
-- its nearest snapshot and apply the patches forward.
--   chain_bytes: bytes of the deltas (plus a fixed per-row allowance) since the nearest snapshot, this row
--                included; 0 for a snapshot. The store writes a snapshot once it would reach the state's size.
--   state_hash:  md5 of the session's custom_state text as this checkpoint captured it, so the next step
--                can tell whether the session state still equals this checkpoint's (a delta base must).
--                NULL on rows written before this migration: they are never used as a delta base.
ALTER TABLE __agents_checkpoints ALTER COLUMN custom_state DROP NOT NULL;
ALTER TABLE __agents_checkpoints ADD COLUMN patches jsonb;
ALTER TABLE __agents_checkpoints ADD COLUMN base_checkpoint_id text;
ALTER TABLE __agents_checkpoints ADD COLUMN chain_bytes bigint NOT NULL DEFAULT 0;
ALTER TABLE __agents_checkpoints ADD COLUMN state_hash text;
ALTER TABLE __agents_checkpoints ADD CONSTRAINT __agents_checkpoints_snapshot_or_delta CHECK (
  (custom_state IS NOT NULL AND patches IS NULL AND base_checkpoint_id IS NULL)
  OR (custom_state IS NULL AND patches IS NOT NULL AND base_checkpoint_id IS NOT NULL)
);
-- A delta never loses its base (both go only with their session, in one cascading statement).
ALTER TABLE __agents_checkpoints ADD CONSTRAINT __agents_checkpoints_base_fk
  FOREIGN KEY (session_id, base_checkpoint_id) REFERENCES __agents_checkpoints (session_id, checkpoint_id);
