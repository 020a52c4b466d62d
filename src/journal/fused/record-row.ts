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
  // Refused by error: a refusal (no owner, another completion time) fails the statement itself (division by zero), so a
  // COMMIT sent right behind it (pipelined) rolls back instead of committing the held writes without their record.
  // The held writes' guards hold too, else the same refusal. It also reads the transaction's id for the writes.
  const main = options.refuseByError
    ? `recorded AS (${insert})
     SELECT recorded.completed_at_epoch_ms, pg_current_xact_id()::xid::text AS transaction_id,
       1 / (CASE WHEN recorded.completed_at_epoch_ms = ${shift(endedAt)} AND ${guardsHeld(held?.guards ?? [], 'held')} THEN 1 ELSE 0 END) AS accepted
     FROM (SELECT 1) AS one LEFT JOIN recorded ON true`
    : insert;
  const text = `WITH ${carried === undefined ? '' : `${carried.ctes.join(', ')}, `}owner AS (
       SELECT 1 FROM "${schema}".workflow_status WHERE workflow_uuid = ${shift('$1')} AND (${shift(ownerXidAt)}::text IS NULL OR owner_xid = ${shift(ownerXidAt)}) FOR NO KEY UPDATE
     )${options.refuseByError ? ', ' : '\n     '}${main}`;
  const own = [step.workflowID, step.functionID, step.output, step.name, step.startedAt, step.endedAt, step.serialization, database.appName ?? null, ownerXid];
  const values = [...(held?.values ?? []), ...own];
  let result: { rows: Array<{ completed_at_epoch_ms: string | number; transaction_id?: string }> };
  if (held?.guards !== undefined && held.guards.length > 0 && !options.refuseByError) {
    throw new InternalError('Held writes with guards need a record that refuses by error; pass refuseByError with them.');
  }
  try {
    result = await queryable.query<{ completed_at_epoch_ms: string | number; transaction_id?: string }>(text, values);
  } catch (error) {
    if (options.refuseByError && isRefusedByError(error)) throw new StepRecordRefused();
    throw error;
  }
  const row = result.rows[0];
  if (row === undefined) throw new DBOSWorkflowConflictError(step.workflowID);
  if (Number(row.completed_at_epoch_ms) !== step.endedAt) throw new DBOSStepNondeterminismError(step.workflowID, step.functionID);
  return row.transaction_id;
}

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
