import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { DBOSAgentExecutor } from '../../src/executor/dbos-agent-executor.js';
import type { DBOSAgentExecutorConfig } from '../../src/executor/types.js';
import type { LLMAdapter } from '../../src/llm/adapter.js';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../src/usage/postgres/postgres-usage-store.js';
import { createTestDatabase, type TestDatabase } from './services.js';

/** A launched DBOS runtime on its own test database, with Postgres store, streams and usage. */
export interface TestRuntime {
  database: TestDatabase;
  executor: DBOSAgentExecutor;
  stateStore: PostgresStateStore;
  streamManager: PostgresStreamManager;
  usageStore: PostgresUsageStore;
  shutdown(): Promise<void>;
}

/** Launch DBOS + a DBOSAgentExecutor on a fresh database (one per test file: DBOS is a process singleton). */
export async function startTestRuntime(
  prefix: string,
  llmAdapter: LLMAdapter,
  extra: Partial<Omit<DBOSAgentExecutorConfig, 'stateStore' | 'streamManager' | 'llmAdapter' | 'usageStore'>> = {},
  dbos: { tracingEnabled?: boolean } = {},
): Promise<TestRuntime> {
  const database = await createTestDatabase(prefix);
  const stateStore = new PostgresStateStore({ connectionString: database.url });
  await stateStore.migrate();
  const streamManager = new PostgresStreamManager({ connectionString: database.url });
  const usageStore = new PostgresUsageStore({ connectionString: database.url });
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, usageStore, ...extra });
  DBOS.setConfig({ name: 'helix-test', systemDatabaseUrl: database.url, applicationVersion: 'test', logLevel: 'warn', ...dbos });
  await DBOS.launch();
  return {
    database,
    executor,
    stateStore,
    streamManager,
    usageStore,
    shutdown: async () => {
      await DBOS.shutdown();
      await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close()]);
      await database.drop();
    },
  };
}

/** What {@link useTestRuntime} gives a test file once its `beforeAll` ran: the runtime and a client on its database. */
export interface UsedTestRuntime {
  runtime: TestRuntime;
  client: pg.Client;
}

/**
 * Start a runtime (see {@link startTestRuntime}) and a pg client on its database before the file's tests, and stop
 * both after them; read them from the returned object inside tests.
 *
 * @example
 * const env = useTestRuntime('workflow_start', llm);
 * it('…', async () => { await env.runtime.executor.execute(agent, 'Hi', { sessionId: 's1' }); });
 */
export function useTestRuntime(prefix: string, llmAdapter: LLMAdapter): UsedTestRuntime {
  const used = {} as UsedTestRuntime;
  beforeAll(async () => {
    used.runtime = await startTestRuntime(prefix, llmAdapter);
    used.client = new pg.Client({ connectionString: used.runtime.database.url });
    await used.client.connect();
  }, 60_000);
  afterAll(async () => {
    await used.client?.end();
    await used.runtime?.shutdown();
  });
  return used;
}
