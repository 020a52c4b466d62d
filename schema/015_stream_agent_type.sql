-- Smaller stream chunks (issue 11: stored bytes per agent step). A stream records the agent type its chunks mostly
-- carry (its own agent's: set by the first createWriter of the agent whose id is the stream id, or else by the first
-- append), and a chunk of that type is stored without `agentType`; readers put it back from this column. Set once
-- and never changed, so a chunk stored without it always reads back its own type. Rows stored before keep theirs.
ALTER TABLE __agents_streams ADD COLUMN agent_type text;
