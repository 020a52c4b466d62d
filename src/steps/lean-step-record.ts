import { currentOwnerXid } from '@dbos-inc/dbos-sdk/internal/context';
import type { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { DBOSStepNondeterminismError, DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/internal/error';
import { withDbRetry } from '@dbos-inc/dbos-sdk/internal/system_database';
import { createHash } from 'node:crypto';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';
import { enterPipelineMode, type SendAheadConnection } from '../database/send-ahead.js';
import { transientPostgresCondition } from '../database/transient-postgres-error.js';
import type { SqlConnection } from '../store/postgres/database.js';
import { heldAsCtes, type DeferringConnection } from '../store/postgres/statement-batch.js';
import type { RecordWrite } from './step-record.js';

/** DBOS 5.3's system database, as the lean step's record uses it. */
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
): Promise<void> {
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
  // Refused by error: a refusal (no owner, another completion time) fails the statement itself (division by zero), so a
  // COMMIT sent right behind it (pipelined) rolls back instead of committing the held writes without their record.
  const main = options.refuseByError
    ? `recorded AS (${insert})
     SELECT recorded.completed_at_epoch_ms, 1 / (CASE WHEN recorded.completed_at_epoch_ms = ${shift('$6')} THEN 1 ELSE 0 END) AS accepted
     FROM (SELECT 1) AS one LEFT JOIN recorded ON true`
    : insert;
  const text = `WITH ${carried === undefined ? '' : `${carried.ctes.join(', ')}, `}owner AS (
       SELECT 1 FROM "${schema}".workflow_status WHERE workflow_uuid = ${shift('$1')} AND (${shift('$9')}::text IS NULL OR owner_xid = ${shift('$9')}) FOR NO KEY UPDATE
     )${options.refuseByError ? ', ' : '\n     '}${main}`;
  const values = [...(held?.values ?? []), step.workflowID, step.functionID, step.output, step.name, step.startedAt, step.endedAt, step.serialization, database.appName ?? null, ownerXid];
  let result: { rows: Array<{ completed_at_epoch_ms: string | number }> };
  try {
    result = await queryable.query<{ completed_at_epoch_ms: string | number }>(text, values);
  } catch (error) {
    if (options.refuseByError && (error as { code?: unknown }).code === DIVISION_BY_ZERO) throw new StepRecordRefused();
    throw error;
  }
  const row = result.rows[0];
  if (row === undefined) throw new DBOSWorkflowConflictError(step.workflowID);
  if (Number(row.completed_at_epoch_ms) !== step.endedAt) throw new DBOSStepNondeterminismError(step.workflowID, step.functionID);
}

/**
 * A lost connection in the words DBOS's `withDbRetry` retries: pipelined statements meet a dead socket as `EPIPE`
 * (written before the failure is noticed), which DBOS does not count as a lost connection. The transaction is
 * retried whole (its writes are idempotent, its record carries one completion time).
 */
function retriedAsLostConnection(error: unknown): unknown {
  const condition = transientPostgresCondition(error);
  if (condition === undefined || /^\d/.test(condition)) return error; // SQLSTATEs (all digits first here): DBOS decides as before
  return new Error(`Connection terminated unexpectedly (${condition})`, { cause: error });
}

/** SQLSTATE of the refusal a `refuseByError` record raises. */
const DIVISION_BY_ZERO = '22012';

/** A `refuseByError` record refused (its transaction is rolled back): {@link explainRefusal} tells which refusal. */
class StepRecordRefused extends Error {
  constructor() {
    super('The step record was refused.');
  }
}

/**
 * After a refused record's transaction rolled back: DBOS's error for it — the step already has a row with another
 * completion time (nondeterminism), else the workflow is not ours (conflict).
 */
async function explainRefusal(queryable: SqlConnection, database: Pick<SystemDatabase, 'schemaName'>, step: StepRecordRow): Promise<Error> {
  const { rows } = await queryable.query<{ completed_at_epoch_ms: string | number }>(
    `SELECT completed_at_epoch_ms FROM "${database.schemaName}".operation_outputs WHERE workflow_uuid = $1 AND function_id = $2`,
    [step.workflowID, step.functionID],
  );
  const recorded = rows[0];
  return recorded !== undefined && Number(recorded.completed_at_epoch_ms) !== step.endedAt
    ? new DBOSStepNondeterminismError(step.workflowID, step.functionID)
    : new DBOSWorkflowConflictError(step.workflowID);
}

/** Data-modifying statements held for a step's record statement (see `DeferringConnection`). */
export interface HeldWrites {
  statements: string[];
  values: unknown[];
}

/**
 * The record transaction's connection: a write batch handed over (`deferWrites`) is held for the next statement —
 * the record's, when the batch is the transaction's last write (a step commit) — and run on its own before any other.
 * With `send` (pipeline mode), statements can also be sent ahead (`sendAhead`): `send` collects their answers.
 */
function holdingConnection(
  inner: SqlConnection,
  send?: (answer: Promise<unknown>) => void,
): DeferringConnection & Partial<SendAheadConnection> & { take(): HeldWrites | undefined } {
  let held: HeldWrites | undefined;
  const runHeld = async (): Promise<void> => {
    if (held === undefined) return;
    const { statements, values } = held;
    held = undefined;
    await inner.query(`WITH ${heldAsCtes(statements, values, 'held').ctes.join(', ')} SELECT 1`, values);
  };
  const connection = {
    query: async <R extends QueryResultRow>(text: string, values?: unknown[]) => {
      await runHeld();
      return inner.query<R>(text, values);
    },
    deferWrites: async (statements: string[], values: unknown[]) => {
      await runHeld();
      held = { statements, values };
    },
    take: () => {
      const taken = held;
      held = undefined;
      return taken;
    },
  };
  if (send === undefined) return connection;
  return {
    ...connection,
    sendAhead: async (text: string, values: unknown[], check: (result: QueryResult<QueryResultRow>) => void) => {
      await runHeld();
      send(inner.query(text, values).then(check));
    },
  };
}

/**
 * The deferred writes and the step's record in one READ COMMITTED transaction on DBOS's pool, retried whole through
 * connection failures (the deferred writes are idempotent; the record carries one completion time). In node-postgres
 * pipeline mode the transaction takes two round trips whatever its writes: BEGIN and the statements sent ahead (a
 * chunk append) go out with the first statement that is read (a step commit's locked read), and the record goes out
 * with the COMMIT (the record refuses by error, so that COMMIT then rolls back).
 *
 * @example
 * await recordWithWrites(database, writes, step);
 */
export async function recordWithWrites(database: SystemDatabase, writes: readonly RecordWrite[], step: StepRecordRow): Promise<void> {
  await withDbRetry(async () => {
    // DBOS's checkout guards the client's 'error' event (a backend terminated between statements must not crash).
    const client = await database.connect();
    const leavePipeline = enterPipelineMode(client);
    const outstanding: Promise<unknown>[] = [];
    const send = (answer: Promise<unknown>): void => {
      outstanding.push(answer);
      answer.catch(() => undefined); // awaited below; never unhandled meanwhile
    };
    try {
      const begin = client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
      if (leavePipeline === undefined) await begin;
      else send(begin);
      const prepared = preparedStatements(client);
      // The last write batch (a step commit's) rides in the record's statement: one round trip fewer.
      const connection = holdingConnection(prepared, leavePipeline === undefined ? undefined : send);
      for (const write of writes) await write.within(connection);
      for (const answer of outstanding) await answer; // in order: the first failure is the one to report
      if (leavePipeline === undefined) {
        await recordStepRow(prepared, database, step, connection.take());
        await client.query('COMMIT');
      } else {
        const recorded = recordStepRow(prepared, database, step, connection.take(), { refuseByError: true });
        send(recorded);
        const committed = client.query('COMMIT');
        send(committed);
        await recorded;
        await committed;
      }
    } catch (error) {
      await Promise.allSettled(outstanding);
      await client.query('ROLLBACK').catch(() => undefined);
      if (error instanceof StepRecordRefused) throw await explainRefusal(client, database, step);
      throw retriedAsLostConnection(error);
    } finally {
      leavePipeline?.();
      client.release();
    }
  });
}

/**
 * `client` running every statement as a named prepared statement (named by the md5 of its text, so one text is
 * parsed and planned once per connection, not on every step): the step's statements repeat with new values only.
 *
 * @example
 * await write.within(preparedStatements(client));
 */
export function preparedStatements(client: PoolClient): SqlConnection {
  return {
    query: <R extends QueryResultRow>(text: string, values?: unknown[]) =>
      client.query<R>({ name: `helix_${createHash('md5').update(text).digest('hex')}`, text, ...(values === undefined ? {} : { values }) }),
  };
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
    for (const write of pending) write.committed?.();
  } catch {
    await client.query('ROLLBACK').catch(() => undefined);
    for (const write of pending) write.abandoned?.();
  } finally {
    client.release();
  }
}
