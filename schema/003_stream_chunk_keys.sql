-- Idempotent stream appends: each chunk carries its writer-side identity; an append skips keys the stream
-- already holds, so a batch re-sent after a dropped connection is stored once. Older rows have no key.
ALTER TABLE __agents_stream_chunks ADD COLUMN chunk_key text;
CREATE UNIQUE INDEX __agents_stream_chunks_key_idx ON __agents_stream_chunks (stream_id, chunk_key);
