-- Retry-safe interrupt check-and-clear: the checker that consumed the flag leaves its token (and the
-- reason), so a check retried after its connection dropped mid-COMMIT still reports the interrupt.
ALTER TABLE __agents_sessions ADD COLUMN interrupt_consumed_by text;
ALTER TABLE __agents_sessions ADD COLUMN interrupt_consumed_reason text;
