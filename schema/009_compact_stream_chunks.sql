-- Smaller stream chunks (issue 11: stored bytes per agent step). A chunk's writer-side identity is kept as the
-- md5 of its key (16 bytes instead of ~60 in the row and in the unique index); the (stream_id, step) index goes
-- (cleanup scans the stream's chunks after a sequence through the primary key); the chunk's `sequence` is no
-- longer copied into its JSON (reads take it from the column).
DROP INDEX IF EXISTS __agents_stream_chunks_step_idx;
ALTER TABLE __agents_stream_chunks ADD COLUMN key_hash uuid;
UPDATE __agents_stream_chunks SET key_hash = md5(chunk_key)::uuid WHERE chunk_key IS NOT NULL;
DROP INDEX IF EXISTS __agents_stream_chunks_key_idx;
ALTER TABLE __agents_stream_chunks DROP COLUMN chunk_key;
CREATE UNIQUE INDEX __agents_stream_chunks_key_idx ON __agents_stream_chunks (stream_id, key_hash);
