import { PRUNED_MARKER } from '../retention-marker.js';
import { InvalidArgumentError, SessionAlreadyExistsError } from '../../errors/index.js';
import type { CreateSessionOptions, RunRecord, SessionState } from '../../types/session.js';
import { buildClonedSessionState } from '../session-clone.js';
import { createInitialSessionState } from '../session-write.js';
import { assertIdentifier } from '../validation.js';
import { chainSql, checkpointFromChain, insertCheckpointRow, type CheckpointRow } from './checkpoint-chain.js';
import type { PostgresContext, SqlConnection } from './database.js';
import { insertSession } from './session-lock.js';
import { decodeSessionRead, lockSession, readSession, sessionReadSql, type SessionReadRow } from './session-read.js';
import { runFromRow, type RunRow } from './runs.js';
import { AWAITING_HUMAN_SQL } from './session-list.js';

/**
 * Create a session with one `INSERT … ON CONFLICT DO NOTHING`: exactly one concurrent caller wins, the
 * others get SessionAlreadyExistsError. Retry-safe: after an attempt whose outcome is unknown (connection
 * lost with the INSERT in flight), a taken id whose row carries this call's `createdAt` and agent type is
 * this call's own insert, so the call succeeds instead of reporting its own session as a conflict.
 *
 * @example
 * const state = await createPostgresSession(context, 's1', { agentType: 'assistant' });
 */
export async function createPostgresSession<TState>(
  { database, tables }: PostgresContext,
  sessionId: string,
  options: CreateSessionOptions<TState>,
): Promise<SessionState<TState>> {
  assertIdentifier(sessionId, 'sessionId');
  assertIdentifier(options.agentType, 'agentType');
  const state = createInitialSessionState(sessionId, options, Date.now());
  const inserted = await database.run('create a session', async (connection, attempt) => {
    if (await insertSession(connection, tables, state as SessionState)) return true;
    return attempt.ambiguous && (await isOwnSessionRow(connection, tables.sessions, state as SessionState));
  });
  if (!inserted) throw new SessionAlreadyExistsError(sessionId);
  return state;
}

/** True when the stored row of `state.sessionId` was written by the call that built `state` (same creation time and agent type). */
async function isOwnSessionRow(connection: SqlConnection, sessionsTable: string, state: SessionState): Promise<boolean> {
  const result = await connection.query<{ created_at: string; agent_type: string }>(
    `SELECT created_at, agent_type FROM ${sessionsTable} WHERE session_id = $1`,
    [state.sessionId],
  );
  const row = result.rows[0];
  return row !== undefined && Number(row.created_at) === state.createdAt && row.agent_type === state.agentType;
}

/**
 * Whether the session exists.
 *
 * @example
 * if (await postgresSessionExists(context, 's1')) { … }
 */
export async function postgresSessionExists({ database, tables }: PostgresContext, sessionId: string): Promise<boolean> {
  assertIdentifier(sessionId, 'sessionId');
  return database.run('check a session', async (connection) => {
    const result = await connection.query(`SELECT 1 FROM ${tables.sessions} WHERE session_id = $1`, [sessionId]);
    return result.rowCount === 1;
  });
}

/**
 * `listFinishedSessions`: root sessions ended completed/failed before a time, oldest first.
 *
 * @example
 * const finished = await listPostgresFinishedSessions(context, Date.now() - 86_400_000, 100);
 */
export async function listPostgresFinishedSessions(
  { database, tables }: PostgresContext,
  finishedBefore: number,
  limit: number,
): Promise<Array<{ sessionId: string; streamId: string }>> {
  return database.run('list finished sessions', async (connection) => {
    const result = await connection.query<{ session_id: string; stream_id: string | null }>(
      `SELECT session_id, stream_id FROM ${tables.sessions}
       WHERE status IN ('completed', 'failed') AND parent_session_id IS NULL AND updated_at < $1
         AND NOT (COALESCE(metadata, '{}'::jsonb) ? '${PRUNED_MARKER}')
       ORDER BY updated_at LIMIT $2`,
      [finishedBefore, limit],
    );
    return result.rows.map((row) => ({ sessionId: row.session_id, streamId: row.stream_id ?? row.session_id }));
  });
}

/**
 * Delete a session; its messages, runs, checkpoints, refs and staging go with it (ON DELETE CASCADE). So does
 * its own stream when that lives in this schema (a `PostgresStreamManager` on the same schema): the chunks
 * of the stream whose id is the session's (not the root's stream a sub-agent writes to) are deleted and the stream
 * is set active, so a session created again under the id writes to it; its record stays, so sequences continue and
 * a reader's position stays valid. One statement: idempotent.
 *
 * @example
 * await deletePostgresSession(context, 's1');
 */
