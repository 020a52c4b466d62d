import type { JsonPatchOperation } from '../../types/json-patch.js';
import type { StagedChanges } from '../../types/session.js';
import { toJsonText } from '../../database/json.js';
import { applySessionWrite } from '../session-write.js';
import { applyStagedChanges } from '../staged-patches.js';
import { assertIdentifier } from '../validation.js';
import { requireSessionReference, toNumber, type PostgresContext, type SqlConnection } from './database.js';
import { writeSession } from './session-lock.js';
import { lockSession } from './session-read.js';
import type { StoreTables } from './tables.js';

/** A staged row as read back, with its 1-based order within its step. */
interface StagedRow {
  step_id: string;
  staging_key: string;
  patches: JsonPatchOperation[];
  step_order: string | number;
  created_at: string | number;
}

/**
 * `stageChanges`: one upsert keyed by (session, step, staging key); a retry replaces the patches and keeps
 * the row's original order.
 *
 * @example
 * await stagePostgresChanges(context, 's1', { stepId: 'r1:1', stagingKey: 'call-1', patches });
 */
export async function stagePostgresChanges({ database, tables }: PostgresContext, sessionId: string, changes: StagedChanges): Promise<void> {
  assertIdentifier(sessionId, 'sessionId');
  assertIdentifier(changes.stepId, 'stepId');
  assertIdentifier(changes.stagingKey, 'stagingKey');
  const patches = toJsonText(changes.patches, 'patches');
  await database.run('stage state changes', (connection) =>
    requireSessionReference(sessionId, () =>
      connection.query(
        `INSERT INTO ${tables.staging} (session_id, step_id, staging_key, patches, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)
         ON CONFLICT (session_id, step_id, staging_key) DO UPDATE SET patches = EXCLUDED.patches`,
        [sessionId, changes.stepId, changes.stagingKey, patches, Date.now()],
      ),
    ),
  );
}

/**
 * Staged rows of a session (of one step when `stepId` is given) in staging order, on any connection.
 *
 * @example
 * const rows = await selectStagedChanges(connection, tables, 's1', 'r1:1');
 */
export async function selectStagedChanges(connection: SqlConnection, tables: StoreTables, sessionId: string, stepId?: string): Promise<StagedChanges[]> {
  const result = await connection.query<StagedRow>(
    `SELECT step_id, staging_key, patches, created_at, ROW_NUMBER() OVER (PARTITION BY step_id ORDER BY position) AS step_order
     FROM ${tables.staging} WHERE session_id = $1 AND ($2::text IS NULL OR step_id = $2) ORDER BY position`,
    [sessionId, stepId ?? null],
  );
  return result.rows.map((row) => ({
    stepId: row.step_id,
    stagingKey: row.staging_key,
    patches: row.patches,
    order: toNumber(row.step_order) ?? 0,
    createdAt: toNumber(row.created_at) ?? 0,
  }));
}

/**
 * `getStagedChanges`.
 *
 * @example
 * const staged = await getPostgresStagedChanges(context, 's1', 'r1:1');
 */
export async function getPostgresStagedChanges({ database, tables }: PostgresContext, sessionId: string, stepId?: string): Promise<StagedChanges[]> {
  assertIdentifier(sessionId, 'sessionId');
  return database.run('read staged changes', (connection) => selectStagedChanges(connection, tables, sessionId, stepId));
}

/**
 * `promoteStaging`: under the session lock, apply a step's staged patches to customState and delete them.
 *
 * @example
 * const { newVersion } = await promotePostgresStaging(context, 's1', 'r1:1');
 */
export async function promotePostgresStaging({ database, tables }: PostgresContext, sessionId: string, stepId: string): Promise<{ newVersion: number }> {
  assertIdentifier(sessionId, 'sessionId');
  assertIdentifier(stepId, 'stepId');
  return database.transaction('promote staged changes', async (connection) => {
    const { state } = await lockSession(connection, tables, sessionId);
    const staged = await selectStagedChanges(connection, tables, sessionId, stepId);
    if (staged.length === 0) return { newVersion: state.version };
    const next = applySessionWrite(state, { customState: applyStagedChanges(state.customState, staged) }, Date.now());
    await writeSession(connection, tables, next);
    await connection.query(`DELETE FROM ${tables.staging} WHERE session_id = $1 AND step_id = $2 AND staging_key = ANY($3::text[])`, [
      sessionId,
      stepId,
      staged.map((row) => row.stagingKey),
    ]);
    return { newVersion: next.version };
  });
}

/**
 * Delete staged rows: of `stepId` (every step when omitted), or with `keep`, of every step but `stepId`.
 * Returns how many rows went.
 *
 * @example
 * const removed = await deletePostgresStaging(context, 's1', { stepId: 'r2:1', keep: true });
 */
export async function deletePostgresStaging(
  { database, tables }: PostgresContext,
  sessionId: string,
  filter: { stepId?: string; keep?: boolean },
): Promise<number> {
  assertIdentifier(sessionId, 'sessionId');
  const condition = filter.keep === true ? 'step_id IS DISTINCT FROM $2' : '($2::text IS NULL OR step_id = $2)';
  const result = await database.run('delete staged changes', (connection) =>
    connection.query(`DELETE FROM ${tables.staging} WHERE session_id = $1 AND ${condition}`, [sessionId, filter.stepId ?? null]),
  );
  return result.rowCount ?? 0;
}

/**
 * `hasStagedChanges`.
 *
 * @example
 * if (await hasPostgresStagedChanges(context, 's1', 'r1:1')) { … }
 */
export async function hasPostgresStagedChanges({ database, tables }: PostgresContext, sessionId: string, stepId?: string): Promise<boolean> {
  assertIdentifier(sessionId, 'sessionId');
  const result = await database.run('check staged changes', (connection) =>
    connection.query(`SELECT 1 FROM ${tables.staging} WHERE session_id = $1 AND ($2::text IS NULL OR step_id = $2) LIMIT 1`, [sessionId, stepId ?? null]),
  );
  return result.rowCount === 1;
}
