-- A checkpoint keeps its step's patches (issue 11: stored bytes per agent step with a growing state). A snapshot
-- row may now hold the RFC 6902 patches its step applied as well (informational: its state is `custom_state`);
-- a delta row's patches are those patches already. The step's `state_patch` stream chunk then refers to the
-- checkpoint (`patchesIn`) instead of carrying a second copy of them; the stream manager's reader puts them back.
ALTER TABLE __agents_checkpoints DROP CONSTRAINT __agents_checkpoints_snapshot_or_delta;
ALTER TABLE __agents_checkpoints ADD CONSTRAINT __agents_checkpoints_snapshot_or_delta CHECK (
  (custom_state IS NOT NULL AND base_checkpoint_id IS NULL)
  OR (custom_state IS NULL AND patches IS NOT NULL AND base_checkpoint_id IS NOT NULL)
);
