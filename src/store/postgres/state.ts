import { InvalidArgumentError, SessionNotFoundError, StaleStateError } from '../../errors/index.js';
import type { JsonPatchOperation } from '../../types/json-patch.js';
import type { CompareAndSetOptions, CompareAndSetResult, SessionState, SessionStateWrite, SessionStatus } from '../../types/session.js';
import { cloneJson, toJsonText } from '../../database/json.js';
import { applySessionWrite, assertMetadataPatch, statusWrite, type StatusContext } from '../session-write.js';
import { applyCustomStatePatches } from '../staged-patches.js';
import { assertIdentifier, assertSessionStatus } from '../validation.js';
import type { PostgresContext } from './database.js';
import { writeSession } from './session-lock.js';
import { lockSession, readCheckpointState } from './session-read.js';
import { canSendAhead, isRefusedByError, writeAhead } from '../../database/send-ahead.js';
import type { StartSwapOptions } from '../step-records.js';

/**
 * Lock a session, compute its next state in JS, write it back: one transaction, four statements. A
 * session whose customState lives in its pointer checkpoint keeps it there unless `next` replaces the
 * customState or moves the pointer (then the row holds the full value again). The lock reads that state
 * only with `readsCustomState` (a `next` that looks at customState); otherwise `next` gets a placeholder
 * it may keep or replace, and a moved pointer reads the real state with one more statement.
 * Retry-safe: every attempt remembers the (version, updatedAt) it wrote; after an attempt whose COMMIT
 * outcome is unknown, a row still carrying one of those pairs holds this call's write, which is then not
 * applied again (so `expectedVersion` does not report the call's own write as stale, and patches are not
 * applied twice). If another writer changed the session in between, the write is re-applied (or, with
 * `expectedVersion`, reported stale) as for any concurrent change.
 *
 * @example
 * await rewritePostgresSession(context, 'save session state', 's1', (state) => applySessionWrite(state, write, Date.now()));
 */
export async function rewritePostgresSession(
  { database, tables }: PostgresContext,
  operation: string,
  sessionId: string,
  next: (current: SessionState) => SessionState,
  expectedVersion?: number,
  options: { readsCustomState?: boolean } = {},
): Promise<{ newVersion: number }> {
  assertIdentifier(sessionId, 'sessionId');
  const written: { version: number; updatedAt: number }[] = [];
  return database.transaction(operation, async (connection, attempt) => {
    const { state, stateInCheckpoint, customStateResolved } = await lockSession(connection, tables, sessionId, { chain: options.readsCustomState === true });
    if (attempt.ambiguous && written.some((own) => own.version === state.version && own.updatedAt === state.updatedAt)) {
      return { newVersion: state.version };
    }
    if (expectedVersion !== undefined && expectedVersion !== state.version) {
      throw new StaleStateError(sessionId, expectedVersion, state.version);
    }
    const updated = next(state);
    written.push({ version: updated.version, updatedAt: updated.updatedAt });
    // A write that leaves customState and the pointer alone keeps the state in the checkpoint; one that moves
    // the pointer but keeps customState stores the current state in the row (read now if the lock skipped it).
    const keptState = updated.customState === state.customState;
    const unchanged = keptState && updated.checkpointId === state.checkpointId;
    if (keptState && !unchanged && !customStateResolved)
      updated.customState = await readCheckpointState(connection, tables, sessionId, state.checkpointId ?? null);
    await writeSession(connection, tables, updated, { stateInCheckpoint: stateInCheckpoint && unchanged });
    return { newVersion: updated.version };
  });
}

/**
 * `saveState`: write fields, honouring `expectedVersion`.
 *
 * @example
 * await savePostgresState(context, 's1', { status: 'completed' }, { expectedVersion: 4 });
 */
export async function savePostgresState(
  context: PostgresContext,
  sessionId: string,
  write: SessionStateWrite,
  options: { expectedVersion?: number } = {},
): Promise<{ newVersion: number }> {
  return rewritePostgresSession(context, 'save session state', sessionId, (state) => applySessionWrite(state, write, Date.now()), options.expectedVersion);
}

/** The fields a start's session write may set without reading the row (`saveLockedPostgresState`). */
const LOCKED_WRITE_FIELDS: ReadonlySet<string> = new Set(['stepCount', 'customState']);

/**
 * `saveState` of a session whose row the caller's transaction holds (`StartWriteOptions.sessionLocked`), for a write
 * of `stepCount` and `customState` alone (a start's `beginSessionWrite`): one UPDATE of those columns, the version
 * raised and `updated_at` now, as the rewrite would write them, without reading the row first; sent ahead where the
 * connection takes it (resolving with `newVersion` NaN: nothing read it). An unknown session refuses by error →
 * SessionNotFoundError. `undefined` for any other write: the caller rewrites the row.
 *
 * @example
 * const saved = (await saveLockedPostgresState(context, 's1', { stepCount: 0 })) ?? (await savePostgresState(context, 's1', { stepCount: 0 }));
 */
