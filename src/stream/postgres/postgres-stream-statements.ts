import { createHash } from 'node:crypto';
import { escapeIdentifier } from 'pg';
import { FOLDED_PATCH_PREFIX, FOLDED_START_PREFIX, PATCHES_REFERENCE_PREFIX } from './stored-chunk.js';

/**
 * The NOTIFY payload for a stream: the hex MD5 of its id (32 bytes whatever the id's length, so ids of up to
 * 1,024 bytes — or any length — stay far below Postgres's 8,000-byte payload limit). Equal to SQL `md5($1)`.
 *
 * @example
 * listener.subscribe(streamNotificationKey(streamId), wake);
 */
export function streamNotificationKey(streamId: string): string {
  return createHash('md5').update(streamId, 'utf8').digest('hex');
}

/**
 * The NOTIFY payload that a stream ended or failed ({@link streamNotificationKey} and `.end`), sent beside the stream's
 * own notification by the statement that ends it. Equal to SQL `md5($1) || '.end'`.
 *
 * @example
 * listener.subscribe(streamEndNotificationKey(streamId), lookForTheRunsEnd);
 */
export function streamEndNotificationKey(streamId: string): string {
  return `${streamNotificationKey(streamId)}.end`;
}

/**
 * The SQL the Postgres stream manager runs, with table names qualified by one schema.
 *
 * @example
 * const { read }: PostgresStreamStatements = postgresStreamStatements('public');
 */
export interface PostgresStreamStatements {
  /** The NOTIFY channel writers signal (payload: `md5(stream id)`, see {@link streamNotificationKey}). */
  channel: string;
  /** `LISTEN` statement for {@link PostgresStreamStatements.channel}. */
  listen: string;
  /**
   * $1 stream id, $2 its own agent's type or null → one row `{ status }` (creating the stream as active when missing,
   * recording $2: chunks of that type are stored without it, migration 015).
   */
  open: string;
  /**
   * $1 stream id, $2 text[] of stored rows (`storedRows`), $3 channel, $4 text[] of keys, $5 int[] of steps, $6 int[]
   * of widths (sequences per row; same order), $7 the writer's agent type, $9 text[] of a pair row's tool_start key and
   * $10 text[] of its tool_end alone (null otherwise; stored alone when that key is), $8 bool[]: the row's text left it out →
   * `{ base, stored, width, stream_agent_type }` (`AppendAnswer`: sequences reserved, the stream's agent type after it);
   * no row when not active. Rows whose key is stored already (or repeated in the batch) are
   * skipped; a row's sequence is the last of its width. A stream without an agent type takes $7; a row that left out
   * an agent type other than the stream's gets it back (last member).
   */
  append: string;
  /**
   * `append` whose own (implicit) transaction commits without waiting for its WAL flush (`synchronous_commit` off for
   * it alone): readers see the rows at once, and a Postgres crash within a fraction of a second may lose them. Only for
   * chunks their writer appends again with its next synchronous append (`BufferedStreamWriter.flushLazily`).
   */
  appendLazily: string;
  /** `append` that fails (SQLSTATE 22012) when the stream is not active: for a transaction that may commit unread. */
  appendOrFail: string;
  /**
   * $1 stream id, $2 after sequence, $3 limit → rows `{ status, agent_type, sequence, step, chunk, patches }` (one row,
   * chunk null, when none); `patches` is the referenced checkpoint's patches (text) for a row holding a reference or a folded
   * `state_patch` (see `chunksFromStored`), else null.
   */
  read: string;
  /** $1 stream id, $2 status, $3 output jsonb, $4 error, $5 channel → one row when the status changed. */
  finish: string;
  /** $1 stream id, $2 channel → one row when the stream exists. */
  reactivate: string;
  /** `reactivate` that fails (SQLSTATE 22012) when the stream does not exist: for a transaction that may commit unread. */
  reactivateOrFail: string;
  /** $1 stream id → the stream row plus `chunk_count` (a row with a folded chunk counts 2) and `has_output`. */
  info: string;
  /** $1 stream id, $2 step, $3 after-sequence, $4 agent id or null → deletes later-step chunks (of $4) written after $3. */
  cleanup: string;
  /** $1 stream id → deletes every chunk of the stream unless it is active; one row `{ count }` of chunks deleted. */
  prune: string;
}

/** Postgres rejects a NOTIFY channel of 64 bytes or more (NAMEDATALEN), whatever the character count. */
const MAX_CHANNEL_BYTES = 63;

/** The longest prefix of `text` (whole characters) that fits in `maxBytes` bytes of UTF-8. */
function clipToBytes(text: string, maxBytes: number): string {
  let clipped = '';
  for (const character of text) {
    if (Buffer.byteLength(clipped + character) > maxBytes) break;
    clipped += character;
  }
  return clipped;
}

