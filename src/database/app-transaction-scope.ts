import { AsyncLocalStorage } from 'node:async_hooks';
import {
  assertStillOwnsWorkflow,
  DBOSStepAlreadyRecordedError,
  isPGRetriableTransactionError,
  replayRecordedStep,
} from '@dbos-inc/dbos-sdk/datasource';
import type pg from 'pg';
import { quoteIdentifier } from './sql-identifier.js';

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

const SERIALIZATION_RETRY_MS = { first: 1, max: 2_000, factor: 1.5 } as const;

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
    const { rows } = await this.pool.query<{ output: string | null; error: string | null }>(
      `SELECT output, error FROM ${this.table} WHERE workflow_id = $1 AND function_num = $2`,
      [this.key.workflowId, this.key.stepId],
    );
    const row = rows[0];
    return row === undefined ? undefined : { value: replayRecordedStep<T>(row) };
  }

  /**
   * Run `work` in one transaction with the completion row of this operation; returns its value. A work that throws
   * rolls back everything it wrote. When a concurrent execution of the same operation committed first, this one
   * rolls back and returns that execution's recorded value. Serialization failures (40001) re-run the work.
   */
  async commit<T>(work: (client: TransactionClient) => Promise<T>): Promise<T> {
    let waitMs: number = SERIALIZATION_RETRY_MS.first;
    for (;;) {
      try {
        return await this.once(work);
      } catch (error) {
        if (error instanceof DBOSStepAlreadyRecordedError) {
          const recorded = await this.recorded<T>();
          if (recorded === undefined) throw new Error('A concurrent execution recorded this tool call, but its record is gone.', { cause: error });
          return recorded.value;
        }
        if (!isPGRetriableTransactionError(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        waitMs = Math.min(waitMs * SERIALIZATION_RETRY_MS.factor, SERIALIZATION_RETRY_MS.max);
      }
    }
  }

  private async once<T>(work: (client: TransactionClient) => Promise<T>): Promise<T> {
    const connection = await this.pool.connect();
    const guard = new GuardedClient(connection);
    let destroy = false;
    try {
      await connection.query('BEGIN');
      const value = await work(guard);
      guard.close();
      await guard.settled();
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
  throw new Error(
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
    if (!this.open) throw new Error('This transaction has ended; context.client can only be used while the tool runs.');
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
  if (scope === undefined) throw new Error('No app database transaction is open here; transactional tools run only through runTransaction.');
  return scope;
}
