import { canSendAhead, isRefusedByError, writeAhead } from '../../database/send-ahead.js';
import { InvalidArgumentError, SessionNotFoundError } from '../../errors/index.js';
import type { CreateRunInput, RunRecord, RunStatus } from '../../types/session.js';
import { toJsonText } from '../../database/json.js';
import { buildRunRecord, type RunPatch } from '../record-updates.js';
import { assertIdentifier } from '../validation.js';
import { toNumber, type PostgresContext, type SqlConnection } from './database.js';
import type { StoreTables } from './tables.js';
import { lockMessageCount } from './session-lock.js';
import type { StartWriteOptions } from '../step-records.js';
import { OPEN_CALL_SQL } from './session-list.js';

/** A row of `__agents_runs` (bigint columns as strings, or as numbers when read through `row_to_json`). */
export interface RunRow {
  session_id: string;
  run_id: string;
  turn: number;
  status: RunStatus;
  step_count: number;
  start_sequence: string | number;
  previous_run_id: string | null;
  workflow_id: string | null;
  completion_reason: RunRecord['completionReason'] | null;
  error: string | null;
  metadata: Record<string, unknown> | null;
  started_at: string | number;
  ended_at: string | number | null;
}

/**
 * The RunRecord a `__agents_runs` row holds.
 *
 * @example
 * const run = runFromRow(result.rows[0]);
 */
export function runFromRow(row: RunRow): RunRecord {
  const run: RunRecord = {
    runId: row.run_id,
    sessionId: row.session_id,
    turn: row.turn,
    status: row.status,
    stepCount: row.step_count,
    startSequence: toNumber(row.start_sequence) ?? 0,
    startedAt: toNumber(row.started_at) ?? 0,
  };
  if (row.previous_run_id !== null) run.previousRunId = row.previous_run_id;
  if (row.workflow_id !== null) run.workflowId = row.workflow_id;
  if (row.completion_reason !== null) run.completionReason = row.completion_reason;
  if (row.error !== null) run.error = row.error;
  if (row.metadata !== null) run.metadata = row.metadata;
  if (row.ended_at !== null) run.endedAt = toNumber(row.ended_at);
  return run;
}

/**
 * `createRun`: under the session lock, return the existing run with this id or insert the next
 * contiguous turn.
 *
 * @example
 * const run = await createPostgresRun(context, 's1', { runId: 'r1', status: 'running', stepCount: 0, startSequence: 0, startedAt: Date.now() });
 */
export async function createPostgresRun(
  { database, tables }: PostgresContext,
  sessionId: string,
  input: CreateRunInput,
  options: StartWriteOptions = {},
): Promise<RunRecord> {
  assertIdentifier(sessionId, 'sessionId');
  assertIdentifier(input.runId, 'runId');
  return database.transaction('create a run', async (connection) => {
    // The caller holds the session's row and knows the turn to expect: inserted without a lookup (sent ahead).
    if (options.sessionCreatedHere !== true && options.sessionLocked === true && options.expectedTurn !== undefined) {
      const run = buildRunRecord(sessionId, input, options.expectedTurn);
      await insertRunAtExpectedTurn(connection, tables, run);
      return run;
    }
    let turn = 1;
    // A session this transaction created has no run yet, and its row is this transaction's.
    if (options.sessionCreatedHere !== true) {
      if (options.sessionLocked !== true) await lockMessageCount(connection, tables, sessionId);
      const found = await connection.query<RunRow & { max_turn: number | null }>(
        `SELECT (SELECT MAX(turn) FROM ${tables.runs} WHERE session_id = $1) AS max_turn, run.*
         FROM (SELECT 1) AS one LEFT JOIN ${tables.runs} AS run ON run.session_id = $1 AND run.run_id = $2`,
        [sessionId, input.runId],
      );
      const row = found.rows[0];
      if (row !== undefined && row.run_id !== null) return runFromRow(row);
      turn = (row?.max_turn ?? 0) + 1;
    }
    const run = buildRunRecord(sessionId, input, turn);
    await writeAhead(connection, `INSERT INTO ${tables.runs} (${RUN_COLUMNS}) VALUES (${RUN_PLACEHOLDERS})`, runValues(run));
    return run;
  });
}

