/**
 * Queued-fleet worker: one of the worker processes of test/crash/fleet (`node --import tsx fleet-worker.ts`,
 * configuration in `HELIX_CRASH_WORKER_CONFIG`, see fleet-worker-config.ts; DBOS executor id in `DBOS__VMID`). It
 * never calls execute(): it registers the fleet agent and constructs an executor WITH an llmAdapter (the real
 * `@ai-sdk/openai` client against the parent's fake server) before `DBOS.launch()`, registers the fleet queue after
 * launch with the configured `workerConcurrency`, prints `launched`, and runs whatever DBOS dequeues for it. It exits 0
 * once every configured session has a run whose workflow ended (whichever worker ran it).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { VercelAIAdapter } from '../../../src/llm/vercel-ai-adapter.js';
import { registerAgent } from '../../../src/steps/runtime-registry.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { withIdleTransactionTimeout } from '../../../src/store/postgres/session-timeouts.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import { createFleetAgent } from './fleet-agent.js';
import { FLEET_QUEUE, type FleetWorkerConfig } from './fleet-worker-config.js';
import { CRASH_APPLICATION_NAME, CRASH_APPLICATION_VERSION, WORKER_CONFIG_ENV } from './worker-config.js';
import { emit, runWorker } from './worker-lifecycle.js';

const POLL_MS = 50;
/** DBOS statuses after which a workflow runs no more. */
const ENDED = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);

function readConfig(): FleetWorkerConfig {
  const raw = process.env[WORKER_CONFIG_ENV];
  if (raw === undefined) throw new Error(`${WORKER_CONFIG_ENV} is not set`);
  return JSON.parse(raw) as FleetWorkerConfig;
}

async function main(): Promise<void> {
  const config = readConfig();
  const connectionString = config.databaseUrl;
  const pool = new pg.Pool({ connectionString, max: 3 });
  const stateStore = new PostgresStateStore({ connectionString });
  const streamManager = new PostgresStreamManager({ connectionString });
  const usageStore = new PostgresUsageStore({ connectionString });
  const openai = createOpenAI({ baseURL: config.openaiBaseUrl, apiKey: 'test' });

  // Before launch: the agents this worker runs, and the executor that binds the model its steps call.
  registerAgent(createFleetAgent(pool, config.toolDelayMs));
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter: new VercelAIAdapter({ model: openai.chat('fake-model') }) });
  DBOS.setConfig({ name: CRASH_APPLICATION_NAME, systemDatabaseUrl: withIdleTransactionTimeout(connectionString), applicationVersion: CRASH_APPLICATION_VERSION, logLevel: 'error' });
  await DBOS.launch();
  // After launch: the queue (DBOS keeps it in its queues table, where the API process checks it before enqueueing).
  await DBOS.registerQueue(FLEET_QUEUE, { minPollingIntervalMs: 20, workerConcurrency: config.workerConcurrency });
  emit({ event: 'launched', at: Date.now() });

  for (const sessionId of config.sessions) await waitForWorkflowEnd(stateStore, sessionId);
  await executor.close();
  await DBOS.shutdown();
  await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close(), pool.end()]);
}

/** Wait until `sessionId` has a run (the API process may not have started it yet) whose DBOS workflow ended. */
async function waitForWorkflowEnd(stateStore: PostgresStateStore, sessionId: string): Promise<void> {
  for (;;) {
    const workflowId = (await stateStore.getCurrentRun(sessionId))?.workflowId;
    const status = workflowId === undefined ? undefined : (await DBOS.getWorkflowStatus(workflowId))?.status;
    if (status !== undefined && ENDED.has(status)) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

runWorker(main);
