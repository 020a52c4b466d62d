-- Fleet-wide model limits (issue 22): one row per permitted LLM call of a model key, shared by every process.
-- Concurrency counts the permits not yet released (or expired: a crashed holder's permit lapses); requests and
-- tokens count the permits granted within the sliding period. Rows past every period are pruned on the next grant.
CREATE TABLE __agents_model_calls (
  model_key text NOT NULL,
  holder text NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at timestamptz NOT NULL,
  released_at timestamptz,
  tokens integer NOT NULL DEFAULT 0,
  PRIMARY KEY (model_key, holder)
);
CREATE INDEX __agents_model_calls_granted_idx ON __agents_model_calls (model_key, granted_at);