export async function deletePostgresSession({ database, tables }: PostgresContext, sessionId: string): Promise<void> {
  assertIdentifier(sessionId, 'sessionId');
  await database.run('delete a session', (connection) =>
    connection.query(
      `WITH deleted AS (
         DELETE FROM ${tables.sessions} WHERE session_id = $1 RETURNING session_id, COALESCE(stream_id, session_id) AS stream_id
       ), own_stream AS (
         SELECT stream_id FROM deleted WHERE stream_id = session_id
       ), chunks AS (
         DELETE FROM ${tables.streamChunks} WHERE stream_id = $1 AND EXISTS (SELECT 1 FROM own_stream)
       )
       UPDATE ${tables.streams} SET status = 'active', output = NULL, error = NULL, agent_type = NULL,
         updated_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
       WHERE stream_id = $1 AND EXISTS (SELECT 1 FROM own_stream)`,
      [sessionId],
    ),
  );
}

/**
 * The session's state, or null.
 *
 * @example
 * const state = await loadPostgresState(context, 's1');
 */
export async function loadPostgresState<TState, TOutput>(
  { database, tables }: PostgresContext,
  sessionId: string,
): Promise<SessionState<TState, TOutput> | null> {
  assertIdentifier(sessionId, 'sessionId');
  const read = await database.run('load a session', (connection) => readSession(connection, tables, sessionId, { lock: false }));
  return read === undefined ? null : (read.state as unknown as SessionState<TState, TOutput>);
}

/**
 * The session's state and its latest run (highest turn), read in one statement, so in one snapshot: the run is the
 * latest as of the version read (a start's status swap expects that version). Both null for no session.
 *
 * @example
 * const { state, run } = await loadPostgresStateWithRun(context, 's1');
 */
export async function loadPostgresStateWithRun(
  { database, tables }: PostgresContext,
  sessionId: string,
): Promise<{ state: SessionState | null; run: RunRecord | null }> {
  assertIdentifier(sessionId, 'sessionId');
  return database.run('load a session and its latest run', async (connection) => {
    const result = await connection.query<SessionReadRow>(sessionReadSql(tables, { lock: false, chain: true, latestRun: true }), [sessionId]);
    const row = result.rows[0];
    if (row === undefined) return { state: null, run: null };
    const latest = row.latest_run ?? null;
    const { state } = await decodeSessionRead(connection, tables, row, true);
    return { state, run: latest === null ? null : runFromRow(latest as unknown as RunRow) };
  });
}

/**
 * Branch a session in one transaction: the new session row, the messages up to the checkpoint (copied
 * with one INSERT … SELECT) and that checkpoint, rebuilt from its chain and stored as the branch's first
 * snapshot (the branch holds no rows of the source's chain). The source row is locked so no commit interleaves.
 * Retry-safe like createSession: the new row's `createdAt` is fixed before the first attempt, so a retry
 * after an unknown outcome recognises its own clone.
 *
 * @example
 * const branch = await clonePostgresSession(context, 's1', 's1-branch', { checkpointId: 'r1:2' });
 */
export async function clonePostgresSession(
  { database, tables }: PostgresContext,
  sourceSessionId: string,
  targetSessionId: string,
  options: { checkpointId?: string; agentType?: string } = {},
): Promise<SessionState> {
  assertIdentifier(sourceSessionId, 'sourceSessionId');
  assertIdentifier(targetSessionId, 'targetSessionId');
  const now = Date.now();
  return database.transaction('clone a session', async (connection, attempt) => {
    const source = await lockSession(connection, tables, sourceSessionId);
    let checkpoint = null;
    if (options.checkpointId !== undefined) {
      const result = await connection.query<CheckpointRow>(chainSql(tables, 'checkpoint.checkpoint_id = $2'), [sourceSessionId, options.checkpointId]);
      checkpoint = checkpointFromChain(result.rows) ?? null;
      if (checkpoint === null) {
        throw new InvalidArgumentError('checkpointId does not name a checkpoint of the source session.', { field: 'checkpointId' });
      }
    }
    const state = buildClonedSessionState(source.state, targetSessionId, checkpoint, options.agentType, now);
    const messageCount = Math.min(source.messageCount, checkpoint?.messageCount ?? source.messageCount);
    if (!(await insertSession(connection, tables, state, messageCount))) {
      if (attempt.ambiguous && (await isOwnSessionRow(connection, tables.sessions, state))) return state;
      throw new SessionAlreadyExistsError(targetSessionId);
    }
    await connection.query(
      `INSERT INTO ${tables.messages} (session_id, sequence, message_id, message, created_at)
       SELECT $1, sequence, message_id, message, created_at FROM ${tables.messages} WHERE session_id = $2 AND sequence <= $3`,
      [targetSessionId, sourceSessionId, messageCount],
    );
    if (checkpoint !== null) await insertCheckpointRow(connection, tables, { ...checkpoint, sessionId: targetSessionId }, undefined);
    return state;
  });
}

/**
 * `countSessionsAwaitingHumans`: active sessions with a pending client tool call or approval not yet submitted.
 *
 * @example
 * const waiting = await countPostgresSessionsAwaitingHumans(context);
 */
export async function countPostgresSessionsAwaitingHumans({ database, tables }: PostgresContext): Promise<number> {
  return database.run('count sessions awaiting humans', async (connection) => {
    const result = await connection.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM ${tables.sessions} AS s WHERE ${AWAITING_HUMAN_SQL}`,
    );
    return result.rows[0]?.waiting ?? 0;
  });
}
