import type { Knex } from 'knex';
import type { QueryResult, QueryResultRow } from 'pg';
import { postgresSqlState, toPostgresStoreError, withStoreErrors } from '../../database/postgres-operation.js';
import { isCertainlyNotApplied, transientPostgresCondition } from '../../database/transient-postgres-error.js';
import { DEFAULT_TRANSIENT_RETRY, retryTransient, type TransientRetryPolicy } from '../../database/transient-retry.js';
import { storeClosedError } from '../../database/store-closed.js';
import { SessionNotFoundError } from '../../errors/index.js';
import type { Logger } from '../../hooks/types.js';
import type { StoreTables } from './tables.js';
import { preparedStatements, type NamingTarget } from '../../database/named-statements.js';

/**
 * One attempt of a store operation. `ambiguous` is true once an earlier attempt failed in a way that may
 * have applied its write (the connection dropped while an autocommit statement or the COMMIT was in
 * flight): the body must then check "already applied" before writing again, unless it is idempotent.
 *
 * @example
 * await database.run('create a session', async (connection, attempt) => (attempt.ambiguous ? findOwnRow() : insert()));
 */
export interface StoreAttempt {
  number: number;
  ambiguous: boolean;
}

/**
 * A pg connection (or anything that runs one parameterized statement with `$n` placeholders).
 *
 * @example
 * const { rows } = await connection.query('SELECT 1 WHERE $1::text IS NOT NULL', ['x']);
 */
export interface SqlConnection {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/**
 * What every Postgres store function needs: the database and the qualified table names.
 *
 * @example
 * const context: PostgresContext = { database: new Database(knex), tables: storeTables('public') };
 */
export interface PostgresContext {
  database: StoreDatabase;
  tables: StoreTables;
}

/** A store function's statements on one connection, told which attempt this is. */
type StoreBody<T> = (connection: SqlConnection, attempt: StoreAttempt) => Promise<T>;

/**
 * Where store functions run their statements: a pool ({@link Database}) or one caller's transaction
 * ({@link connectionDatabase}).
 *
 * @example
 * const database: StoreDatabase = connectionDatabase(client);
 */
export interface StoreDatabase {
  /**
   * Run `body` on one connection without a transaction of its own (single statements). `raw`: the pool's own client
   * (a caller that runs its own transaction on it), not one naming its statements.
   */
  run<T>(operation: string, body: StoreBody<T>, options?: { raw?: boolean }): Promise<T>;
  /** Run `body` atomically. */
  transaction<T>(operation: string, body: StoreBody<T>): Promise<T>;
}

const FIRST_ATTEMPT: StoreAttempt = { number: 1, ambiguous: false };

/**
 * A {@link StoreDatabase} on `connection`, inside the caller's open transaction: every body runs there once (the
 * caller's transaction is what makes it atomic and what a retry repeats), and nothing is visible before the caller
 * commits. Failures leave as HelixErrors, as the pool's do.
 *
 * @example
 * await savePostgresState({ database: connectionDatabase(client), tables }, 's1', { status: 'completed' });
 */
export function connectionDatabase(connection: SqlConnection, logger?: Logger): StoreDatabase {
  const once = <T>(operation: string, body: (connection: SqlConnection, attempt: StoreAttempt) => Promise<T>): Promise<T> =>
    withStoreErrors(operation, () => body(connection, FIRST_ATTEMPT), logger);
  return { run: once, transaction: once };
}

/**
 * Runs store statements on connections borrowed from a knex pool. Statements go straight to the pg
 * connection with `$n` placeholders (knex.raw would rewrite every `?`, including jsonb operators), inside
 * knex's transaction when one is needed.
 *
 * Transient failures (a restarting or unreachable Postgres, a terminated backend, a serialization failure
 * or deadlock) are retried with capped back-off up to the retry budget; each attempt tells the body whether
 * an earlier one may have applied its write (see {@link StoreAttempt}). Every failure leaves as a HelixError:
 * contract errors as thrown, driver errors as StoreError without SQL parameters in the message, retryable
 * when the budget ran out on a transient condition. Once the pool is destroyed (the store closed), every call
 * throws at once: StoreError with `data.condition` `'STORE_CLOSED'` (see `storeClosedError`).
 *
 * @example
 * const count = await database.run('count sessions', async (connection) => (await connection.query('SELECT 1')).rowCount);
 */
export class Database implements StoreDatabase {
  constructor(
    readonly knex: Knex,
    private readonly logger?: Logger,
    private readonly retry: TransientRetryPolicy = DEFAULT_TRANSIENT_RETRY,
  ) {}

