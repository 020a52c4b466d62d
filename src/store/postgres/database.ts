import type { Knex } from 'knex';
import type { QueryResult, QueryResultRow } from 'pg';
import { HelixError, SessionNotFoundError, StoreError } from '../../errors/index.js';
import type { Logger } from '../../hooks/types.js';
import type { StoreTables } from './tables.js';

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
  database: Database;
  tables: StoreTables;
}

/**
 * Runs store statements on connections borrowed from a knex pool. Statements go straight to the pg
 * connection with `$n` placeholders (knex.raw would rewrite every `?`, including jsonb operators), inside
 * knex's transaction when one is needed. Every failure leaves as a HelixError: contract errors as thrown,
 * driver errors as StoreError without SQL parameters in the message.
 *
 * @example
 * const count = await database.run('count sessions', async (connection) => (await connection.query('SELECT 1')).rowCount);
 */
export class Database {
  constructor(
    readonly knex: Knex,
    private readonly logger?: Logger,
  ) {}

  /** Run `body` on one pooled connection without a transaction (for single statements). */
  async run<T>(operation: string, body: (connection: SqlConnection) => Promise<T>): Promise<T> {
    try {
      const connection = (await this.knex.client.acquireConnection()) as SqlConnection;
      try {
        return await body(connection);
      } finally {
        await this.knex.client.releaseConnection(connection);
      }
    } catch (error) {
      throw this.toHelixError(error, operation);
    }
  }

  /** Run `body` in one transaction (READ COMMITTED); any throw rolls everything back. */
  async transaction<T>(operation: string, body: (connection: SqlConnection) => Promise<T>): Promise<T> {
    try {
      return await this.knex.transaction(async (transaction) => {
        const connection = (await transaction.client.acquireConnection()) as SqlConnection;
        return body(connection);
      });
    } catch (error) {
      throw this.toHelixError(error, operation);
    }
  }

  private toHelixError(error: unknown, operation: string): HelixError {
    if (error instanceof HelixError) return error;
    const sqlState = sqlStateOf(error);
    this.logger?.error('session store operation failed', { operation, sqlState });
    if (sqlState === '42P01' || sqlState === '3F000') {
      return new StoreError('STORE_ERROR', `Could not ${operation}: the store's tables do not exist; call store.migrate() first.`, {
        cause: error,
        data: { operation, sqlState },
      });
    }
    return new StoreError('STORE_ERROR', `Could not ${operation} (Postgres error ${sqlState ?? 'unknown'}); see the cause for the driver error.`, {
      cause: error,
      data: { operation, ...(sqlState === undefined ? {} : { sqlState }) },
    });
  }
}

/**
 * The SQLSTATE of a pg error (e.g. '23505'), or undefined.
 *
 * @example
 * if (sqlStateOf(error) === '23503') throw new SessionNotFoundError(sessionId);
 */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
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
