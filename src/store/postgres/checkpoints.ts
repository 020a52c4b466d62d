import type { Checkpoint, CheckpointMeta } from '../../types/session.js';
import { cloneJson } from '../../database/json.js';
import { assertCheckpointMeta, assertIdentifier } from '../validation.js';
import { chainSql, checkpointFromChain, checkpointsFromRows, findCommitCheckpoints, insertCheckpointRow, type CheckpointRow } from './checkpoint-chain.js';
import type { PostgresContext } from './database.js';
import { writeSession } from './session-lock.js';
import { lockSession } from './session-read.js';

/**
 * `createCheckpoint`: capture customState and message count, move the session pointer (existing id: no-op).
 * Stored as an empty delta on the pointer checkpoint when the session state still equals it, else (and
 * whenever the snapshot policy says so) as a full snapshot. The session row then leaves its customState to
 * the checkpoint (`custom_state` NULL), as after a step commit.
 *
 * @example
 * const checkpoint = await createPostgresCheckpoint(context, 's1', { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 });
 */
export async function createPostgresCheckpoint({ database, tables }: PostgresContext, sessionId: string, meta: CheckpointMeta): Promise<Checkpoint> {
  assertIdentifier(sessionId, 'sessionId');
  assertCheckpointMeta(meta);
  return database.transaction('create a checkpoint', async (connection) => {
    const { state, messageCount } = await lockSession(connection, tables, sessionId);
    const { exists, base } = await findCommitCheckpoints(connection, tables, sessionId, meta.checkpointId, state.checkpointId);
    if (exists) {
      const existing = checkpointFromChain((await connection.query<CheckpointRow>(chainSql(tables, 'checkpoint.checkpoint_id = $2'), [sessionId, meta.checkpointId])).rows);
      if (existing !== undefined) return existing;
    }
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
    await insertCheckpointRow(connection, tables, checkpoint, base === undefined ? undefined : { base, patches: [] });
    const next = { ...state, checkpointId: checkpoint.id, checkpointedAt: now, checkpointSource: 'save' as const, version: state.version + 1, updatedAt: now };
    await writeSession(connection, tables, next, { stateInCheckpoint: true });
    return checkpoint;
  });
}

/**
 * `getLatestCheckpoint`: the checkpoint the session points at; else (pointer absent or dangling) the most
 * recently written one. One statement (the chain back to its nearest snapshot).
 *
 * @example
 * const latest = await getLatestPostgresCheckpoint(context, 's1');
 */
export async function getLatestPostgresCheckpoint({ database, tables }: PostgresContext, sessionId: string): Promise<Checkpoint | null> {
  assertIdentifier(sessionId, 'sessionId');
  const rows = await database.run('read the latest checkpoint', async (connection) => {
    // The pointer when it names a row (a primary-key lookup); only else the most recently written row.
    const latest = `checkpoint.checkpoint_id = COALESCE(
        (SELECT pointed.checkpoint_id FROM ${tables.sessions} AS session
         JOIN ${tables.checkpoints} AS pointed ON pointed.session_id = session.session_id AND pointed.checkpoint_id = session.checkpoint_id
         WHERE session.session_id = $1),
        (SELECT candidate.checkpoint_id FROM ${tables.checkpoints} AS candidate WHERE candidate.session_id = $1 ORDER BY candidate.position DESC LIMIT 1))`;
    const result = await connection.query<CheckpointRow>(chainSql(tables, latest), [sessionId]);
    return result.rows;
  });
  return checkpointFromChain(rows) ?? null;
}

/**
 * `getCheckpoint` / `listCheckpoints`: one checkpoint by id (its chain back to the nearest snapshot), or all
 * in write order (every row once), each with its customState rebuilt.
 *
 * @example
 * const [checkpoint] = await readPostgresCheckpoints(context, 's1', 'r1:1');
 */
export async function readPostgresCheckpoints({ database, tables }: PostgresContext, sessionId: string, checkpointId?: string): Promise<Checkpoint[]> {
  assertIdentifier(sessionId, 'sessionId');
  if (checkpointId !== undefined) {
    const chain = await database.run('read a checkpoint', async (connection) => {
      const result = await connection.query<CheckpointRow>(chainSql(tables, 'checkpoint.checkpoint_id = $2'), [sessionId, checkpointId]);
      return result.rows;
    });
    const checkpoint = checkpointFromChain(chain);
    return checkpoint === undefined ? [] : [checkpoint];
  }
  const rows = await database.run('read checkpoints', async (connection) => {
    const result = await connection.query<CheckpointRow>(`SELECT * FROM ${tables.checkpoints} WHERE session_id = $1 ORDER BY position`, [sessionId]);
    return result.rows;
  });
  return checkpointsFromRows(rows);
}