  /** Run `body` on one pooled connection without a transaction (single statements), each a named prepared statement. */
  async run<T>(operation: string, body: StoreBody<T>, options: { raw?: boolean } = {}): Promise<T> {
    return this.withRetry(operation, async (attempt, mark) => {
      const connection = (await this.knex.client.acquireConnection()) as NamingTarget;
      try {
        mark.inFlight = true; // from here a lost connection may have applied the statement
        return await body(options.raw === true ? (connection as unknown as SqlConnection) : preparedStatements(connection), attempt);
      } finally {
        await this.knex.client.releaseConnection(connection);
      }
    });
  }

  /** Run `body` in one transaction (READ COMMITTED); any throw rolls everything back. */
  async transaction<T>(operation: string, body: StoreBody<T>): Promise<T> {
    return this.withRetry(operation, (attempt, mark) =>
      this.knex.transaction(async (transaction) => {
        const connection = (await transaction.client.acquireConnection()) as NamingTarget;
        const result = await body(preparedStatements(connection), attempt);
        mark.inFlight = true; // knex sends COMMIT next: a connection lost now leaves the outcome unknown
        return result;
      }),
    );
  }

  /** True once the knex pool is destroyed or being destroyed (the store was closed): calls then fail at once. */
  get closed(): boolean {
    const pool = (this.knex.client as { pool?: { destroyed?: boolean } }).pool;
    return pool === undefined || pool.destroyed === true;
  }

  private async withRetry<T>(operation: string, attemptOnce: (attempt: StoreAttempt, mark: { inFlight: boolean }) => Promise<T>): Promise<T> {
    let ambiguous = false;
    try {
      return await retryTransient(
        operation,
        async ({ number }) => {
          // A pool being destroyed never answers a new acquire (it waits out knex's 60 s acquire timeout).
          if (this.closed) throw storeClosedError('state store', operation);
          const mark = { inFlight: false };
          try {
            return await attemptOnce({ number, ambiguous }, mark);
          } catch (error) {
            const condition = transientPostgresCondition(error);
            if (condition !== undefined && mark.inFlight && !isCertainlyNotApplied(condition)) ambiguous = true;
            throw error;
          }
        },
        { policy: this.retry, classify: transientPostgresCondition, logger: this.logger },
      );
    } catch (error) {
      throw toPostgresStoreError(error, operation, this.logger);
    }
  }
}

/**
 * The SQLSTATE of a pg error (e.g. '23505'), or undefined.
 *
 * @example
 * if (sqlStateOf(error) === '23503') throw new SessionNotFoundError(sessionId);
 */
export function sqlStateOf(error: unknown): string | undefined {
  return postgresSqlState(error);
}

/**
 * Run a statement that inserts rows referencing a session; a foreign-key violation becomes
 * SessionNotFoundError.
 *
 * @example
 * await requireSessionReference(sessionId, () => connection.query(insertSql, values));
 */
export async function requireSessionReference<T>(sessionId: string, statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    if (sqlStateOf(error) === '23503') throw new SessionNotFoundError(sessionId, { cause: error });
    throw error;
  }
}

/**
 * Convert a bigint column (returned by node-postgres as a string) to a number; null stays undefined.
 *
 * @example
 * const createdAt = toNumber(row.created_at);
 */
export function toNumber(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'number' ? value : Number(value);
}
