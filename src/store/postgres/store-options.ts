import type { Knex } from 'knex';
import type { TransientRetryOptions } from '../../database/transient-retry.js';
import type { Logger } from '../../hooks/types.js';

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
