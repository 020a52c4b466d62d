-- Smaller message rows (issue 11: stored bytes per agent step). A message is stored as compact JSON text: jsonb
-- spends 8 bytes of offsets per member, so a tool call's assistant message and its result took ~60 bytes more.
-- Rows stored before keep their jsonb rendering as text; readers parse either.
ALTER TABLE __agents_messages ALTER COLUMN message TYPE text USING message::text;
