import { currentOwnerXid } from '@dbos-inc/dbos-sdk/internal/context';
import type { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { DBOSStepNondeterminismError, DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/internal/error';
import type { SqlConnection } from '../../store/postgres/database.js';
import { isRefusedByError } from '../../database/send-ahead.js';
import { guardsHeld, heldAsCtes } from '../../store/postgres/statement-batch.js';
import type { RecordWrite } from '../step-record.js';
import type { HeldWrites } from '../pipelined-transaction.js';
import { InternalError } from '../../errors/index.js';

/** DBOS 5.3's system database, as the fused journal's record uses it. */
export type SystemDatabase = DBOSExecutor['systemDatabase'];

/**
 * One step's record: DBOS's `operation_outputs` row, exactly as `recordOperationResult` writes it.
 *
 * @example
 * const step: StepRecordRow = { workflowID, functionID, name: 'CallLLMStep', startedAt, endedAt, output, serialization };
 */
export interface StepRecordRow {
  workflowID: string;
  functionID: number;
  name: string;
  startedAt: number;
  endedAt: number;
  output: string | null;
  serialization: string | null;
  /** The workflow ends with this step: DBOS's end of the workflow is written by the same statement (see `WorkflowEnd`). */
  end?: WorkflowEnd;
}

/**
 * DBOS's end of a workflow (its status SUCCESS, its output row), written with the step whose output is the workflow's
 * result, as DBOS's `recordWorkflowOutput` writes it. `written`: the statement that recorded the step wrote it too.
 *
 * @example
 * const end: WorkflowEnd = { output: '{"json":{"status":"completed"}}', written: false };
 */
export interface WorkflowEnd {
  output: string | null;
  written: boolean;
}

/**
 * Record a step's output in ONE statement (DBOS takes four round trips: BEGIN, the owner check, the insert, COMMIT):
 * the insert reads the workflow's row `FOR NO KEY UPDATE` with DBOS's owner condition in the same statement, so the
 * lock is held until the row commits, as DBOS's own check holds it. No row: another executor owns the workflow
 * (`DBOSWorkflowConflictError`). An existing row with another completion time: nondeterminism, as DBOS reports it
 * (a retry of this record carries the same time, so a lost reply re-sent is no conflict). On `queryable` (a pool:
 * its own transaction; a client inside a transaction: part of it).
 *
 * @example
 * await recordStepRow(database.pool, database, step);
 */
export async function recordStepRow(
  queryable: SqlConnection,
  database: Pick<SystemDatabase, 'schemaName' | 'appName'>,
  step: StepRecordRow,
  held?: HeldWrites,
  options: { refuseByError?: boolean } = {},
): Promise<string | undefined> {
  const schema = database.schemaName;
  const ownerXid = currentOwnerXid(step.workflowID) ?? null;
  // Writes held for this statement (a step commit's write batch) run as its first CTEs: executed with the insert, in
  // the same transaction, rolled back with it when the owner check fails.
  const carried = held === undefined || held.statements.length === 0 ? undefined : heldAsCtes(held.statements, held.values, 'held');
  const shift = carried?.shift ?? ((text: string) => text);
  const insert = `INSERT INTO "${schema}".operation_outputs
       (workflow_uuid, function_id, output, error, function_name, child_workflow_id, started_at_epoch_ms, completed_at_epoch_ms, serialization, application_name, retention_timestamp)
     SELECT ${shift('$1, $2, $3')}, NULL, ${shift('$4')}, NULL, ${shift('$5, $6, $7, $8')}, (EXTRACT(EPOCH FROM now()) * 1000)::bigint FROM owner
     ON CONFLICT (workflow_uuid, function_id) DO UPDATE SET completed_at_epoch_ms = operation_outputs.completed_at_epoch_ms
     RETURNING completed_at_epoch_ms`;
  const endedAt = '$6';
  const ownerXidAt = '$9';
  const ownerHeld = `(${shift(ownerXidAt)}::text IS NULL OR owner_xid = ${shift(ownerXidAt)})`;
  // DBOS's end of the workflow, when the step ends it: the status DBOS's `recordWorkflowOutcome` writes (same owner
  // condition) and the output row, only once the step's row is the one this statement recorded.
  const ends = step.end === undefined ? '' : `, ended AS (
       UPDATE "${schema}".workflow_status SET status = 'SUCCESS', updated_at = ${NOW_MS}, deduplication_id = NULL,
         completed_at = ${NOW_MS}, owner_xid = NULL
       WHERE workflow_uuid = ${shift('$1')} AND status = 'PENDING' AND ${ownerHeld}
         AND EXISTS (SELECT 1 FROM recorded WHERE completed_at_epoch_ms = ${shift(endedAt)})
       RETURNING workflow_uuid
     ), output AS (
       INSERT INTO "${schema}".workflow_output (workflow_uuid, output, error) SELECT workflow_uuid, ${shift('$10')}, NULL FROM ended
       ON CONFLICT (workflow_uuid) DO UPDATE SET output = EXCLUDED.output, error = EXCLUDED.error RETURNING 1
     )`;
  // Refused by error: a refusal (no owner, another completion time) fails the statement itself (division by zero), so a
  // COMMIT sent right behind it (pipelined) rolls back instead of committing the held writes without their record.
  // The held writes' guards hold too, else the same refusal. It also reads the transaction's id for the writes.
  const accepted = options.refuseByError
    ? `, 1 / (CASE WHEN recorded.completed_at_epoch_ms = ${shift(endedAt)} AND ${guardsHeld(held?.guards ?? [], 'held')}
       THEN 1 ELSE 0 END) AS accepted`
    : '';
  const main =
    options.refuseByError || step.end !== undefined
      ? `recorded AS (${insert})${ends}
     SELECT recorded.completed_at_epoch_ms, pg_current_xact_id()::xid::text AS transaction_id${accepted}${
       step.end === undefined ? '' : ', (SELECT count(*) FROM output) AS ended'
     }
     FROM (SELECT 1) AS one LEFT JOIN recorded ON true`
      : insert;
  const text = `WITH ${carried === undefined ? '' : `${carried.ctes.join(', ')}, `}owner AS (
       SELECT 1 FROM "${schema}".workflow_status WHERE workflow_uuid = ${shift('$1')} AND ${ownerHeld} FOR NO KEY UPDATE
     )${main === insert ? '\n     ' : ', '}${main}`;
  const own = [step.workflowID, step.functionID, step.output, step.name, step.startedAt, step.endedAt, step.serialization, database.appName ?? null, ownerXid];
  const values = [...(held?.values ?? []), ...own, ...(step.end === undefined ? [] : [step.end.output])];
  let result: { rows: RecordedRow[] };
  if (held?.guards !== undefined && held.guards.length > 0 && !options.refuseByError) {
    throw new InternalError('Held writes with guards need a record that refuses by error; pass refuseByError with them.');
  }
  try {
    result = await queryable.query<RecordedRow>(text, values);
  } catch (error) {
    if (options.refuseByError && isRefusedByError(error)) throw new StepRecordRefused();
    throw error;
  }
  const row = result.rows[0];
  if (row === undefined || row.completed_at_epoch_ms === null) throw new DBOSWorkflowConflictError(step.workflowID);
  if (Number(row.completed_at_epoch_ms) !== step.endedAt) throw new DBOSStepNondeterminismError(step.workflowID, step.functionID);
  if (step.end !== undefined) step.end.written = Number(row.ended) === 1;
  return row.transaction_id;
}

/** What the record statement answers. */
interface RecordedRow {
  /** Null when nothing was recorded (no owner), in the statement's SELECT form. */
  completed_at_epoch_ms: string | number | null;
  transaction_id?: string;
  /** Output rows written for the workflow's end (1 or 0), when the step ends its workflow. */
  ended?: string | number;
}

/** Milliseconds since the epoch, as DBOS writes its timestamps (one clock for the whole statement). */
const NOW_MS = '(EXTRACT(EPOCH FROM now()) * 1000)::bigint';

/**
 * A `refuseByError` record refused, its transaction rolled back: no owner, another completion time, or a failed guard
 * of its held writes (the record transaction tells them apart).
 *
 * @example
 * if (error instanceof StepRecordRefused) throw await explainRefusal(client, database, step);
 */
export class StepRecordRefused extends Error {
  constructor() {
    super('The step record was refused.');
  }
}

/**
 * A failed step's deferred writes in their own transaction (best effort: the step's error is what matters); what
 * cannot be written is handed back (`abandoned`).
 *
 * @example
 * await writeAlone(database, writes);
 */
export async function writeAlone(database: Pick<SystemDatabase, 'connect'>, writes: RecordWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const pending = writes.splice(0);
  const client = await database.connect().catch(() => undefined);
  if (client === undefined) {
    for (const write of pending) write.abandoned?.();
    return;
  }
  try {
    await client.query('BEGIN');
    for (const write of pending) await write.within(client);
    await client.query('COMMIT');
    for (const write of pending) write.committed?.({});
  } catch {
    await client.query('ROLLBACK').catch(() => undefined);
    for (const write of pending) write.abandoned?.();
  } finally {
    client.release();
  }
}
