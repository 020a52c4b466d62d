/**
 * Fleet-member worker: one worker process of the test/crash/fleet drills (`node --import tsx fleet-member-worker.ts`,
 * configuration in `HELIX_CRASH_WORKER_CONFIG`, see {@link FleetMemberWorkerConfig}). Before `DBOS.launch()` it joins
 * the fleet under its executor id (`FleetMember.join`: it waits there while a live process holds the id), registers
 * the ledger agent and constructs an executor with an llmAdapter (the real `@ai-sdk/openai` client against the
 * parent's fake server) and, with `modelLimits`, a PostgresModelLimiter. After launch it registers the fleet queue and
 * starts the member's sweeper. It prints `joining`, `joined`, `launched` and, on the way out, `leaving`. It runs whatever
 * DBOS dequeues for it until every configured session's workflow ended (exit 0) or SIGTERM, after which it shuts down
 * gracefully: executor.close() (with `drain`: draining, and member.handOver() after DBOS.shutdown()), DBOS.shutdown(),
 * its connections closed, member.leave() (exit 0).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { FleetMember } from '../../../src/fleet/fleet-member.js';
import { PostgresModelLimiter } from '../../../src/limits/postgres-model-limiter.js';
import { VercelAIAdapter } from '../../../src/llm/vercel-ai-adapter.js';
import { registerAgent } from '../../../src/steps/runtime-registry.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { withIdleTransactionTimeout } from '../../../src/store/postgres/session-timeouts.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import { createLedgerFleetAgent } from './fleet-agent.js';
import { FLEET_QUEUE, type FleetMemberWorkerConfig, type FleetWorkerEvent } from './fleet-worker-config.js';
import { CRASH_APPLICATION_NAME, CRASH_APPLICATION_VERSION, WORKER_CONFIG_ENV } from './worker-config.js';
import { emit, runWorker } from './worker-lifecycle.js';

const POLL_MS = 100;
/** DBOS statuses after which a workflow runs no more. */
const ENDED = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'];

function readConfig(): FleetMemberWorkerConfig {
  const raw = process.env[WORKER_CONFIG_ENV];
  if (raw === undefined) throw new Error(`${WORKER_CONFIG_ENV} is not set`);
  return JSON.parse(raw) as FleetMemberWorkerConfig;
}

function announce(event: FleetWorkerEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** The connections and the executor of this worker. */
interface MemberRuntime {
  pool: pg.Pool;
  executor: DBOSAgentExecutor;
  modelLimiter: PostgresModelLimiter | undefined;
  close: () => Promise<void>;
}

function createRuntime(config: FleetMemberWorkerConfig): MemberRuntime {
  const connectionString = config.databaseUrl;
  const pool = new pg.Pool({ connectionString, max: 4 });
  pool.on('error', () => undefined);
  const stateStore = new PostgresStateStore({ connectionString });
  const streamManager = new PostgresStreamManager({ connectionString });
  const usageStore = new PostgresUsageStore({ connectionString });
  const limits = config.modelLimits;
  const lease = config.permitLeaseMs === undefined ? {} : { permitLeaseMs: config.permitLeaseMs };
  const modelLimiter = limits === undefined ? undefined : new PostgresModelLimiter({ connectionString, limits, ...lease });
  const openai = createOpenAI({ baseURL: config.openaiBaseUrl, apiKey: 'test' });
  const llmAdapter = new VercelAIAdapter({ model: openai.chat('fake-model') });
  registerAgent(createLedgerFleetAgent(pool, config.toolDelayMs));
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter, ...(modelLimiter === undefined ? {} : { modelLimiter }) });
  const close = async (): Promise<void> => {
    await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close(), modelLimiter?.close(), pool.end()]);
  };
  return { pool, executor, modelLimiter, close };
}

async function main(): Promise<void> {
  const config = readConfig();
  const systemDatabaseUrl = withIdleTransactionTimeout(config.databaseUrl);
  const terminated = new Promise<'terminated'>((resolve) => process.once('SIGTERM', () => resolve('terminated')));
  // Built before join (nothing runs until launch): a takeover releases a dead member's model permits through it.
  const runtime = createRuntime(config);
  announce({ event: 'joining', at: Date.now() });
  const member = await FleetMember.join({
    systemDatabaseUrl,
    executorId: config.executorId,
    applicationVersion: CRASH_APPLICATION_VERSION,
    recoveryQueue: FLEET_QUEUE,
    deadAfterMs: config.deadAfterMs,
    sweepIntervalMs: config.sweepIntervalMs,
    ...(runtime.modelLimiter === undefined ? {} : { modelLimiter: runtime.modelLimiter }),
  });
  announce({ event: 'joined', at: Date.now() });

  DBOS.setConfig({
    name: CRASH_APPLICATION_NAME,
    systemDatabaseUrl,
    applicationVersion: CRASH_APPLICATION_VERSION,
    executorID: member.executorId,
    logLevel: 'error',
  });
  await DBOS.launch();
  await DBOS.registerQueue(FLEET_QUEUE, { minPollingIntervalMs: 20, workerConcurrency: config.workerConcurrency });
  member.startRecovery();
  emit({ event: 'launched', at: Date.now() });

  const stop = { requested: false };
  await Promise.race([untilSessionsEnded(runtime.pool, config.sessions, stop), terminated]);
  stop.requested = true;
  // Graceful: no run starts or records here after DBOS shut down and the connections closed; then the lease goes.
  await runtime.executor.close(config.drain === true ? { drain: true } : {});
  await DBOS.shutdown();
  if (config.drain === true) await member.handOver();
  await runtime.close();
  announce({ event: 'leaving', at: Date.now() });
  await member.leave();
}

/** Resolve once every session has a run whose DBOS workflow ended (whichever process ran it), or `stop` is requested. */
async function untilSessionsEnded(pool: pg.Pool, sessions: string[], stop: { requested: boolean }): Promise<void> {
  while (!stop.requested) {
    const { rows } = await pool.query<{ ended: string }>(
      `SELECT count(DISTINCT run.session_id) AS ended FROM __agents_runs run
       JOIN dbos.workflow_status workflow ON workflow.workflow_uuid = run.workflow_id
       WHERE run.session_id = ANY($1) AND workflow.status = ANY($2)`,
      [sessions, ENDED],
    );
    if (Number(rows[0]?.ended ?? 0) === sessions.length) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

runWorker(main);
