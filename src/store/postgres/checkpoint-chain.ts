import { StoreError } from '../../errors/index.js';
import type { JsonPatchOperation } from '../../types/json-patch.js';
import type { Checkpoint } from '../../types/session.js';
import { cloneJson, toJsonText } from '../../database/json.js';
import { replayCheckpointDelta } from '../staged-patches.js';
import { toNumber, type SqlConnection } from './database.js';
import type { StoreTables } from './tables.js';

/**
 * Bytes a delta row is charged on top of its patches (roughly a row's header and fixed columns), so a
 * chain of many tiny deltas also ends in a snapshot and stays short.
 */
export const DELTA_ROW_ALLOWANCE = 128;

/**
 * A delta is written while the chain since the last snapshot (this row included) stays under this many times the
 * state's size: a read replays at most twice the state's bytes, and a state that grows by appends (its deltas are
 * its content) is not stored again and again as snapshots.
 */
export const SNAPSHOT_CHAIN_RATIO = 2;

/** A guard on the chain walk (a damaged table could hold a cycle); the size rule keeps real chains far shorter. */
const MAX_CHAIN_DEPTH = 1_000_000;

/**
 * A row of `__agents_checkpoints`: a snapshot (`custom_state`) or a delta (`patches` on `base_checkpoint_id`).
 *
 * @example
 * const checkpoint = checkpointFromChain(result.rows as CheckpointRow[]);
 */
export interface CheckpointRow {
  session_id: string;
  checkpoint_id: string;
  /** NULL when the checkpoint id is `${runId}:${stepCount}` (migration 017): see {@link storedRunId}. */
  run_id: string | null;
  step_count: number;
  message_count: number;
  custom_state: Record<string, unknown> | null;
  patches: JsonPatchOperation[] | null;
  base_checkpoint_id: string | null;
  created_at: string | number;
  /** Present in reads of whole rows (`chainSql`, the session read's chain). */
  chain_bytes?: string | number;
}

/**
 * What a new checkpoint row may be written against: the checkpoint the session points at, when the
 * session's customState still equals that checkpoint's, with that row's `chain_bytes` (0 for a snapshot).
 *
 * @example
 * const base: CheckpointBase = { checkpointId: 'r1:1', chainBytes: 0 };
 */
export interface CheckpointBase {
  checkpointId: string;
  chainBytes: number;
}

/**
 * The recursive CTE `chain AS (…)` of a chain read (see `chainSql`), to follow `WITH RECURSIVE` and other CTEs.
 *
 * @example
 * const sql = `WITH RECURSIVE ${chainCte(tables, 'checkpoint.checkpoint_id = $2')} SELECT * FROM chain`;
 */
export function chainCte(tables: StoreTables, startCondition: string): string {
  return `chain AS (
      SELECT checkpoint.*, 0 AS depth FROM ${tables.checkpoints} AS checkpoint WHERE checkpoint.session_id = $1 AND ${startCondition}
      UNION ALL
      SELECT base.*, chain.depth + 1 FROM chain
      JOIN ${tables.checkpoints} AS base ON base.session_id = chain.session_id AND base.checkpoint_id = chain.base_checkpoint_id
      WHERE chain.custom_state IS NULL AND chain.depth < ${MAX_CHAIN_DEPTH}
    )`;
}

/**
 * SQL of the chain read: the row(s) chosen by `startCondition` (over alias `checkpoint`, which may use `$1`
 * = session id and later parameters) and, recursively, the base of every delta in it down to the nearest
 * snapshot, snapshot first. Bounded by the snapshot policy: the deltas read add up to less than the state.
 *
 * @example
 * await connection.query(chainSql(tables, 'checkpoint.checkpoint_id = $2'), [sessionId, checkpointId]);
 */
export function chainSql(tables: StoreTables, startCondition: string): string {
  return `WITH RECURSIVE ${chainCte(tables, startCondition)}
    SELECT * FROM chain ORDER BY depth DESC`;
}

/**
 * The Checkpoint at the end of a chain read (`chainSql` rows: a snapshot, then deltas each on the row
 * before it), or undefined for no rows. Throws StoreError when the chain does not start at a snapshot or
 * a delta does not apply (a damaged table).
 *
 * @example
 * const checkpoint = checkpointFromChain(result.rows);
 */
export function checkpointFromChain(rows: readonly CheckpointRow[]): Checkpoint | undefined {
  const target = rows.at(-1);
  if (target === undefined) return undefined;
  let state: Record<string, unknown> | undefined;
  for (const row of rows) state = stateOf(row, state);
  return toCheckpoint(target, state as Record<string, unknown>);
}

