/**
 * The services of one crash test file: a fresh database (store tables migrated, the tools' execution table and
 * the file's own tables created) that every worker of the file connects to, the parent's own store/stream/usage
 * views of it, the fake OpenAI server and the worker registry. Test files get them through `useDrill` (drill.ts).
 */
import pg from 'pg';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';
import type { WorkerConfig, WorkerMode } from '../worker/worker-config.js';
import { createToolRunsTable } from './durable-probes.js';
import { DrillLLMServer } from './drill-llm-server.js';
import type { WorkerProcesses } from './worker-process.js';

/**
 * What a drill varies in an agent worker's configuration (everything but its mode, sessions and connections).
 *
 * @example
 * const options: WorkerOptions = { agent: 'hitl', hitlWarmWindowMs: 500, applicationVersion: 'v1' };
 */
export type WorkerOptions = Omit<WorkerConfig, 'mode' | 'databaseUrl' | 'openaiBaseUrl' | 'sessions'>;

/**
 * What a crash test file works with.
 *
 * @example
 * const worker = env.workers.spawn('start', 'crash-1', env.workerConfig('start', ['s1']));
 */
export interface DrillEnvironment {
  readonly database: TestDatabase;
  /** The parent's own connection, for probes. */
  readonly pool: pg.Pool;
  readonly stateStore: PostgresStateStore;
  readonly streamManager: PostgresStreamManager;
  readonly usageStore: PostgresUsageStore;
  readonly llm: DrillLLMServer;
  readonly workers: WorkerProcesses;
  /** An agent worker configuration for this file's database and fake server. */
  workerConfig(mode: WorkerMode, sessions: string[], options?: WorkerOptions): WorkerConfig;
}

/**
 * The environment and how to release it.
 *
 * @example
 * const opened: OpenedDrillEnvironment = await openDrillEnvironment('crash_llm', workers);
 */
export interface OpenedDrillEnvironment extends DrillEnvironment {
  /** Release connections, the fake server and the database (kill the workers first). */
  close(): Promise<void>;
}

/**
 * Create the file's database and services. Migrations and `tablesSql` run here, once, before any worker starts.
 *
 * @example
 * const env = await openDrillEnvironment('crash_txtools', workers, `CREATE TABLE ${APP_FACTS_TABLE} (…)`);
 */
export async function openDrillEnvironment(prefix: string, workers: WorkerProcesses, tablesSql?: string): Promise<OpenedDrillEnvironment> {
  const database = await createTestDatabase(prefix);
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => undefined); // an idle client killed by a fault drill must not crash the test process
  const stateStore = new PostgresStateStore({ connectionString: database.url });
  await stateStore.migrate();
  await createToolRunsTable(pool);
  if (tablesSql !== undefined) await pool.query(tablesSql);
  const streamManager = new PostgresStreamManager({ connectionString: database.url });
  const usageStore = new PostgresUsageStore({ connectionString: database.url });
  const llm = await DrillLLMServer.start();
  return {
    database,
    pool,
    stateStore,
    streamManager,
    usageStore,
    llm,
    workers,
    workerConfig: (mode, sessions, options = {}) => ({ mode, databaseUrl: database.url, openaiBaseUrl: llm.baseURL, sessions, ...options }),
    close: async () => {
      await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close(), pool.end(), llm.close()]);
      await database.drop();
    },
  };
}
