import { AsyncLocalStorage } from 'node:async_hooks';
import { assertStillOwnsWorkflow, DBOSStepAlreadyRecordedError, replayRecordedStep } from '@dbos-inc/dbos-sdk/datasource';
import type pg from 'pg';
import { quoteIdentifier } from './sql-identifier.js';
import { transientPostgresCondition } from './transient-postgres-error.js';
import { DEFAULT_TRANSIENT_RETRY, retryTransient, type RetrySettings } from './transient-retry.js';
import { InternalError, ToolContractError } from '../errors/index.js';

/**
 * The part of a node-postgres client a transactional tool gets: `query` inside the open transaction. It refuses
 * once the transaction ended (a late query would otherwise run outside it, in autocommit mode).
 *
 * @example
 * const { rows } = await client.query<{ id: number }>('INSERT INTO orders (sku) VALUES ($1) RETURNING id', [sku]);
 */
export interface TransactionClient {
  query<TRow extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: TRow[]; rowCount: number | null }>;
}

/** The durable identity of a transaction: the workflow and the DBOS function id of its operation. */
interface CompletionKey {
  workflowId: string;
  stepId: number;
}

/** What the work itself threw: its caller's to handle (a tool's retry policy), never retried here. */
class WorkFailure extends Error {
  constructor(readonly failure: unknown) {
    super('The work of a transaction failed.');
    this.name = 'WorkFailure';
  }
}

/**
 * Transient failures of the scope's own statements (connect, BEGIN, the completion row, COMMIT: restarts, dropped
 * connections, serialization failures, deadlocks) are retried for 3 min.
 */
const TRANSIENT: RetrySettings = {
  policy: DEFAULT_TRANSIENT_RETRY,
  classify: (error) => (error instanceof WorkFailure ? undefined : transientPostgresCondition(error)),
};

/**
 * One durable operation's access to the app database, opened by the data source for `runTransaction`. `commit`
 * runs work in a transaction that also inserts the operation's completion row (`transaction_completion`, keyed
 * by workflow id and function id), so the work's writes and its recorded result commit together or not at all.
 * Outside a workflow (no key) nothing is recorded.
 */
export class AppTransactionScope {
  private readonly table: string;

  constructor(
    private readonly pool: pg.Pool,
    schemaName: string,
    private readonly key: CompletionKey | undefined,
  ) {
    this.table = `${quoteIdentifier(schemaName)}.transaction_completion`;
  }

  /** The result an earlier execution of this operation committed, if any (replayed: a recorded error is thrown). */
  async recorded<T>(): Promise<{ value: T } | undefined> {
    if (this.key === undefined) return undefined;
    const { workflowId, stepId } = this.key;
    const { rows } = await retryTransient(
      'read a transactional tool record',
      () => this.pool.query<{ output: string | null; error: string | null }>(`SELECT output, error FROM ${this.table} WHERE workflow_id = $1 AND function_num = $2`, [workflowId, stepId]),
      TRANSIENT,
    );
    const row = rows[0];
    return row === undefined ? undefined : { value: replayRecordedStep<T>(row) };
  }

  /**
   * Run `work` in one transaction with the completion row of this operation; returns its value. A work that throws
   * rolls back everything it wrote. When a concurrent execution of the same operation committed first, this one
   * rolls back and returns that execution's recorded value. Transient failures of the scope's own statements (a
   * dropped connection, also one that lost COMMIT's reply) re-run the work in a new transaction: if the lost COMMIT
   * had landed, the completion row conflicts, the re-run rolls back and the committed value is returned. What the
   * work throws is rethrown as is (a tool's failure is its retry policy's to handle).
   *
   * @throws StoreError (retryable) when transient failures outlast 3 minutes; whatever `work` throws.
   */
  async commit<T>(work: (client: TransactionClient) => Promise<T>): Promise<T> {
    try {
      return await retryTransient('commit a transactional tool call', () => this.once(work), TRANSIENT);
    } catch (error) {
      if (error instanceof WorkFailure) throw error.failure;
      if (!(error instanceof DBOSStepAlreadyRecordedError)) throw error;
      const recorded = await this.recorded<T>();
      if (recorded === undefined) {
        const message = 'A concurrent execution recorded this tool call, but its record is gone; check that nothing deletes DBOS step records.';
        throw new InternalError(message, { cause: error });
      }
      return recorded.value;
    }
  }

