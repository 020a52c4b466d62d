-- Smaller checkpoint rows (issue 21: disk per agent step). A step's checkpoint id is `${runId}:${stepCount}`, so its
-- run_id repeats the id's first part (27 bytes a row, ~40 with alignment). Such a row now stores run_id NULL and
-- readers take the run id from the checkpoint id; a checkpoint whose id does not have that form keeps its run_id.
ALTER TABLE __agents_checkpoints ALTER COLUMN run_id DROP NOT NULL;