export async function saveLockedPostgresState(
  { database, tables }: PostgresContext,
  sessionId: string,
  write: SessionStateWrite,
): Promise<{ newVersion: number } | undefined> {
  assertIdentifier(sessionId, 'sessionId');
  const entries = Object.entries(write);
  if (entries.length === 0 || entries.some(([key, value]) => !LOCKED_WRITE_FIELDS.has(key) || value === undefined || value === null)) return undefined;
  const customState = write.customState === undefined ? null : toJsonText(write.customState, 'customState');
  const text = `WITH written AS (
       UPDATE ${tables.sessions}
       SET step_count = COALESCE($2::integer, step_count), custom_state = COALESCE($3::jsonb, custom_state),
           version = version + 1, updated_at = $4
       WHERE session_id = $1
       RETURNING version)
     SELECT version, 1 / (SELECT count(*)::integer FROM written) AS found FROM (SELECT 1) AS one LEFT JOIN written ON true`;
  const values = [sessionId, write.stepCount ?? null, customState, Date.now()];
  const missing = (error: unknown): unknown => (isRefusedByError(error) ? new SessionNotFoundError(sessionId) : error);
  return database.run('save session state', async (connection) => {
    if (canSendAhead(connection)) {
      await writeAhead(connection, text, values, missing);
      return { newVersion: Number.NaN };
    }
    try {
      const { rows } = await connection.query<{ version: number }>(text, values);
      return { newVersion: rows[0]?.version ?? Number.NaN };
    } catch (error) {
      throw missing(error);
    }
  });
}

/**
 * `mergeCustomState`: apply RFC 6902 patches to customState atomically.
 *
 * @example
 * await mergePostgresCustomState(context, 's1', [{ op: 'replace', path: '/count', value: 2 }]);
 */
export async function mergePostgresCustomState(context: PostgresContext, sessionId: string, patches: JsonPatchOperation[]): Promise<{ newVersion: number }> {
  if (!Array.isArray(patches)) throw new InvalidArgumentError('patches must be an array of JSON Patch operations.', { field: 'patches' });
  const copy = cloneJson(patches, 'patches');
  return rewritePostgresSession(
    context,
    'merge custom state',
    sessionId,
    (state) => applySessionWrite(state, { customState: applyCustomStatePatches(state.customState, copy) }, Date.now()),
    undefined,
    { readsCustomState: true },
  );
}

/**
 * `updateStatus`: unconditional status write with optional context.
 *
 * @example
 * await updatePostgresStatus(context, 's1', 'failed', { error: 'Tool crashed' });
 */
export async function updatePostgresStatus(
  context: PostgresContext,
  sessionId: string,
  status: SessionStatus,
  statusContext: StatusContext = {},
): Promise<void> {
  assertSessionStatus(status, 'status');
  const write = statusWrite(status, statusContext);
  await rewritePostgresSession(context, 'update session status', sessionId, (state) => applySessionWrite(state, write, Date.now()));
}

/**
 * `compareAndSetStatus` as one `UPDATE … WHERE status = ANY(…) [AND version = …] RETURNING`; concurrent
 * callers queue on the row lock and re-check the condition, so exactly one of them wins. Retry-safe: the
 * write time is fixed before the first attempt, so after an unknown outcome a row that carries the new
 * status and that exact `updated_at` is this call's own win, reported `ok: true` rather than as lost.
 * `start` (a run's start, see `StartSwapOptions`): the interrupt flag cleared in the same write; with `answerUnread`
 * and `expectedVersion` on a connection that sends ahead, the swap is sent ahead and a lost one refuses by error
 * (→ StaleStateError).
 *
 * @example
 * const result = await compareAndSetPostgresStatus(context, 's1', ['active'], 'interrupted');
 */
