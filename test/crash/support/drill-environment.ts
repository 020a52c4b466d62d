/**
 * Per-test-file setup of the crash drills: a fresh database (store tables migrated, the tools' execution
 * table created) that every worker of the file connects to, the parent's own store/stream/usage views of it,
 * the fake OpenAI server and the worker registry.
 */
import pg from 'pg';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';
import type { WorkerConfig, WorkerMode } from '../worker/worker-config.js';
import { createToolRunsTable } from './durable-probes.js';
import { DrillLLMServer } from './drill-llm-server.js';
import { WorkerProcesses } from './worker-process.js';

/**
 * What a crash test file works with.
 *
 * @example
 * const env = await setUpDrillEnvironment('crash_tools');
 * const worker = env.workers.spawn('start', 'crash-1', env.workerConfig('start', ['s1']));
 */
export interface DrillEnvironment {
  database: TestDatabase;
  /** The parent's own connection, for probes. */
  pool: pg.Pool;
  stateStore: PostgresStateStore;
  streamManager: PostgresStreamManager;
  usageStore: PostgresUsageStore;
  llm: DrillLLMServer;
  workers: WorkerProcesses;
  /** A worker configuration for this file's database and fake server. */
  workerConfig(mode: WorkerMode, sessions: string[], extra?: Pick<WorkerConfig, 'blockToolCalls' | 'lateExecutorMs' | 'toolDelayMs' | 'agent' | 'pauseAt'>): WorkerConfig;
  /** Kill every worker, then release connections, the fake server and the database. */
  close(): Promise<void>;
}

/**
 * Create the file's database and services. Migrations run here, once, before any worker starts.
 *
 * @example
 * beforeAll(async () => { env = await setUpDrillEnvironment('crash_llm'); });
 * afterAll(async () => { await env?.close(); });
 */
export async function setUpDrillEnvironment(prefix: string): Promise<DrillEnvironment> {
  const database = await createTestDatabase(prefix);
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => undefined); // an idle client killed by a fault drill must not crash the test process
  const stateStore = new PostgresStateStore({ connectionString: database.url });
  await stateStore.migrate();
  await createToolRunsTable(pool);
  const streamManager = new PostgresStreamManager({ connectionString: database.url });
  const usageStore = new PostgresUsageStore({ connectionString: database.url });
  const llm = await DrillLLMServer.start();
  const workers = new WorkerProcesses();
  return {
    database,
    pool,
    stateStore,
    streamManager,
    usageStore,
    llm,
    workers,
    workerConfig: (mode, sessions, extra = {}) => ({ mode, databaseUrl: database.url, openaiBaseUrl: llm.baseURL, sessions, ...extra }),
    close: async () => {
      await workers.killAll();
      await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close(), pool.end(), llm.close()]);
      await database.drop();
    },
  };
}