const RUN_COLUMNS = `session_id, run_id, turn, status, step_count, start_sequence, previous_run_id, workflow_id,
         completion_reason, error, metadata, started_at, ended_at`;
const RUN_PLACEHOLDERS = '$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13';

function runValues(run: RunRecord): unknown[] {
  return [
    run.sessionId,
    run.runId,
    run.turn,
    run.status,
    run.stepCount,
    run.startSequence,
    run.previousRunId ?? null,
    run.workflowId ?? null,
    run.completionReason ?? null,
    run.error ?? null,
    run.metadata === undefined ? null : toJsonText(run.metadata, 'run.metadata'),
    run.startedAt,
    run.endedAt ?? null,
  ];
}

/**
 * Insert `run` at its turn, expected to be the session's next (`StartWriteOptions.expectedTurn`), in one statement sent
 * ahead: a run already stored under its id at that turn is left as it is (a repeated start's); another next turn, or
 * its id taken at another turn, refuses by error (division by zero) → InvalidArgumentError for `expectedTurn`.
 */
async function insertRunAtExpectedTurn(connection: SqlConnection, tables: StoreTables, run: RunRecord): Promise<void> {
  const text = `WITH next AS (
       SELECT COALESCE(MAX(turn), 0) + 1 AS turn, COALESCE(bool_or(run_id = $2), false) AS taken,
         COALESCE(bool_or(run_id = $2 AND turn = $3), false) AS stored
       FROM ${tables.runs} WHERE session_id = $1),
     inserted AS (
       INSERT INTO ${tables.runs} (${RUN_COLUMNS})
       SELECT ${RUN_PLACEHOLDERS} FROM next WHERE NOT next.taken AND next.turn = $3
       RETURNING 1)
     SELECT 1 / ((SELECT count(*)::integer FROM inserted) + (SELECT stored::integer FROM next))`;
  const refused = (error: unknown): unknown => (isRefusedByError(error) ? unexpectedTurnError(run.turn) : error);
  await writeAhead(connection, text, runValues(run), refused);
}

function unexpectedTurnError(expectedTurn: number): InvalidArgumentError {
  return new InvalidArgumentError(
    "options.expectedTurn is not the session's next turn (its latest run changed since it was read); read the session's current run again.",
    { field: 'expectedTurn', expectedTurn },
  );
}

/**
 * `updateRunStatus` as one UPDATE (undefined patch fields keep their value; `running` clears the outcome fields); with
 * `from`, only while the run's status is one of them (`compareAndSetRunStatus`). True when the run was written. Without
 * `from`, on a connection that sends writes ahead, it is sent ahead: an unknown run then fails the transaction.
 *
 * @example
 * await updatePostgresRunStatus(context, 's1', 'r1', 'completed', { endedAt: Date.now(), completionReason: 'finish_tool' });
 */
export async function updatePostgresRunStatus(
  { database, tables }: PostgresContext,
  sessionId: string,
  runId: string,
  status: RunStatus,
  patch: RunPatch = {},
  from?: readonly RunStatus[],
): Promise<boolean> {
  assertIdentifier(sessionId, 'sessionId');
  assertIdentifier(runId, 'runId');
  const metadata = patch.metadata === undefined ? null : toJsonText(patch.metadata, 'run.metadata');
  // A run running (again: a resumed cancelled workflow) has no outcome yet: its outcome fields are cleared.
  const update = `UPDATE ${tables.runs} SET status = $3, step_count = COALESCE($4, step_count),
         completion_reason = CASE WHEN $3 = 'running' THEN $5 ELSE COALESCE($5, completion_reason) END,
         error = CASE WHEN $3 = 'running' THEN $6 ELSE COALESCE($6, error) END,
         ended_at = CASE WHEN $3 = 'running' THEN $7 ELSE COALESCE($7, ended_at) END, metadata = COALESCE($8::jsonb, metadata),
         workflow_id = COALESCE($9, workflow_id)
       WHERE session_id = $1 AND run_id = $2 AND ($10::text[] IS NULL OR status = ANY($10::text[]))`;
  const values = [
    sessionId,
    runId,
    status,
    patch.stepCount ?? null,
    patch.completionReason ?? null,
    patch.error ?? null,
    patch.endedAt ?? null,
    metadata,
    patch.workflowId ?? null,
    from === undefined ? null : [...from],
  ];
  return database.run('update a run', async (connection) => {
    if (from === undefined && canSendAhead(connection)) {
      // Sent ahead (a pipelined transaction): a run that is not there refuses by error (division by zero), failing it.
      const refused = (error: unknown): unknown => (isRefusedByError(error) ? unknownRunError() : error);
      await writeAhead(connection, `WITH updated AS (${update} RETURNING 1) SELECT 1 / (SELECT count(*)::integer FROM updated)`, values, refused);
      return true;
    }
    const result = await connection.query(update, values);
    if (result.rowCount === 1) return true;
    if (from !== undefined) {
      const run = await connection.query(`SELECT 1 FROM ${tables.runs} WHERE session_id = $1 AND run_id = $2`, [sessionId, runId]);
      if (run.rowCount === 1) return false;
    }
    const session = await connection.query(`SELECT 1 FROM ${tables.sessions} WHERE session_id = $1`, [sessionId]);
    if (session.rowCount !== 1) throw new SessionNotFoundError(sessionId);
    throw unknownRunError();
  });
}

