-- Remote sub-agents (createRemoteSubAgentTool): a ref to a session on another agent server keeps that
-- session's stream id and the last of its chunk sequences proxied into the parent's stream, so a parent
-- recovered after a crash re-attaches from there. Both NULL for in-process sub-agents.
ALTER TABLE __agents_sub_session_refs ADD COLUMN remote_stream_id text;
ALTER TABLE __agents_sub_session_refs ADD COLUMN remote_last_sequence bigint;
ALTER TABLE __agents_sub_session_refs ADD CONSTRAINT __agents_sub_session_refs_remote_pair CHECK (
  (remote_stream_id IS NULL) = (remote_last_sequence IS NULL)
);
