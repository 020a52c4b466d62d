import { DBOSStepNondeterminismError, DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/internal/error';
import { withDbRetry } from '@dbos-inc/dbos-sdk/internal/system_database';
import { transientPostgresCondition } from '../../database/transient-postgres-error.js';
import type { SqlConnection } from '../../store/postgres/database.js';
import { pipelinedTransaction, retryingGuarded, type SendAhead, type TransactionEnds } from '../pipelined-transaction.js';
import { recordStepRow, StepRecordRefused, type StepRecordRow, type SystemDatabase } from './record-row.js';
import type { RecordOutcome, RecordWrite } from '../step-record.js';

/**
 * The deferred writes and the step's record in one READ COMMITTED transaction on DBOS's pool (a
 * `pipelinedTransaction`), retried whole through connection failures (the deferred writes are idempotent; the record
 * carries one completion time). The record refuses by error, so the COMMIT sent behind it then rolls back, and it
 * goes out with the COMMIT. A previous step's row left to this record (`carried`) is written in it too, first. An
 * attempt whose guards failed (what it was computed from changed) runs once more, and its writes then read first
 * (they were told, see `DeferringConnection.enforcesGuards`).
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
  const ends: TransactionEnds = {
    // A previous step's row left to this record goes first (sent ahead, refused by error as the record is).
    ...(carried === undefined
      ? {}
      : {
          opening: async (prepared: SqlConnection, send: SendAhead | undefined) => {
            if (send === undefined) await recordStepRow(prepared, database, carried);
            else void send(recordStepRow(prepared, database, carried, undefined, { refuseByError: true }));
          },
        }),
    closing: (prepared, held, pipelined) => recordStepRow(prepared, database, step, held, pipelined ? { refuseByError: true } : {}),
    failure: async (error, client) => (error instanceof StepRecordRefused ? explainRefusal(client, database, step) : retriedAsLostConnection(error)),
  };
  return withDbRetry(() =>
    retryingGuarded(async () => {
      // DBOS's checkout guards the client's 'error' event (a backend terminated between statements must not crash).
      const client = await database.connect();
      try {
        return await pipelinedTransaction(client, writes, ends);
      } finally {
        client.release();
      }
    }),
  );
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
