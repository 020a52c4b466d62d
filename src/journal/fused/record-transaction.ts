import { DBOSStepNondeterminismError, DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/internal/error';
import { withDbRetry } from '@dbos-inc/dbos-sdk/internal/system_database';
import type { QueryResult, QueryResultRow } from 'pg';
import { enterPipelineMode, type SendAheadConnection } from '../../database/send-ahead.js';
import { transientPostgresCondition } from '../../database/transient-postgres-error.js';
import type { SqlConnection } from '../../store/postgres/database.js';
import { guardsHold, heldAsCtes, type DeferringConnection } from '../../store/postgres/statement-batch.js';
import { preparedStatements, recordStepRow, StepRecordRefused, type HeldWrites, type StepRecordRow, type SystemDatabase } from './record-row.js';
import type { RecordOutcome, RecordWrite } from '../step-record.js';

/**
 * The deferred writes and the step's record in one READ COMMITTED transaction on DBOS's pool, retried whole through
 * connection failures (the deferred writes are idempotent; the record carries one completion time). In node-postgres
 * pipeline mode nothing waits for an answer it does not read: BEGIN and the statements sent ahead (a chunk append) go
 * out with the first statement that is read (a step commit's locked read), and the record (which refuses by error, so
 * the COMMIT behind it then rolls back) with the COMMIT — two round trips, or one when no write reads anything (an
 * optimistic step commit). A previous step's row left to this record (`carried`) is written in it too. An attempt
 * whose guards failed (what it was computed from changed) runs once more, and its writes then read first (they were
 * told, see `DeferringConnection.enforcesGuards`).
 *
 * @example
 * const { transactionId } = await recordWithWrites(database, writes, step);
 */
export async function recordWithWrites(
  database: SystemDatabase,
  writes: readonly RecordWrite[],
  step: StepRecordRow,
  carried?: StepRecordRow,
): Promise<RecordOutcome> {
  return withDbRetry(async () => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await recordOnce(database, writes, step, carried);
      } catch (error) {
        if (attempt === 1 && error instanceof GuardedAttemptFailed) continue;
        throw error instanceof GuardedAttemptFailed ? error.cause : error;
      }
    }
  });
}

/** An attempt with guarded (optimistic) writes failed with `cause`: the next attempt reads first. */
class GuardedAttemptFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('An optimistic step record failed.');
  }
}

async function recordOnce(database: SystemDatabase, writes: readonly RecordWrite[], step: StepRecordRow, carried?: StepRecordRow): Promise<RecordOutcome> {
  // DBOS's checkout guards the client's 'error' event (a backend terminated between statements must not crash).
  const client = await database.connect();
  const leavePipeline = enterPipelineMode(client);
  const outstanding: Promise<unknown>[] = [];
  const send = <T>(answer: Promise<T>): Promise<T> => {
    outstanding.push(answer);
    answer.catch(() => undefined); // awaited below, in order; never unhandled meanwhile
    return answer;
  };
  let connection: ReturnType<typeof holdingConnection> | undefined;
  try {
    const begin = client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    if (leavePipeline === undefined) await begin;
    else void send(begin);
    const prepared = preparedStatements(client);
    // A previous step's row left to this record goes first (sent ahead, refused by error as the record is).
    if (carried !== undefined) {
      if (leavePipeline === undefined) await recordStepRow(prepared, database, carried);
      else void send(recordStepRow(prepared, database, carried, undefined, { refuseByError: true }));
    }
    // The last write batch (a step commit's) rides in the record's statement: one round trip fewer.
    connection = holdingConnection(prepared, leavePipeline === undefined ? undefined : send);
    for (const write of writes) await write.within(connection);
    const held = connection.take();
    if (leavePipeline === undefined) {
      const transactionId = await recordStepRow(prepared, database, step, held);
      await client.query('COMMIT');
      return transactionId === undefined ? {} : { transactionId };
    }
    const recorded = send(recordStepRow(prepared, database, step, held, { refuseByError: true }));
    void send(client.query('COMMIT'));
    for (const answer of outstanding) await answer; // in order: the first failure is the one to report
    const transactionId = await recorded;
    return transactionId === undefined ? {} : { transactionId };
  } catch (error) {
    await Promise.allSettled(outstanding);
    await client.query('ROLLBACK').catch(() => undefined);
    if (connection?.guarded() === true && transientPostgresCondition(error) === undefined) throw new GuardedAttemptFailed(error);
    if (error instanceof StepRecordRefused) throw await explainRefusal(client, database, step);
    throw retriedAsLostConnection(error);
  } finally {
    leavePipeline?.();
    client.release();
  }
}

/**
 * The record transaction's connection: a write batch handed over (`deferWrites`) is held for the next statement —
 * the record's, when the batch is the transaction's last write (a step commit) — and run on its own before any other.
 * With `send` (pipeline mode), statements can also be sent ahead (`sendAhead`), and guards are enforced (the record
 * refuses by error).
 */
function holdingConnection(
  inner: SqlConnection,
  send?: (answer: Promise<unknown>) => unknown,
): DeferringConnection & Partial<SendAheadConnection> & { take(): HeldWrites | undefined; guarded(): boolean } {
  let held: HeldWrites | undefined;
  let guarded = false;
  const runHeld = async (): Promise<void> => {
    if (held === undefined) return;
    const { statements, values, guards = [] } = held;
    held = undefined;
    guarded ||= guards.length > 0;
    await inner.query(`WITH ${heldAsCtes(statements, values, 'held').ctes.join(', ')} SELECT ${guardsHold(guards, 'held')}`, values);
  };
  const connection = {
    query: async <R extends QueryResultRow>(text: string, values?: unknown[]) => {
      await runHeld();
      return inner.query<R>(text, values);
    },
    deferWrites: async (statements: string[], values: unknown[], options?: { guards?: readonly number[] }) => {
      await runHeld();
      held = { statements, values, ...(options?.guards === undefined ? {} : { guards: options.guards }) };
    },
    take: () => {
      const taken = held;
      held = undefined;
      guarded ||= (taken?.guards?.length ?? 0) > 0;
      return taken;
    },
    // Whether a guarded batch ran or was taken for the record's statement: either way it guards the attempt.
    guarded: () => guarded,
  };
  if (send === undefined) return connection;
  return {
    ...connection,
    enforcesGuards: true,
    sendAhead: async (text: string, values: unknown[], check: (result: QueryResult<QueryResultRow>) => void, refused?: (error: unknown) => unknown) => {
      await runHeld();
      send(
        inner.query(text, values).then(check, (error: unknown) => {
          throw refused === undefined ? error : refused(error);
        }),
      );
    },
  };
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