/** The database clock in epoch milliseconds (the schema stores timestamps as bigint ms). */
const NOW_MILLISECONDS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * Build the stream statements for `schema` (tables `__agents_streams` and `__agents_stream_chunks`).
 * Each statement is one round trip; `append` reserves the sequence range, inserts the rows and notifies
 * atomically, and the row lock it takes orders concurrent writers, so readers never see a later range
 * before an earlier one commits.
 *
 * @example
 * const sql = postgresStreamStatements('public');
 * await pool.query(sql.append, [streamId, texts, sql.channel, keys, steps]);
 */
export function postgresStreamStatements(schema: string): PostgresStreamStatements {
  const streams = `${escapeIdentifier(schema)}.__agents_streams`;
  const chunks = `${escapeIdentifier(schema)}.__agents_stream_chunks`;
  // A stored state_patch chunk may refer to its checkpoint's patches (migration 014), alone or folded into the next
  // chunk's row (`storedRows`): the reader puts them back.
  const checkpoints = `${escapeIdentifier(schema)}.__agents_checkpoints`;
  const channel = clipToBytes(`helix_streams.${schema}`, MAX_CHANNEL_BYTES);
  const NOW = NOW_MILLISECONDS;
  // Chunks in a set of rows: a row holding a folded state_patch or tool_start holds two.
  const CHUNKS_IN_ROWS = `count(*) + count(*) FILTER (WHERE starts_with(chunk, '${FOLDED_PATCH_PREFIX}') OR starts_with(chunk, '${FOLDED_START_PREFIX}'))`;
  // A stored key is found through the hash index of its uniqueness (migration 011: the same expression).
  const stored = (key: string): string => `EXISTS (
          SELECT 1 FROM ${chunks} c
          WHERE (c.stream_id || chr(31) || c.key_hash::text) = ($1 || chr(31) || ${key}::text) AND c.stream_id = $1 AND c.key_hash = ${key}
        )`;
  // What an append answers (`AppendAnswer`): what it reserved and stored, and the stream's agent type after it.
  const ANSWER = 'reserved.base, (SELECT count(*) FROM inserted) AS stored, reserved.width, reserved.agent_type AS stream_agent_type';
  // A tool call's pair row whose tool_start an earlier attempt stored already holds its tool_end alone.
  const appendCtes = `WITH items AS (
        SELECT item.chunk, item.step, md5(item.key)::uuid AS key, item.width, item.elided, item.position, item.alone,
               md5(item.start_key)::uuid AS start_key,
               row_number() OVER (PARTITION BY item.key ORDER BY item.position) AS copy
        FROM unnest($2::text[], $4::text[], $5::int[], $6::int[], $8::bool[], $9::text[], $10::text[])
          WITH ORDINALITY AS item(chunk, key, step, width, elided, start_key, alone, position)
      ), batch AS (
        SELECT key, step, elided, position, copy,
               CASE WHEN started THEN alone ELSE chunk END AS chunk, CASE WHEN started THEN 1 ELSE width END AS width
        FROM (SELECT items.*, start_key IS NOT NULL AND ${stored('items.start_key')} AS started FROM items) AS checked
      ), fresh AS (
        SELECT chunk, step, key, width, elided, sum(width) OVER (ORDER BY position) AS rank
        FROM batch
        WHERE copy = 1 AND NOT ${stored('batch.key')}
      ), reserved AS (
        INSERT INTO ${streams} AS s (stream_id, status, last_sequence, agent_type, created_at, updated_at)
        VALUES ($1, 'active', (SELECT coalesce(sum(width), 0) FROM fresh), $7::text, ${NOW}, ${NOW})
        ON CONFLICT (stream_id) DO UPDATE
          SET last_sequence = s.last_sequence + EXCLUDED.last_sequence, updated_at = ${NOW},
              agent_type = COALESCE(s.agent_type, EXCLUDED.agent_type)
          WHERE s.status = 'active'
        RETURNING s.last_sequence - (SELECT coalesce(sum(width), 0) FROM fresh) AS base, s.agent_type,
                  (SELECT coalesce(sum(width), 0) FROM fresh) AS width
      ), inserted AS (
        INSERT INTO ${chunks} (stream_id, sequence, step, chunk, key_hash)
        SELECT $1, reserved.base + fresh.rank, fresh.step,
               CASE WHEN fresh.elided AND reserved.agent_type IS DISTINCT FROM $7::text
                 THEN left(fresh.chunk, -1) || ',"agentType":' || to_json($7::text)::text || '}' ELSE fresh.chunk END,
               fresh.key
        FROM reserved CROSS JOIN fresh
        ON CONFLICT DO NOTHING
        RETURNING 1
      )`;
  return {
    channel,
    listen: `LISTEN ${escapeIdentifier(channel)}`,
    open: `WITH inserted AS (
        INSERT INTO ${streams} (stream_id, status, last_sequence, agent_type, created_at, updated_at)
        VALUES ($1, 'active', 0, $2::text, ${NOW}, ${NOW})
        ON CONFLICT (stream_id) DO NOTHING
        RETURNING status
      )
      SELECT status FROM inserted
      UNION ALL
      SELECT status FROM ${streams} WHERE stream_id = $1`,
    append: `${appendCtes}
      SELECT ${ANSWER}, pg_notify($3, md5($1)) FROM reserved`,
    // The commit of this statement's own transaction does not wait for its WAL flush (see `appendLazily`'s doc).
    appendLazily: `${appendCtes}, lazy AS (SELECT set_config('synchronous_commit', 'off', true) AS lazy)
      SELECT ${ANSWER}, pg_notify($3, md5($1)) FROM reserved CROSS JOIN lazy`,
    appendOrFail: `${appendCtes}
      SELECT ${ANSWER}, pg_notify($3, md5($1)), 1 / (SELECT count(*)::int FROM reserved) AS active
      FROM (SELECT 1) AS one LEFT JOIN reserved ON true`,
    read: `SELECT s.status, s.agent_type, c.sequence, c.step, c.chunk,
        CASE WHEN r.reference IS NOT NULL THEN (
          SELECT k.patches::text FROM ${checkpoints} k
          WHERE k.session_id = COALESCE(r.reference->>'agentId', $1)
            AND k.checkpoint_id = COALESCE(r.reference->>'patchesIn', r.reference->>'patchesBefore')
        ) END AS patches
      FROM (SELECT 1) AS anchor
      LEFT JOIN ${streams} s ON s.stream_id = $1
      LEFT JOIN LATERAL (
        SELECT sequence, step, chunk FROM ${chunks}
        WHERE stream_id = $1 AND sequence > $2::bigint
        ORDER BY sequence LIMIT $3
      ) c ON true
      LEFT JOIN LATERAL (
        SELECT c.chunk::jsonb AS reference
        WHERE starts_with(c.chunk, '${PATCHES_REFERENCE_PREFIX}') OR starts_with(c.chunk, '${FOLDED_PATCH_PREFIX}')
      ) r ON true
      ORDER BY c.sequence`,
    finish: `WITH changed AS (
        INSERT INTO ${streams} AS s (stream_id, status, last_sequence, output, error, created_at, updated_at)
        VALUES ($1, $2, 0, $3::jsonb, $4, ${NOW}, ${NOW})
        ON CONFLICT (stream_id) DO UPDATE
          SET status = EXCLUDED.status, output = EXCLUDED.output, error = EXCLUDED.error, updated_at = ${NOW}
          WHERE s.status = 'active'
        RETURNING s.stream_id
      )
      SELECT pg_notify($5, md5(stream_id)), pg_notify($5, md5(stream_id) || '.end') FROM changed`,
    reactivate: `WITH changed AS (
        UPDATE ${streams} SET status = 'active', output = NULL, error = NULL, updated_at = ${NOW}
        WHERE stream_id = $1
        RETURNING stream_id
      )
      SELECT pg_notify($2, md5(stream_id)) FROM changed`,
    reactivateOrFail: `WITH changed AS (
        UPDATE ${streams} SET status = 'active', output = NULL, error = NULL, updated_at = ${NOW}
        WHERE stream_id = $1
        RETURNING stream_id
      ), notified AS (SELECT pg_notify($2, md5(stream_id)) FROM changed)
      SELECT 1 / (SELECT count(*)::integer FROM changed) AS found, (SELECT count(*) FROM notified) AS notified`,
    info: `SELECT status, last_sequence, output, output IS NOT NULL AS has_output, error, created_at, updated_at,
        (SELECT ${CHUNKS_IN_ROWS} FROM ${chunks} WHERE stream_id = $1) AS chunk_count
      FROM ${streams} WHERE stream_id = $1`,
    cleanup: `DELETE FROM ${chunks} WHERE stream_id = $1 AND sequence > $3 AND step > $2 AND ($4::text IS NULL OR COALESCE(chunk::jsonb->>'agentId', stream_id) = $4::text)`,
    prune: `WITH deleted AS (
        DELETE FROM ${chunks} WHERE stream_id = $1 AND EXISTS (SELECT 1 FROM ${streams} WHERE stream_id = $1 AND status <> 'active')
        RETURNING chunk
      )
      SELECT ${CHUNKS_IN_ROWS} AS count FROM deleted`,
  };
}
