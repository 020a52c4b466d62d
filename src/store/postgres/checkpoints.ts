import type { Checkpoint, CheckpointMeta } from '../../types/session.js';
import { cloneJson, toJsonText } from '../../database/json.js';
import { assertCheckpointMeta, assertIdentifier } from '../validation.js';
import { toNumber, type PostgresContext, type SqlConnection } from './database.js';
import { lockSession, writeSession } from './session-lock.js';
import type { StoreTables } from './tables.js';

/**
 * A row of `__agents_checkpoints`.
 *
 * @example
 * const checkpoint = checkpointFromRow(row as CheckpointRow);
 */
export interface CheckpointRow {
  session_id: string;
  checkpoint_id: string;
  run_id: string;
  step_count: number;
  message_count: number;
  custom_state: Record<string, unknown>;
  created_at: string | number;
}

/**
 * The Checkpoint a row holds.
 *
 * @example
 * const checkpoint = checkpointFromRow(result.rows[0]);
 */
export function checkpointFromRow(row: CheckpointRow): Checkpoint {
  return {
    id: row.checkpoint_id,
    sessionId: row.session_id,
    runId: row.run_id,
    stepCount: row.step_count,
    messageCount: row.message_count,
    customState: row.custom_state,
    createdAt: toNumber(row.created_at) ?? 0,
  };
}

/**
 * Inside a transaction: the stored checkpoint with this id, or undefined.
 *
 * @example
 * const existing = await findPostgresCheckpoint(connection, tables, 's1', 'r1:1');
 */
export async function findPostgresCheckpoint(connection: SqlConnection, tables: StoreTables, sessionId: string, checkpointId: string): Promise<Checkpoint | undefined> {
  const result = await connection.query<CheckpointRow>(
    `SELECT * FROM ${tables.checkpoints} WHERE session_id = $1 AND checkpoint_id = $2`,
    [sessionId, checkpointId],
  );
  const row = result.rows[0];
  return row === undefined ? undefined : checkpointFromRow(row);
}

/**
 * Inside a transaction: insert a checkpoint row.
 *
 * @example
 * await insertPostgresCheckpoint(connection, tables, checkpoint);
 */
export async function insertPostgresCheckpoint(connection: SqlConnection, tables: StoreTables, checkpoint: Checkpoint): Promise<void> {
  await connection.query(
    `INSERT INTO ${tables.checkpoints} (session_id, checkpoint_id, run_id, step_count, message_count, custom_state, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
    [
      checkpoint.sessionId,
      checkpoint.id,
      checkpoint.runId,
      checkpoint.stepCount,
      checkpoint.messageCount,
      toJsonText(checkpoint.customState, 'customState'),
      checkpoint.createdAt,
    ],
  );
}

/**
 * `createCheckpoint`: snapshot customState and message count, move the session pointer (existing id: no-op).
 *
 * @example
 * const checkpoint = await createPostgresCheckpoint(context, 's1', { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 });
 */
export async function createPostgresCheckpoint({ database, tables }: PostgresContext, sessionId: string, meta: CheckpointMeta): Promise<Checkpoint> {
  assertIdentifier(sessionId, 'sessionId');
  assertCheckpointMeta(meta);
  return database.transaction('create a checkpoint', async (connection) => {
    const { state, messageCount } = await lockSession(connection, tables, sessionId);
    const existing = await findPostgresCheckpoint(connection, tables, sessionId, meta.checkpointId);
    if (existing !== undefined) return existing;
    const now = Date.now();
    const checkpoint: Checkpoint = {
      id: meta.checkpointId,
      sessionId,
      runId: meta.runId,
      stepCount: meta.stepCount,
      messageCount,
      customState: cloneJson(state.customState, 'customState'),
      createdAt: now,
    };
    await insertPostgresCheckpoint(connection, tables, checkpoint);
    const next = { ...state, checkpointId: checkpoint.id, checkpointedAt: now, checkpointSource: 'save' as const, version: state.version + 1, updatedAt: now };
    await writeSession(connection, tables, next);
    return checkpoint;
  });
}

/**
 * `getLatestCheckpoint`: the checkpoint the session points at; else (pointer absent or dangling) the most
 * recently written one. One statement.
 *
 * @example
 * const latest = await getLatestPostgresCheckpoint(context, 's1');
 */
export async function getLatestPostgresCheckpoint({ database, tables }: PostgresContext, sessionId: string): Promise<Checkpoint | null> {
  assertIdentifier(sessionId, 'sessionId');
  const rows = await database.run('read the latest checkpoint', async (connection) => {
    const result = await connection.query<CheckpointRow>(
      `SELECT checkpoint.* FROM ${tables.checkpoints} AS checkpoint
       LEFT JOIN ${tables.sessions} AS session ON session.session_id = checkpoint.session_id
       WHERE checkpoint.session_id = $1
       ORDER BY (checkpoint.checkpoint_id = session.checkpoint_id) DESC NULLS LAST, checkpoint.position DESC
       LIMIT 1`,
      [sessionId],
    );
    return result.rows;
  });
  return rows[0] === undefined ? null : checkpointFromRow(rows[0]);
}

/**
 * `getCheckpoint` / `listCheckpoints`: one checkpoint by id, or all in write order.
 *
 * @example
 * const [checkpoint] = await readPostgresCheckpoints(context, 's1', 'r1:1');
 */
export async function readPostgresCheckpoints({ database, tables }: PostgresContext, sessionId: string, checkpointId?: string): Promise<Checkpoint[]> {
  assertIdentifier(sessionId, 'sessionId');
  const rows = await database.run('read checkpoints', async (connection) => {
    const result = await connection.query<CheckpointRow>(
      `SELECT * FROM ${tables.checkpoints} WHERE session_id = $1 AND ($2::text IS NULL OR checkpoint_id = $2) ORDER BY position`,
      [sessionId, checkpointId ?? null],
    );
    return result.rows;
  });
  return rows.map(checkpointFromRow);
}