function unknownRunError(): InvalidArgumentError {
  return new InvalidArgumentError('runId does not name a run of this session; create it with createRun first.', { field: 'runId' });
}

/**
 * Runs of a session, in turn order; `latestOnly` returns just the highest turn.
 *
 * @example
 * const runs = await readPostgresRuns(context, 's1', { latestOnly: true });
 */
export async function readPostgresRuns(
  { database, tables }: PostgresContext,
  sessionId: string,
  filter: { latestOnly?: boolean; runId?: string } = {},
): Promise<RunRecord[]> {
  assertIdentifier(sessionId, 'sessionId');
  const sql =
    filter.latestOnly === true
      ? `SELECT * FROM ${tables.runs} WHERE session_id = $1 ORDER BY turn DESC LIMIT 1`
      : `SELECT * FROM ${tables.runs} WHERE session_id = $1 AND ($2::text IS NULL OR run_id = $2) ORDER BY turn`;
  const parameters = filter.latestOnly === true ? [sessionId] : [sessionId, filter.runId ?? null];
  const rows = await database.run('read runs', async (connection) => (await connection.query<RunRow>(sql, parameters)).rows);
  return rows.map(runFromRow);
}

/** A session row's `state` may await a human (as `mayAwaitHuman` in open-calls.ts): an open call, or an owned one not completed. */
const MAY_AWAIT_HUMAN_SQL = `(${OPEN_CALL_SQL}
  OR (jsonb_typeof(s.state->'clientToolCallOwnership') = 'object'
    AND EXISTS (SELECT 1 FROM jsonb_each_text(s.state->'clientToolCallOwnership') AS owned(call_id, owner)
      WHERE owned.owner <> s.session_id AND NOT (COALESCE(s.state->'completedClientToolCalls', '{}'::jsonb) ? owned.call_id))))`;

/**
 * `runsWaitingOrAborted`: of `runs`, those recorded `aborted`, and the `running` ones whose session may await a human;
 * one statement for all of them.
 *
 * @example
 * const look = await postgresRunsWaitingOrAborted(context, [{ sessionId: 's1', runId: 'r1' }]);
 */
export async function postgresRunsWaitingOrAborted(
  { database, tables }: PostgresContext,
  runs: ReadonlyArray<{ sessionId: string; runId: string }>,
): Promise<string[]> {
  if (runs.length === 0) return [];
  const sql = `SELECT r.run_id FROM unnest($1::text[], $2::text[]) AS asked(session_id, run_id)
    JOIN ${tables.runs} AS r ON r.session_id = asked.session_id AND r.run_id = asked.run_id
    JOIN ${tables.sessions} AS s ON s.session_id = r.session_id
    WHERE r.status = 'aborted' OR (r.status = 'running' AND ${MAY_AWAIT_HUMAN_SQL})`;
  const parameters = [runs.map((run) => run.sessionId), runs.map((run) => run.runId)];
  const result = await database.run('read runs waiting or aborted', (connection) => connection.query<{ run_id: string }>(sql, parameters));
  return result.rows.map((row) => row.run_id);
}
