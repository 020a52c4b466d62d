-- Smaller stream chunks (issue 11: stored bytes per agent step). A chunk is stored as compact JSON text without
-- what its row already says (`step`, and `agentId` when it is the stream's own id; readers put them back): jsonb
-- spends 8 bytes of offsets per member and stores numbers as numeric, so these small objects were ~40% larger.
-- Rows stored before keep every field (their jsonb rendering as text). The chunk-key uniqueness becomes a hash
-- exclusion constraint on one text key: random md5 keys kept the (stream_id, key_hash) B-tree half full; appends
-- look keys up through the same expression.
ALTER TABLE __agents_stream_chunks ALTER COLUMN chunk TYPE text USING chunk::text;
DROP INDEX IF EXISTS __agents_stream_chunks_key_idx;
ALTER TABLE __agents_stream_chunks ADD CONSTRAINT __agents_stream_chunks_key_unique
  EXCLUDE USING hash ((stream_id || chr(31) || key_hash::text) WITH =);
