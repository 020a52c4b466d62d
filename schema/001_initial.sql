-- helix-agents-dbos: initial schema.
--
-- Applied by runMigrations() inside one transaction with `search_path` set to the store's schema, so every
-- name here is unqualified. Append-only: never edit this file once released; add 002_<name>.sql instead.
--
-- Conventions: timestamps are epoch milliseconds in `bigint` columns (node-postgres returns bigint as a
-- string: convert with Number()); JSON payloads are `jsonb`; every per-session table cascades on session
-- delete.

CREATE TABLE __agents_sessions (
  session_id          text    PRIMARY KEY,
  agent_type          text    NOT NULL,
  stream_id           text,
  status              text    NOT NULL
    CHECK (status IN ('active', 'completed', 'failed', 'interrupted', 'paused')),
  -- DBOS execution mode; written once (the store never overwrites a non-null mode).
  mode                text    CHECK (mode IN ('standard', 'persistent')),
  -- Bumped by every write to the session's state (not by message, run, staging or interrupt-flag writes).
  version             integer NOT NULL DEFAULT 1,
  step_count          integer NOT NULL DEFAULT 0,
  resume_count        integer NOT NULL DEFAULT 0,
  -- Number of rows in __agents_messages for this session; the next message gets sequence message_count + 1.
  message_count       integer NOT NULL DEFAULT 0,
  custom_state        jsonb   NOT NULL DEFAULT '{}'::jsonb,
  -- Every other SessionState field without a column (output, interruptContext, pending client tool calls, …).
  state               jsonb   NOT NULL DEFAULT '{}'::jsonb,
  error               text,
  failure_reason      text,
  -- Pointer to the most recently written checkpoint (getLatestCheckpoint resolves it first).
  checkpoint_id       text,
  interrupt_requested boolean NOT NULL DEFAULT false,
  interrupt_reason    text,
  parent_session_id   text,
  root_session_id     text,
  user_id             text,
  metadata            jsonb,
  expires_at          bigint,
  created_at          bigint  NOT NULL,
  updated_at          bigint  NOT NULL
);
CREATE INDEX __agents_sessions_parent_idx ON __agents_sessions (parent_session_id) WHERE parent_session_id IS NOT NULL;
CREATE INDEX __agents_sessions_root_idx ON __agents_sessions (root_session_id) WHERE root_session_id IS NOT NULL;
CREATE INDEX __agents_sessions_user_idx ON __agents_sessions (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX __agents_sessions_expires_idx ON __agents_sessions (expires_at) WHERE expires_at IS NOT NULL;

-- Messages are written once and never rewritten (only truncated). Sequences are 1-based and contiguous.
CREATE TABLE __agents_messages (
  session_id text    NOT NULL REFERENCES __agents_sessions (session_id) ON DELETE CASCADE,
  sequence   integer NOT NULL,
  message_id text    NOT NULL,
  -- The message without `id` (stored in message_id).
  message    jsonb   NOT NULL,
  created_at bigint  NOT NULL,
  PRIMARY KEY (session_id, sequence),
  CONSTRAINT __agents_messages_id_unique UNIQUE (session_id, message_id)
);

CREATE TABLE __agents_runs (
  session_id        text    NOT NULL REFERENCES __agents_sessions (session_id) ON DELETE CASCADE,
  run_id            text    NOT NULL,
  turn              integer NOT NULL,
  status            text    NOT NULL,
  step_count        integer NOT NULL DEFAULT 0,
  start_sequence    bigint  NOT NULL DEFAULT 0,
  previous_run_id   text,
  workflow_id       text,
  completion_reason text,
  error             text,
  metadata          jsonb,
  started_at        bigint  NOT NULL,
  ended_at          bigint,
  PRIMARY KEY (session_id, run_id),
  CONSTRAINT __agents_runs_turn_unique UNIQUE (session_id, turn)
);

CREATE TABLE __agents_checkpoints (
  session_id    text    NOT NULL REFERENCES __agents_sessions (session_id) ON DELETE CASCADE,
  checkpoint_id text    NOT NULL,
  -- Write order (listCheckpoints order; getLatestCheckpoint's fallback when the session pointer dangles).
  position      bigint  GENERATED ALWAYS AS IDENTITY,
  run_id        text    NOT NULL,
  step_count    integer NOT NULL,
  message_count integer NOT NULL,
  custom_state  jsonb   NOT NULL,
  created_at    bigint  NOT NULL,
  PRIMARY KEY (session_id, checkpoint_id)
);
CREATE INDEX __agents_checkpoints_position_idx ON __agents_checkpoints (session_id, position);

CREATE TABLE __agents_sub_session_refs (
  session_id           text   NOT NULL REFERENCES __agents_sessions (session_id) ON DELETE CASCADE,
  sub_session_id       text   NOT NULL,
  position             bigint GENERATED ALWAYS AS IDENTITY,
  agent_type           text   NOT NULL,
  parent_tool_call_id  text   NOT NULL,
  mode                 text   NOT NULL CHECK (mode IN ('ephemeral', 'persistent')),
  name                 text,
  status               text   NOT NULL,
  -- NULL reads as "not delivered".
  completion_delivered boolean,
  output               jsonb,
  error                text,
  created_at           bigint NOT NULL,
  updated_at           bigint,
  PRIMARY KEY (session_id, sub_session_id)
);

-- One tool's staged state writes for a step; upserted by (session_id, step_id, staging_key).
CREATE TABLE __agents_staging (
  session_id  text   NOT NULL REFERENCES __agents_sessions (session_id) ON DELETE CASCADE,
  step_id     text   NOT NULL,
  staging_key text   NOT NULL,
  position    bigint GENERATED ALWAYS AS IDENTITY,
  patches     jsonb  NOT NULL,
  created_at  bigint NOT NULL,
  CONSTRAINT __agents_staging_key_unique UNIQUE (session_id, step_id, staging_key)
);

-- Token and duration accounting (written by the usage store). No foreign key: usage may outlive a session.
CREATE TABLE __agents_usage (
  id            bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id    text    NOT NULL,
  run_id        text,
  kind          text    NOT NULL,
  name          text,
  input_tokens  integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  total_tokens  integer NOT NULL DEFAULT 0,
  duration_ms   integer,
  success       boolean NOT NULL DEFAULT true,
  created_at    bigint  NOT NULL
);
CREATE INDEX __agents_usage_session_idx ON __agents_usage (session_id, created_at);

-- Postgres stream manager.
CREATE TABLE __agents_streams (
  stream_id     text   PRIMARY KEY,
  status        text   NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended', 'failed')),
  last_sequence bigint NOT NULL DEFAULT 0,
  output        jsonb,
  error         text,
  created_at    bigint NOT NULL,
  updated_at    bigint NOT NULL
);

CREATE TABLE __agents_stream_chunks (
  stream_id text    NOT NULL,
  sequence  bigint  NOT NULL,
  step      integer NOT NULL,
  chunk     jsonb   NOT NULL,
  PRIMARY KEY (stream_id, sequence)
);
CREATE INDEX __agents_stream_chunks_step_idx ON __agents_stream_chunks (stream_id, step);
