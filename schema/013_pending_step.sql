-- The LLM step's record (issue 11: stored bytes per agent step). An LLM step whose agent step will be committed by its
-- sole tool call keeps its decision result here, overwritten by the next step's, instead of in a DBOS
-- operation_outputs row (~0.5 KiB a step with its indexes); a committed step's is read back from its assistant message.
ALTER TABLE __agents_sessions ADD COLUMN pending_step text;