/**
 * Every checkpoint of a session from its rows in write order (a delta's base is always written before
 * it). Each returned customState is an independent copy.
 *
 * @example
 * const checkpoints = checkpointsFromRows(result.rows);
 */
export function checkpointsFromRows(rows: readonly CheckpointRow[]): Checkpoint[] {
  const states = new Map<string, Record<string, unknown>>();
  return rows.map((row) => {
    const base = row.base_checkpoint_id === null ? undefined : states.get(row.base_checkpoint_id);
    const state = stateOf(row, base);
    states.set(row.checkpoint_id, state);
    return toCheckpoint(row, row.custom_state === null ? cloneJson(state, 'customState') : state);
  });
}

/**
 * Inside the commit's transaction: whether checkpoint `checkpointId` exists (idempotent re-commit) and
 * the delta base, if any: the session's pointer checkpoint when the session's customState equals its
 * state: the row's `custom_state` is NULL (it is that checkpoint's state by definition), or it equals the
 * checkpoint's snapshot (jsonb equality), or its md5 equals the delta's `state_hash` (only deltas written before
 * `insertCheckpointRow` decided in JS carry one: a row holding its own state bases nothing on a newer delta). One statement.
 *
 * @example
 * const { exists, base } = await findCommitCheckpoints(connection, tables, 's1', 'r1:2', 'r1:1');
 */
export async function findCommitCheckpoints(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  checkpointId: string,
  pointerId: string | undefined,
): Promise<{ exists: boolean; base: CheckpointBase | undefined }> {
  const result = await connection.query<CommitCheckpointRow>(commitCheckpointsSql(tables, '$3'), [sessionId, checkpointId, pointerId ?? null]);
  return decideCommitCheckpoints(result.rows, checkpointId, pointerId);
}

/** A row of the commit's checkpoint lookup. */
export interface CommitCheckpointRow {
  checkpoint_id: string;
  base_matches: boolean | null;
  chain_bytes: string | number;
}

/**
 * {@link findCommitCheckpoints}'s lookup with the pointer taken from the session row itself (as the statement's
 * snapshot sees it), for a read issued together with the lock; decide with {@link decideCommitCheckpoints} once the
 * locked row's pointer is known.
 *
 * @example
 * const rows = await readCommitCheckpointRows(reads, tables, 's1', 'r1:2');
 */
export async function readCommitCheckpointRows(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  checkpointId: string,
): Promise<CommitCheckpointRow[]> {
  return (await connection.query<CommitCheckpointRow>(commitCheckpointsSql(tables, 'session.checkpoint_id'), [sessionId, checkpointId])).rows;
}

/**
 * Whether the commit's checkpoint exists, and the delta base: the pointer checkpoint when its state matches.
 *
 * @example
 * const { exists, base } = decideCommitCheckpoints(rows, 'r1:2', 'r1:1');
 */
export function decideCommitCheckpoints(
  rows: readonly CommitCheckpointRow[],
  checkpointId: string,
  pointerId: string | undefined,
): { exists: boolean; base: CheckpointBase | undefined } {
  const exists = rows.some((row) => row.checkpoint_id === checkpointId);
  const baseRow = rows.find((row) => row.checkpoint_id === pointerId && row.base_matches === true);
  return { exists, base: baseRow === undefined ? undefined : { checkpointId: baseRow.checkpoint_id, chainBytes: Number(baseRow.chain_bytes) } };
}

function commitCheckpointsSql(tables: StoreTables, pointer: string): string {
  return `SELECT checkpoint.checkpoint_id, checkpoint.chain_bytes,
       CASE WHEN checkpoint.checkpoint_id = ${pointer} THEN session.custom_state IS NULL OR CASE WHEN checkpoint.custom_state IS NOT NULL
         THEN checkpoint.custom_state = session.custom_state ELSE checkpoint.state_hash = md5(session.custom_state::text) END END AS base_matches
     FROM ${tables.checkpoints} AS checkpoint JOIN ${tables.sessions} AS session ON session.session_id = checkpoint.session_id
     WHERE checkpoint.session_id = $1 AND checkpoint.checkpoint_id IN ($2, ${pointer})`;
}