  private async once<T>(work: (client: TransactionClient) => Promise<T>): Promise<T> {
    const connection = await this.pool.connect();
    const guard = new GuardedClient(connection);
    let destroy = false;
    // A connection lost mid-transaction also emits 'error'; the failed query reports it, so the event is not fatal.
    connection.on('error', ignoreConnectionError);
    try {
      await connection.query('BEGIN');
      const value = await work(guard).catch((error: unknown) => Promise.reject(new WorkFailure(error)));
      guard.close();
      await guard.settled().catch((error: unknown) => Promise.reject(new WorkFailure(error)));
      assertStillInTransaction(connection);
      await this.insertCompletion(connection, value);
      await connection.query('COMMIT');
      return value;
    } catch (error) {
      guard.close();
      // A query of the work still in flight (a timed-out tool): drop the connection, which aborts the transaction.
      if (guard.inFlight > 0) destroy = true;
      else await connection.query('ROLLBACK').catch(() => (destroy = true));
      throw error;
    } finally {
      connection.removeListener('error', ignoreConnectionError);
      connection.release(destroy ? true : undefined);
    }
  }

  private async insertCompletion(connection: pg.PoolClient, value: unknown): Promise<void> {
    if (this.key === undefined) return;
    const { workflowId, stepId } = this.key;
    const inserted = await connection.query(
      `INSERT INTO ${this.table} (workflow_id, function_num, output) VALUES ($1, $2, $3)
       ON CONFLICT (workflow_id, function_num) DO NOTHING RETURNING workflow_id`,
      [workflowId, stepId, recordedOutput(value)],
    );
    if (inserted.rowCount === 0) throw new DBOSStepAlreadyRecordedError(workflowId, stepId);
    // The completion row makes a later owner's insert wait for this commit; a stale execution rolls back here.
    await assertStillOwnsWorkflow(workflowId);
  }
}

/**
 * Listener for 'error' on a checked-out connection (a dropped connection rejects its queries anyway).
 *
 * @example
 * connection.on('error', ignoreConnectionError);
 */
export function ignoreConnectionError(): void {}

/**
 * The recorded form of a JSON value: the envelope `replayRecordedStep` reads (`{"json": value}`, SuperJSON's
 * shape for values without dates, maps or other non-JSON types).
 */
function recordedOutput(value: unknown): string {
  return JSON.stringify({ json: value ?? null });
}

/** The work ended the transaction itself (COMMIT/ROLLBACK through its client) or swallowed a failed statement. */
function assertStillInTransaction(connection: pg.PoolClient): void {
  const status = (connection as unknown as { getTransactionStatus?: () => string | null }).getTransactionStatus?.();
  if (status === 'T' || status === undefined || status === null) return;
  throw new ToolContractError(
    status === 'E'
      ? 'A statement of the tool failed and the transaction is aborted; let the error propagate instead of catching it.'
      : 'The tool ended the transaction itself; never run BEGIN, COMMIT or ROLLBACK through context.client.',
  );
}

class GuardedClient implements TransactionClient {
  private open = true;
  inFlight = 0;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly connection: pg.PoolClient) {}

  async query<TRow extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: TRow[]; rowCount: number | null }> {
    if (!this.open) throw new ToolContractError('This transaction has ended; context.client can only be used while the tool runs.');
    this.inFlight += 1;
    const running = this.connection.query<TRow>(text, values);
    this.pending.add(running);
    try {
      const { rows, rowCount } = await running;
      return { rows, rowCount };
    } finally {
      this.inFlight -= 1;
      this.pending.delete(running);
    }
  }

  close(): void {
    this.open = false;
  }

  /** Wait for queries the work started but did not await (their failure is the work's failure). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}

const scopes = new AsyncLocalStorage<AppTransactionScope>();

/** Run `body` with `scope` as the current app transaction scope. */
export async function withAppTransactionScope<T>(scope: AppTransactionScope, body: () => Promise<T>): Promise<T> {
  return scopes.run(scope, body);
}

/** The scope the data source opened for the running `runTransaction` operation. */
export function currentAppTransactionScope(): AppTransactionScope {
  const scope = scopes.getStore();
  if (scope === undefined) throw new InternalError('No app database transaction is open here; transactional tools run only through runTransaction.');
  return scope;
}