export async function compareAndSetPostgresStatus(
  { database, tables }: PostgresContext,
  sessionId: string,
  expectedStatuses: readonly SessionStatus[],
  newStatus: SessionStatus,
  options: CompareAndSetOptions = {},
  start: StartSwapOptions = {},
): Promise<CompareAndSetResult> {
  assertIdentifier(sessionId, 'sessionId');
  assertSessionStatus(newStatus, 'newStatus');
  const interruptContext = options.interruptContext === undefined ? null : toJsonText(options.interruptContext, 'interruptContext');
  const now = Date.now();
  const { expectedVersion } = options;
  const update = `UPDATE ${tables.sessions}
       SET status = $3, version = version + 1, updated_at = $4, error = COALESCE($5, error),
           state = CASE WHEN $6::jsonb IS NULL THEN state ELSE state || jsonb_build_object('interruptContext', $6::jsonb) END,
           interrupt_requested = CASE WHEN $8 THEN false ELSE interrupt_requested END,
           interrupt_reason = CASE WHEN $8 THEN NULL ELSE interrupt_reason END
       WHERE session_id = $1 AND status = ANY($2::text[]) AND ($7::integer IS NULL OR version = $7)
       RETURNING version`;
  const clears = start.clearsInterrupt === true;
  const values = [sessionId, [...expectedStatuses], newStatus, now, options.error ?? null, interruptContext, expectedVersion ?? null, clears];
  return database.run('compare and set session status', async (connection, attempt) => {
    if (start.answerUnread === true && expectedVersion !== undefined && canSendAhead(connection)) {
      // Nobody reads the answer before the transaction ends: a lost swap fails it (the caller asks again, reading).
      const lost = (error: unknown): unknown => (isRefusedByError(error) ? new StaleStateError(sessionId, expectedVersion, null) : error);
      await writeAhead(connection, `WITH swapped AS (${update}) SELECT 1 / (SELECT count(*)::integer FROM swapped)`, values, lost);
      return { ok: true, newVersion: expectedVersion + 1 };
    }
    const updated = await connection.query<{ version: number }>(update, values);
    const row = updated.rows[0];
    if (row !== undefined) return { ok: true, newVersion: row.version };
    const current = await connection.query<{ status: SessionStatus; version: number; updated_at: string }>(
      `SELECT status, version, updated_at FROM ${tables.sessions} WHERE session_id = $1`,
      [sessionId],
    );
    const found = current.rows[0];
    if (attempt.ambiguous && found?.status === newStatus && Number(found.updated_at) === now) return { ok: true, newVersion: found.version };
    return { ok: false, currentStatus: found?.status ?? null, currentVersion: found?.version ?? 0 };
  });
}

/**
 * Add one to `step_count` or `resume_count` in a single UPDATE; returns the new value. Retry-safe: after
 * an unknown outcome, a row whose `updated_at` is this call's write time already holds the increment, and
 * its value is returned without adding one again.
 *
 * @example
 * const resumeCount = await incrementPostgresCounter(context, 's1', 'resume_count');
 */
export async function incrementPostgresCounter(
  { database, tables }: PostgresContext,
  sessionId: string,
  column: 'step_count' | 'resume_count',
): Promise<number> {
  assertIdentifier(sessionId, 'sessionId');
  const now = Date.now();
  const row = await database.run('increment a session counter', async (connection, attempt) => {
    if (attempt.ambiguous) {
      const applied = await connection.query<{ value: number }>(`SELECT ${column} AS value FROM ${tables.sessions} WHERE session_id = $1 AND updated_at = $2`, [
        sessionId,
        now,
      ]);
      if (applied.rows[0] !== undefined) return applied.rows[0];
    }
    const result = await connection.query<{ value: number }>(
      `UPDATE ${tables.sessions} SET ${column} = ${column} + 1, version = version + 1, updated_at = $2
       WHERE session_id = $1 RETURNING ${column} AS value`,
      [sessionId, now],
    );
    return result.rows[0];
  });
  if (row === undefined) throw new SessionNotFoundError(sessionId);
  return row.value;
}

/**
 * Merge keys into metadata in one UPDATE (`null` deletes a key), so concurrent patches all survive.
 * Idempotent (a repeat only bumps the version again), so it is retried blindly.
 *
 * @example
 * await patchPostgresMetadata(context, 's1', { dbosWorkflowId: 'wf-1' });
 */
export async function patchPostgresMetadata({ database, tables }: PostgresContext, sessionId: string, patch: Record<string, string | null>): Promise<void> {
  assertIdentifier(sessionId, 'sessionId');
  assertMetadataPatch(patch);
  const removed = Object.keys(patch).filter((key) => patch[key] === null);
  const set = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== null));
  const result = await database.run('patch session metadata', (connection) =>
    connection.query(
      `UPDATE ${tables.sessions}
       SET metadata = (COALESCE(metadata, '{}'::jsonb) - $2::text[]) || $3::jsonb, version = version + 1, updated_at = $4
       WHERE session_id = $1`,
      [sessionId, removed, toJsonText(set, 'metadata'), Date.now()],
    ),
  );
  if (result.rowCount !== 1) throw new SessionNotFoundError(sessionId);
}