/**
 * Inside a transaction: insert the checkpoint row, as the delta `patches` on `delta.base` when given and
 * the chain stays under {@link SNAPSHOT_CHAIN_RATIO} times the state's size, else as a full snapshot of
 * `checkpoint.customState`. Decided here from the base's `chainBytes` (the caller read it, or committed it): the chain
 * is that plus these patches' JSON bytes and {@link DELTA_ROW_ALLOWANCE}, the state's size its JSON bytes. A delta's
 * statement carries no state — Postgres parses, renders or hashes nothing of the size of the state (at 200 KB that was
 * ~9 ms a step); new deltas have no `state_hash`. A snapshot keeps `stepPatches` (the patches its step applied, which
 * its `state_patch` chunk may refer to). One statement; resolves with the row's `chain_bytes` (0 for a snapshot).
 *
 * @example
 * const chainBytes = await insertCheckpointRow(connection, tables, commit.checkpoint, { base, patches: commit.delta });
 */
export async function insertCheckpointRow(
  connection: SqlConnection,
  tables: StoreTables,
  checkpoint: Checkpoint,
  delta: { base: CheckpointBase; patches: readonly JsonPatchOperation[] } | undefined,
  stepPatches: readonly JsonPatchOperation[] = [],
): Promise<number> {
  const stateText = toJsonText(checkpoint.customState, 'customState');
  const columns = `(session_id, checkpoint_id, run_id, step_count, message_count, created_at, custom_state, patches, base_checkpoint_id, chain_bytes)`;
  const row = [checkpoint.sessionId, checkpoint.id, storedRunId(checkpoint), checkpoint.stepCount, checkpoint.messageCount, checkpoint.createdAt];
  if (delta !== undefined) {
    const patchesText = toJsonText(delta.patches, 'patches');
    const chain = delta.base.chainBytes + Buffer.byteLength(patchesText) + DELTA_ROW_ALLOWANCE;
    if (chain < SNAPSHOT_CHAIN_RATIO * Buffer.byteLength(stateText)) {
      const values = [...row, patchesText, delta.base.checkpointId, chain];
      await connection.query(`INSERT INTO ${tables.checkpoints} ${columns} VALUES ($1, $2, $3, $4, $5, $6, NULL, $7::jsonb, $8, $9)`, values);
      return chain;
    }
  }
  await connection.query(`INSERT INTO ${tables.checkpoints} ${columns} VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, NULL, 0)`, [
    ...row,
    stateText,
    stepPatches.length === 0 ? null : toJsonText(stepPatches, 'patches'),
  ]);
  return 0;
}

function stateOf(row: CheckpointRow, base: Record<string, unknown> | undefined): Record<string, unknown> {
  if (row.custom_state !== null) return row.custom_state;
  if (base === undefined || row.patches === null) {
    throw new StoreError('STORE_ERROR', 'A checkpoint delta has no readable base; the checkpoint table is damaged.', {
      data: { sessionId: row.session_id, checkpointId: row.checkpoint_id, baseCheckpointId: row.base_checkpoint_id },
    });
  }
  try {
    return replayCheckpointDelta(base, row.patches);
  } catch (error) {
    throw new StoreError('STORE_ERROR', 'A checkpoint delta does not apply to its base; the checkpoint table is damaged.', {
      cause: error,
      data: { sessionId: row.session_id, checkpointId: row.checkpoint_id, baseCheckpointId: row.base_checkpoint_id },
    });
  }
}

/**
 * The `run_id` a checkpoint row stores: NULL when its id is `${runId}:${stepCount}` (a step's checkpoint), which says
 * the run already (migration 017); the run id otherwise.
 *
 * @example
 * storedRunId({ id: 'run-1:3', runId: 'run-1', stepCount: 3 }); // null
 * storedRunId({ id: 'saved', runId: 'run-1', stepCount: 3 });   // 'run-1'
 */
export function storedRunId(checkpoint: Pick<Checkpoint, 'id' | 'runId' | 'stepCount'>): string | null {
  return checkpoint.id === `${checkpoint.runId}:${checkpoint.stepCount}` ? null : checkpoint.runId;
}

/** A row's run id: its own, or (stored NULL) its checkpoint id without the `:${stepCount}` suffix. */
function runIdOf(row: CheckpointRow): string {
  return row.run_id ?? row.checkpoint_id.slice(0, row.checkpoint_id.length - `:${row.step_count}`.length);
}

function toCheckpoint(row: CheckpointRow, customState: Record<string, unknown>): Checkpoint {
  return {
    id: row.checkpoint_id,
    sessionId: row.session_id,
    runId: runIdOf(row),
    stepCount: row.step_count,
    messageCount: row.message_count,
    customState,
    createdAt: toNumber(row.created_at) ?? 0,
  };
}
