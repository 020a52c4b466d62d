import type { QueryResult, QueryResultRow } from 'pg';
import { enterPipelineMode, type SendAheadConnection } from '../database/send-ahead.js';
import { preparedStatements } from '../database/named-statements.js';
import { transientPostgresCondition } from '../database/transient-postgres-error.js';
import type { SqlConnection } from '../store/postgres/database.js';
import { guardsHold, heldAsCtes, type DeferringConnection } from '../store/postgres/statement-batch.js';
import type { StepRecordConnections, StepRecordClient as TransactionClient } from '../types/step-records.js';
import type { RecordOutcome, RecordWrite } from './step-record.js';
import { InternalError } from '../errors/index.js';

/**
 * Data-modifying statements held for a transaction's closing statement (see `DeferringConnection`).
 *
 * @example
 * const held: HeldWrites = { statements: ['UPDATE t SET a = $1 RETURNING 1'], values: [1], guards: [0] };
 */
export interface HeldWrites {
  statements: string[];
  values: unknown[];
  /** Indexes of statements that must each affect exactly one row (see `WriteBatch.guard`). */
  guards?: readonly number[];
}

/** Hands a statement's answer to the transaction, which awaits every answer in order before it reports. */
export type SendAhead = <T>(answer: Promise<T>) => Promise<T>;

/**
 * What a pipelined transaction runs besides its writes: the fused journal's opens with a carried step row and closes
 * with the step's `operation_outputs` row; the public journal's closes with {@link closeReadingTransactionId}.
 *
 * @example
 * const ends: TransactionEnds = { closing: closeReadingTransactionId };
 */
export interface TransactionEnds {
  /** Statements right after BEGIN: sent ahead through `send` when pipelined, else awaited here. */
  opening?(prepared: SqlConnection, send: SendAhead | undefined): Promise<void>;
  /**
   * The last statement before COMMIT, carrying `held` as its first CTEs; it must issue its query before its first
   * await. Pipelined (COMMIT sent right behind it), it must refuse by error (SQLSTATE 22012) whatever must not commit,
   * a failed guard of `held` included. Resolves with the transaction's id when it reads it.
   */
  closing(prepared: SqlConnection, held: HeldWrites | undefined, pipelined: boolean): Promise<string | undefined>;
  /** What to throw for `error` once the transaction rolled back (`client`: the same connection, outside a transaction). */
  failure?(error: unknown, client: SqlConnection): Promise<unknown>;
}

/**
 * Run `writes` in ONE READ COMMITTED transaction on `client`, in node-postgres pipeline mode where it has one: BEGIN and
 * the statements sent ahead (a chunk append) go out with the first statement that is read (a step commit's locked
 * read), the closing statement (which refuses by error) with the COMMIT — two round trips, or one when no write reads
 * anything (an optimistic step commit, whose write batch rides in the closing statement). Rolled back on any failure;
 * a failed attempt with guarded (optimistic) writes throws {@link GuardedAttemptFailed} for {@link retryingGuarded}.
 * The caller checks the client out and releases it; retrying through lost connections is the caller's too.
 *
 * @example
 * const outcome = await pipelinedTransaction(client, writes, { closing: closeReadingTransactionId });
 */
export async function pipelinedTransaction(client: TransactionClient, writes: readonly RecordWrite[], ends: TransactionEnds): Promise<RecordOutcome> {
  const leavePipeline = enterPipelineMode(client);
  const outstanding: Promise<unknown>[] = [];
  const send: SendAhead = (answer) => {
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
    await ends.opening?.(prepared, leavePipeline === undefined ? undefined : send);
    // The last write batch (a step commit's) rides in the closing statement: one round trip fewer.
    connection = holdingConnection(prepared, leavePipeline === undefined ? undefined : send);
    for (const write of writes) await write.within(connection);
    const held = connection.take();
    if (leavePipeline === undefined) {
      const transactionId = await ends.closing(prepared, held, false);
      await client.query('COMMIT');
      return transactionId === undefined ? {} : { transactionId };
    }
    const closed = send(ends.closing(prepared, held, true));
    void send(client.query('COMMIT'));
    for (const answer of outstanding) await answer; // in order: the first failure is the one to report
    const transactionId = await closed;
    return transactionId === undefined ? {} : { transactionId };
  } catch (thrown) {
    // A statement sent ahead that failed fails every later one ("transaction is aborted"): its failure is the one.
    const settled = await Promise.allSettled(outstanding);
    const error = settled.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected')?.reason ?? thrown;
    await client.query('ROLLBACK').catch(() => undefined);
    if (connection?.guarded() === true && transientPostgresCondition(error) === undefined) throw new GuardedAttemptFailed(error);
    throw ends.failure === undefined ? error : await ends.failure(error, client);
  } finally {
    leavePipeline?.();
  }
}

