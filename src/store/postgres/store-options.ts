import knexPackage from 'knex';
import type { Knex } from 'knex';
import type { TransientRetryOptions } from '../../database/transient-retry.js';
import type { Logger } from '../../hooks/types.js';
import { assertIdentifier } from '../validation.js';

/**
 * How `PostgresStateStore` reaches Postgres: a connection string (the store owns the pool) or your knex.
 *
 * @example
 * const connection: PostgresStateStoreConnection = { connectionString: 'postgres://localhost/app' };
 */
export type PostgresStateStoreConnection = { connectionString: string } | { knex: Knex };

/**
 * Options of `PostgresStateStore`.
 *
 * @example
 * const options: PostgresStateStoreOptions = { schema: 'helix', logger: console };
 */
export interface PostgresStateStoreOptions {
  /** Postgres schema of the `__agents_*` tables (created by `migrate()` when absent). Default `'public'`. */
  schema?: string;
  /** Receives migration lines and driver failures (ids and SQLSTATEs only). */
  logger?: Logger;
  /**
   * How long each method waits out transient Postgres errors (restart, refused or dropped connections,
   * `pg_terminate_backend`, serialization failures, deadlocks) before throwing a retryable StoreError.
   * Default: capped exponential back-off (50 ms → 2 s) for up to 3 minutes; `{ budgetMs: 0 }` disables it.
   */
  retry?: TransientRetryOptions;
}

function quiet(): void {}

/**
 * Connections of a store's own pool. A root run's start on the fused journal carries DBOS's start of its workflow in
 * the store's transaction (DBOS's own pool no longer does that work), so the store's pool is twice DBOS's default
 * (10): with 10, a burst of 128 starts waited for connections (first model call p50 1.48× LangGraph's against 1.19×).
 */
const OWN_POOL_SIZE = 20;

/**
 * The knex a `PostgresStateStore` uses: yours, or a pool of its own (20 connections) on the connection string,
 * which the store destroys on close (`ownsKnex`).
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for an empty connection string.
 * @example
 * const { knex, ownsKnex } = openStoreKnex({ connectionString: 'postgres://localhost/app' });
 */
export function openStoreKnex(connection: PostgresStateStoreConnection): { knex: Knex; ownsKnex: boolean } {
  if ('knex' in connection) return { knex: connection.knex, ownsKnex: false };
  assertIdentifier(connection.connectionString, 'connectionString');
  const knex = knexPackage.knex({
    client: 'pg',
    connection: connection.connectionString,
    pool: { min: 0, max: OWN_POOL_SIZE },
    // knex prints pool errors ("Acquire connection error") to stdout; they surface as StoreErrors instead.
    log: { warn: quiet, error: quiet, deprecate: quiet, debug: quiet },
  });
  return { knex, ownsKnex: true };
}
