import { DBOS } from '@dbos-inc/dbos-sdk';
import { guardDataSourcePoolPG, migrateDataSourcePG, registerDataSource, type DataSourceTransactionHandler } from '@dbos-inc/dbos-sdk/datasource';
import pg from 'pg';
import { ConfigurationError } from '../errors/index.js';
import { AppTransactionScope, ignoreConnectionError, withAppTransactionScope } from './app-transaction-scope.js';
import { quoteIdentifier } from './sql-identifier.js';

/**
 * The application's own Postgres database, where transactional tools write (`DBOSAgentExecutorConfig.appDatabase`).
 * Give a `pool` (left open: the app owns it) or a `connectionString` (the executor opens and closes a pool).
 * DBOS records each completed tool call in `${schemaName}.transaction_completion` of this database, created at
 * `DBOS.launch()` (default schema `dbos`; the app database may also be the DBOS system database).
 *
 * @example
 * new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, appDatabase: { connectionString: process.env.APP_DATABASE_URL } });
 */
export interface AppDatabaseConfig {
  pool?: pg.Pool;
  connectionString?: string;
  /** Pool size when the executor opens the pool. Default 10. */
  maxConnections?: number;
  /** Schema of DBOS's `transaction_completion` table in the app database. Default `dbos`. */
  schemaName?: string;
}

/**
 * The name the app database is registered under with DBOS (`registerDataSource`).
 *
 * @example
 * await runTransaction(work, 'TransactionalToolStep', { dsName: APP_DATABASE_SOURCE_NAME });
 */
export const APP_DATABASE_SOURCE_NAME = 'helix-app-database';

const DEFAULT_SCHEMA = 'dbos';

/**
 * The DBOS 5.3 data source of the app database (node-postgres): one pg transaction per tool call, in which the
 * tool's writes and the call's completion row commit together. One per process, bound by the executor.
 */
class AppDatabaseSource implements DataSourceTransactionHandler {
  readonly name = APP_DATABASE_SOURCE_NAME;
  private config: AppDatabaseConfig | undefined;
  private owned: pg.Pool | undefined;
  private ready: Promise<pg.Pool> | undefined;

  bind(config: AppDatabaseConfig): void {
    this.config = config;
    this.ready = undefined;
  }

  get bound(): boolean {
    return this.config !== undefined;
  }

  async initialize(): Promise<void> {
    if (this.config !== undefined) await this.poolReady();
  }

  async destroy(): Promise<void> {
    const owned = this.owned;
    this.owned = undefined;
    this.ready = undefined;
    await owned?.end();
  }

  async deleteCheckpoints(workflowID: string, startStep: number, beforeCommit?: () => Promise<void>): Promise<void> {
    const pool = await this.poolReady();
    const client = await pool.connect();
    client.on('error', ignoreConnectionError);
    let failed = false;
    try {
      await client.query('BEGIN');
      await client.query(`DELETE FROM ${this.table()} WHERE workflow_id = $1 AND function_num >= $2`, [workflowID, startStep]);
      await beforeCommit?.();
      await client.query('COMMIT');
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.removeListener('error', ignoreConnectionError);
      client.release(failed ? true : undefined);
    }
  }

  async invokeTransactionFunction<This, Args extends unknown[], Return>(
    _config: unknown,
    target: This,
    func: (this: This, ...args: Args) => Promise<Return>,
    ...args: Args
  ): Promise<Return> {
    const pool = await this.poolReady();
    const workflowId = DBOS.workflowID;
    const stepId = DBOS.stepID;
    const key = workflowId === undefined || stepId === undefined ? undefined : { workflowId, stepId };
    const scope = new AppTransactionScope(pool, this.schemaName(), key);
    return withAppTransactionScope(scope, () => func.call(target, ...args));
  }

  private schemaName(): string {
    return this.config?.schemaName ?? DEFAULT_SCHEMA;
  }

  private table(): string {
    return `${quoteIdentifier(this.schemaName())}.transaction_completion`;
  }

  private async poolReady(): Promise<pg.Pool> {
    if (this.ready === undefined) {
      const ready = this.open();
      this.ready = ready;
      ready.catch(() => {
        if (this.ready === ready) this.ready = undefined;
      });
    }
    return this.ready;
  }

  private async open(): Promise<pg.Pool> {
    const config = this.config;
    if (config === undefined) throw notConfigured();
    let pool = config.pool;
    if (pool === undefined) {
      const previous = this.owned; // a pool this source opened for an earlier binding or launch
      this.owned = undefined;
      await previous?.end();
      pool = new pg.Pool({ connectionString: config.connectionString, max: config.maxConnections ?? 10 });
      guardDataSourcePoolPG(pool, 'helix app database');
      this.owned = pool;
    }
    const client = await pool.connect();
    client.on('error', ignoreConnectionError);
    try {
      await client.query('BEGIN');
      await migrateDataSourcePG(async (sql) => (await client.query(sql)).rows, this.schemaName());
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.removeListener('error', ignoreConnectionError);
      client.release();
    }
    return pool;
  }
}

const source = new AppDatabaseSource();

/**
 * Register the app database with DBOS (once per process) and bind its connection. DBOS accepts a data source
 * only before `DBOS.launch()`; the executor calls this from its constructor.
 *
 * @throws ConfigurationError `APP_DATABASE_AFTER_LAUNCH` when DBOS was launched before the first registration.
 * @throws ConfigurationError `APP_DATABASE_NOT_CONFIGURED` without `pool` or `connectionString`.
 * @example
 * bindAppDatabase({ connectionString: 'postgres://localhost/app' });
 */
export function bindAppDatabase(config: AppDatabaseConfig): void {
  if (typeof config !== 'object' || config === null || (config.pool === undefined && typeof config.connectionString !== 'string')) {
    throw new ConfigurationError('APP_DATABASE_NOT_CONFIGURED', 'appDatabase needs a pg `pool` or a `connectionString`.');
  }
  try {
    registerDataSource(source);
  } catch (error) {
    throw new ConfigurationError(
      'APP_DATABASE_AFTER_LAUNCH',
      'appDatabase must be registered with DBOS before DBOS.launch(): construct the DBOSAgentExecutor first, then launch.',
      undefined,
      { cause: error },
    );
  }
  source.bind(config);
}

/**
 * True when this process has an app database for transactional tools.
 *
 * @example
 * if (!isAppDatabaseBound()) throw appDatabaseRequired('transfer');
 */
export function isAppDatabaseBound(): boolean {
  return source.bound;
}

function notConfigured(): ConfigurationError {
  return new ConfigurationError('APP_DATABASE_NOT_CONFIGURED', 'No app database is configured; pass appDatabase to the DBOSAgentExecutor.');
}