/**
 * Run `body` in one transaction on the database of a store that lends connections (`withConnection`, retried whole
 * through transient failures): a {@link pipelinedTransaction}, so writes whose answers nobody reads (`writeAhead`) go
 * out with the next statement that is read, or with the COMMIT. A run's start: a new session's is one round trip.
 *
 * @example
 * if (lendsConnections(stepRecords)) await transactionOnLent(stepRecords, (connection) => recordRun(connection));
 */
export async function transactionOnLent<T>(lender: StepRecordConnections, body: (connection: SqlConnection) => Promise<T>): Promise<T> {
  return lender.withConnection(async (client) => {
    let value: { of: T } | undefined;
    const write: RecordWrite = { within: async (connection) => void (value = { of: await body(connection) }) };
    await pipelinedTransaction(client, [write], { closing: closeReadingTransactionId });
    if (value === undefined) throw new InternalError('A transaction committed without running its writes.');
    return value.of;
  });
}

/**
 * Run `attempt` (one {@link pipelinedTransaction}) once more when its guarded writes failed — the next attempt's
 * writes read first, since their guard's entry was taken — and throw the failure's own error otherwise.
 *
 * @example
 * const outcome = await retryingGuarded(() => pipelinedTransaction(client, writes, ends));
 */
export async function retryingGuarded<T>(attempt: () => Promise<T>): Promise<T> {
  for (let number = 1; ; number += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (number === 1 && error instanceof GuardedAttemptFailed) continue;
      throw error instanceof GuardedAttemptFailed ? error.cause : error;
    }
  }
}

/**
 * An attempt with guarded (optimistic) writes failed with `cause`: the next attempt reads first.
 *
 * @example
 * if (error instanceof GuardedAttemptFailed) return retry();
 */
export class GuardedAttemptFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('An optimistic step record failed.');
  }
}

/**
 * The closing statement of a transaction that records nothing of its own (the public journal's batch record): the held
 * writes as CTEs, their guards checked (refused by error), and the transaction's id read for the writes.
 *
 * @example
 * const ends: TransactionEnds = { closing: closeReadingTransactionId };
 */
export async function closeReadingTransactionId(prepared: SqlConnection, held: HeldWrites | undefined): Promise<string | undefined> {
  const carried = held === undefined || held.statements.length === 0 ? undefined : heldAsCtes(held.statements, held.values, 'held');
  const select = `SELECT pg_current_xact_id()::xid::text AS transaction_id, ${guardsHold(carried === undefined ? [] : (held?.guards ?? []), 'held')} AS accepted`;
  const text = carried === undefined ? select : `WITH ${carried.ctes.join(', ')} ${select}`;
  const { rows } = await prepared.query<{ transaction_id: string }>(text, carried === undefined ? [] : (held?.values ?? []));
  return rows[0]?.transaction_id;
}

/**
 * The transaction's connection: a write batch handed over (`deferWrites`) is held for the next statement — the
 * closing one, when the batch is the transaction's last write (a step commit) — and run on its own before any other
 * (sent ahead of it when pipelined).
 * With `send` (pipeline mode), statements can also be sent ahead (`sendAhead`), and guards are enforced (the closing
 * statement refuses by error).
 */
function holdingConnection(
  inner: SqlConnection,
  send?: SendAhead,
): DeferringConnection & Partial<SendAheadConnection> & { take(): HeldWrites | undefined; guarded(): boolean } {
  let held: HeldWrites | undefined;
  let guarded = false;
  const runHeld = async (): Promise<void> => {
    if (held === undefined) return;
    const { statements, values, guards = [] } = held;
    held = undefined;
    guarded ||= guards.length > 0;
    const answer = inner.query(`WITH ${heldAsCtes(statements, values, 'held').ctes.join(', ')} SELECT ${guardsHold(guards, 'held')}`, values);
    // Pipelined, the batch goes ahead of the statement that follows it (a failed guard refuses by error, reported first).
    if (send === undefined) await answer;
    else void send(answer);
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
    // Whether a guarded batch ran or was taken for the closing statement: either way it guards the attempt.
    guarded: () => guarded,
  };
  if (send === undefined) return connection;
  return {
    ...connection,
    enforcesGuards: true,
    sendAhead: async (text: string, values: unknown[], check: (result: QueryResult<QueryResultRow>) => void, refused?: (error: unknown) => unknown) => {
      await runHeld();
      void send(
        inner.query(text, values).then(check, (error: unknown) => {
          throw refused === undefined ? error : refused(error);
        }),
      );
    },
  };
}
