-- Smaller message-id uniqueness (issue 11: stored bytes per agent step). A run's message ids (`${runId}:${step}:${i}`)
-- do not arrive in sort order (`:10:` sorts before `:2:`), so the (session_id, message_id) B-tree split its pages
-- half full: ~290 bytes a step. The same uniqueness as a hash exclusion constraint on one text key keeps a 4-byte
-- hash code per message instead (lookups join on the same expression, then compare both columns).
ALTER TABLE __agents_messages DROP CONSTRAINT __agents_messages_id_unique;
ALTER TABLE __agents_messages ADD CONSTRAINT __agents_messages_id_unique
  EXCLUDE USING hash ((session_id || chr(31) || message_id) WITH =);
