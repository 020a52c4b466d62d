import { HelixError, StoreError } from '../errors/index.js';
import type { Logger } from '../hooks/types.js';
import { transientPostgresCondition } from './transient-postgres-error.js';
import { retryTransient, type RetryAttempt, type TransientRetryPolicy } from './transient-retry.js';

/**
 * The SQLSTATE of a pg error (e.g. '23505'), or undefined.
 *
 * @example
 * if (postgresSqlState(error) === '23503') throw new SessionNotFoundError(sessionId);
 */
export function postgresSqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Turn any failure of a Postgres operation into a HelixError: HelixErrors pass through, a missing table
 * says to migrate, anything else becomes StoreError(`STORE_ERROR`) naming the operation and SQLSTATE (never
 * SQL text or parameters; the driver error stays in `cause`).
 *
 * @example
 * catch (error) { throw toPostgresStoreError(error, 'record usage'); }
 */
export function toPostgresStoreError(error: unknown, operation: string, logger?: Logger): HelixError {
  if (error instanceof HelixError) return error;
  const sqlState = postgresSqlState(error);
  logger?.error('database operation failed', { operation, ...(sqlState === undefined ? {} : { sqlState }) });
  if (sqlState === '42P01' || sqlState === '3F000') {
    return new StoreError('STORE_ERROR', `Could not ${operation}: the tables do not exist; call migrate() first.`, {
      cause: error,
      data: { operation, sqlState },
    });
  }
  return new StoreError('STORE_ERROR', `Could not ${operation} (Postgres error ${sqlState ?? 'unknown'}); see the cause for the driver error.`, {
    cause: error,
    data: { operation, ...(sqlState === undefined ? {} : { sqlState }) },
  });
}

/**
 * Run one Postgres operation: retried while it fails transiently (see `retryTransient`; the body must be
 * safe to repeat), then every failure leaves as a HelixError (see {@link toPostgresStoreError}).
 *
 * @throws StoreError (`retryable: true` when transient failures outlasted the budget), or the body's HelixErrors.
 * @example
 * const { rows } = await runPostgresOperation('read usage', () => pool.query(sql, [sessionId]), { retry: policy });
 */
export async function runPostgresOperation<T>(
  operation: string,
  body: (attempt: RetryAttempt) => Promise<T>,
  options: { retry: TransientRetryPolicy; logger?: Logger | undefined },
): Promise<T> {
  return withStoreErrors(
    operation,
    () => retryTransient(operation, body, { policy: options.retry, classify: transientPostgresCondition, logger: options.logger }),
    options.logger,
  );
}

/**
 * Run `body` once (no retry: inside a caller's transaction, the caller retries the whole); a failure leaves as a
 * HelixError (see {@link toPostgresStoreError}).
 *
 * @example
 * await withStoreErrors('end a stream', () => connection.query(sql.finish, values));
 */
export async function withStoreErrors<T>(operation: string, body: () => Promise<T>, logger?: Logger): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw toPostgresStoreError(error, operation, logger);
  }
}
