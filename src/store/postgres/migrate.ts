import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import type { ClientBase, Pool } from 'pg';
import { HelixError, StoreError } from '../../errors/index.js';
import type { Logger } from '../../hooks/types.js';
import { sqlStateOf, type SqlConnection } from './database.js';
import { quoteIdentifier } from '../../database/sql-identifier.js';
import { storeTables } from './tables.js';

/**
 * Where migrations run: a knex instance, a pg Pool, or a connected pg Client (not inside a transaction).
 *
 * @example
 * const target: MigrationTarget = new pg.Pool({ connectionString });
 */
export type MigrationTarget = Knex | Pool | ClientBase;

/**
 * Options of `runMigrations`.
 *
 * @example
 * await runMigrations(pool, 'helix', { logger: console });
 */
export interface RunMigrationsOptions {
  /** Receives one `info` line per applied file. */
  logger?: Logger;
  /** Folder of `NNN_name.sql` files. Default: the package's `schema/` folder. */
  directory?: string;
}

/** The package's `schema/` folder (the same relative path from `src/` and from `dist/`). */
const DEFAULT_DIRECTORY = fileURLToPath(new URL('../../../schema/', import.meta.url));
const MIGRATION_FILE = /^\d{3}_[a-z0-9_]+\.sql$/;

/**
 * Apply the package's pending SQL migrations to `schema` (created when absent) in one transaction.
 *
 * Concurrent callers (several processes, or the state store and the stream manager) serialize on a
 * transaction-scoped advisory lock keyed by the schema name, so each file is applied exactly once; applied
 * files are recorded in `__agents_migrations`. Files run verbatim through the pg connection (simple query
 * protocol) with `search_path` set to the schema for the transaction only. Idempotent.
 *
 * @throws StoreError with code MIGRATION_FAILED (the message names the file and SQLSTATE, never SQL).
 * @example
 * const { applied } = await runMigrations(knex, 'helix'); // ['001_initial.sql'] on a fresh database
 */
export async function runMigrations(target: MigrationTarget, schema = 'public', options: RunMigrationsOptions = {}): Promise<{ applied: string[] }> {
  const tables = storeTables(schema);
  const directory = options.directory ?? DEFAULT_DIRECTORY;
  const files = (await readdir(directory)).filter((name) => MIGRATION_FILE.test(name)).sort();
  const step = { file: '(setup)' };
  try {
    const applied = await inTransaction(target, async (connection) => {
      await connection.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`helix-agents-dbos:migrations:${schema}`]);
      const exists = await connection.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (exists.rowCount !== 1) await connection.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
      await connection.query(`SET LOCAL search_path TO ${quoteIdentifier(schema)}`);
      await connection.query(`CREATE TABLE IF NOT EXISTS ${tables.migrations} (name text PRIMARY KEY, applied_at bigint NOT NULL)`);
      const done = new Set((await connection.query<{ name: string }>(`SELECT name FROM ${tables.migrations}`)).rows.map((row) => row.name));
      const pending = files.filter((file) => !done.has(file));
      for (const file of pending) {
        step.file = file;
        await connection.query(await readFile(`${directory}/${file}`, 'utf8'));
        await connection.query(`INSERT INTO ${tables.migrations} (name, applied_at) VALUES ($1, $2)`, [file, Date.now()]);
      }
      return pending;
    });
    for (const file of applied) options.logger?.info('applied store migration', { file, schema });
    return { applied };
  } catch (error) {
    if (error instanceof HelixError) throw error;
    const sqlState = sqlStateOf(error);
    throw new StoreError('MIGRATION_FAILED', `Store migration ${step.file} failed (Postgres error ${sqlState ?? 'unknown'}); nothing was applied. See the cause.`, {
      cause: error,
      data: { file: step.file, schema, ...(sqlState === undefined ? {} : { sqlState }) },
    });
  }
}

async function inTransaction<T>(target: MigrationTarget, body: (connection: SqlConnection) => Promise<T>): Promise<T> {
  if (typeof target === 'function') {
    return target.transaction(async (transaction) => body((await transaction.client.acquireConnection()) as SqlConnection));
  }
  if ('totalCount' in target) {
    const client = await target.connect();
    try {
      return await withClientTransaction(client, body);
    } finally {
      client.release();
    }
  }
  return withClientTransaction(target, body);
}

async function withClientTransaction<T>(client: ClientBase, body: (connection: SqlConnection) => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
