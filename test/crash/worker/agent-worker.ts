/**
 * Crash-drill worker: one child process of a crash test, run as `node --import tsx agent-worker.ts` with its
 * configuration in the `HELIX_CRASH_WORKER_CONFIG` environment variable (see worker-config.ts) and its DBOS
 * executor id in `DBOS__VMID`. It wires the real runtime (Postgres store, streams and usage, the real
 * `@ai-sdk/openai` client against the parent's fake server), registers the agent and constructs the
 * executor BEFORE `DBOS.launch()` (pinned applicationVersion), then:
 * - start: execute() every session, await the results;
 * - recover: never execute; DBOS recovers the pending workflows at launch; await each session's run;
 * - replay: rewind each session's completed workflow in place (every step kept) and await its re-execution;
 * - resume: resume() each session (interrupted, or parked waiting for a human) and await the new run.
 * A run waiting warm for a human is awaited further (the parent answers it from another process); a parked
 * run is a result. Each result is printed as one JSON line; then the worker exits 0. The parent SIGKILLs it
 * at chosen points.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import type { AnyAgentConfig } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import { HookManager } from '../../../src/hooks/index.js';
import { VercelAIAdapter } from '../../../src/llm/vercel-ai-adapter.js';
import { registerAgent } from '../../../src/steps/runtime-registry.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import type { AgentResult } from '../../../src/types/result.js';
import { registerDBOSAgentWorkflows } from '../../../src/workflows/agent.workflow.js';
import { createCrashAgent, type CrashAgent } from './crash-agent.js';
import { createHitlAgent, type HitlAgent } from './hitl-agent.js';
import { setTransactionalToolProbeForTesting } from '../../../src/steps/transactional-tool.step.js';
import { setRunBoundaryProbeForTesting } from '../../../src/steps/run-boundary-probe.js';
import { setBatchRecordProbeForTesting } from '../../../src/journal/batch-record.js';
import { createTransactionalAgent, type TransactionalAgent } from './transactional-agent.js';
import {
  CRASH_APPLICATION_NAME,
  CRASH_APPLICATION_VERSION,
  WORKER_CONFIG_ENV,
  userMessageFor,
  type PausePoint,
  type WorkerConfig,
} from './worker-config.js';
import { emit, runWorker } from './worker-lifecycle.js';

const POLL_MS = 25;
/** Late-executor mode: how long the recovered workflow may take to be claimed after launch. */
const CLAIM_TIMEOUT_MS = 20_000;

function readConfig(): WorkerConfig {
  const raw = process.env[WORKER_CONFIG_ENV];
  if (raw === undefined) throw new Error(`${WORKER_CONFIG_ENV} is not set`);
  return JSON.parse(raw) as WorkerConfig;
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** The runtime pieces a worker owns (closed on exit). */
interface WorkerRuntime {
  config: WorkerConfig;
  agent: CrashAgent;
  hitlAgent: HitlAgent;
  transactionalAgent: TransactionalAgent;
  pool: pg.Pool;
  stateStore: PostgresStateStore;
  streamManager: PostgresStreamManager;
  usageStore: PostgresUsageStore;
  construct: () => DBOSAgentExecutor;
}

function createRuntime(config: WorkerConfig): WorkerRuntime {
  const connectionString = config.databaseUrl;
  const pool = new pg.Pool({ connectionString, max: 4 });
  pool.on('error', () => undefined); // an idle client killed by a fault drill must not crash the worker
  const stateStore = new PostgresStateStore({ connectionString });
  const flush = config.streamFlushIntervalMs === undefined ? {} : { flushIntervalMs: config.streamFlushIntervalMs };
  const streamManager = new PostgresStreamManager({ connectionString }, flush);
  const usageStore = new PostgresUsageStore({ connectionString });
  const blocked = new Set(config.mode === 'start' ? (config.blockToolCalls ?? []) : []);
  const agent = createCrashAgent(pool, blocked, config.toolDelayMs ?? 0);
  const hitlAgent = createHitlAgent(pool);
  const pause = pauseIfDrilled(config);
  setTransactionalToolProbeForTesting(pause);
  setRunBoundaryProbeForTesting(pause);
  setBatchRecordProbeForTesting((stepName) => pause('batch_committed', stepName));
  const transactionalAgent = createTransactionalAgent(pool, pause);
  // The transactional drills' app database is the drill database itself (also the DBOS system database).
  const appDatabase = config.agent === 'transactional' ? { appDatabase: { connectionString } } : {};
  const openai = createOpenAI({ baseURL: config.openaiBaseUrl, apiKey: 'test' });
  const llmAdapter = new VercelAIAdapter({ model: openai.chat('fake-model') });
  const warm = config.hitlWarmWindowMs === undefined ? {} : { hitlWarmWindowMs: config.hitlWarmWindowMs };
  const delay = config.messageHookDelayMs;
  const hooks = delay === undefined ? {} : { hookManager: new HookManager({ hooks: [{ onMessage: () => sleep(delay) }] }) };
  const journal = config.journal === undefined ? {} : { journal: config.journal };
  const construct = (): DBOSAgentExecutor => new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter, ...warm, ...hooks, ...appDatabase, ...journal });
  return { config, agent, hitlAgent, transactionalAgent, pool, stateStore, streamManager, usageStore, construct };
}

/** Start mode with `pauseAt`: the drilled call stops at its point (announced on stdout) until the parent kills us. */
function pauseIfDrilled(config: WorkerConfig): (point: PausePoint, toolCallId: string) => Promise<void> {
  return async (point, toolCallId) => {
    if (config.mode !== 'start' || config.pauseAt?.point !== point || config.pauseAt.toolCallId !== toolCallId) return;
    emit({ event: 'paused', point, toolCallId });
    await new Promise<never>(() => undefined);
  };
}

async function main(): Promise<void> {
  const config = readConfig();
  const runtime = createRuntime(config);
  // What a recovery-only process must do before launch: register its agents and workflows, build the executor
  // (the late-executor variant builds it only after the recovered workflow is running).
  registerAgent(runtime.agent);
  registerAgent(runtime.hitlAgent);
  registerAgent(runtime.transactionalAgent);
  registerDBOSAgentWorkflows();
  let executor = config.lateExecutorMs === undefined ? runtime.construct() : undefined;
  DBOS.setConfig({
    name: CRASH_APPLICATION_NAME,
    systemDatabaseUrl: config.databaseUrl,
    applicationVersion: config.applicationVersion ?? CRASH_APPLICATION_VERSION,
    logLevel: 'error',
  });
  await DBOS.launch();
  emit({ event: 'launched', at: Date.now() });

  if (executor === undefined) {
    await waitUntilClaimedHere(runtime, config.sessions);
    await sleep(config.lateExecutorMs ?? 0);
    executor = runtime.construct();
    emit({ event: 'executor_constructed', at: Date.now() });
  }

  await Promise.all(config.sessions.map((sessionId) => runSession(runtime, executor, sessionId)));
  await shutdown(runtime);
}

async function runSession(runtime: WorkerRuntime, executor: DBOSAgentExecutor, sessionId: string): Promise<void> {
  const result = await outcomeOf(runtime, executor, sessionId);
  // Printed as soon as this session's run ends (sessions of one worker end independently).
  emit({ event: 'result', sessionId, result, at: Date.now() });
}

async function outcomeOf(runtime: WorkerRuntime, executor: DBOSAgentExecutor, sessionId: string): Promise<unknown> {
  const { config } = runtime;
  const agents: Record<string, AnyAgentConfig> = { hitl: runtime.hitlAgent, transactional: runtime.transactionalAgent };
  const agent: AnyAgentConfig = agents[config.agent ?? 'crash'] ?? runtime.agent;
  if (config.mode === 'start') {
    const handle = await executor.execute(agent, userMessageFor(sessionId), { sessionId });
    emit({ event: 'started', sessionId, runId: handle.runId, workflowId: handle.workflowId });
    return settledResult(runtime, handle);
  }
  if (config.mode === 'recover') {
    const handle = await executor.getHandle(agent, sessionId);
    if (handle === null) throw new Error(`session ${sessionId} has no run to recover`);
    return settledResult(runtime, handle);
  }
  if (config.mode === 'resume') {
    const handle = await executor.resume(agent, sessionId);
    emit({ event: 'started', sessionId, runId: handle.runId, workflowId: handle.workflowId });
    return settledResult(runtime, handle);
  }
  const workflowId = await currentWorkflowId(runtime, sessionId);
  const steps = (await DBOS.listWorkflowSteps(workflowId)) ?? [];
  // Rewinding past the last recorded step keeps every checkpoint: DBOS re-runs the workflow body by id and
  // every step call must be answered from its recorded output.
  const startStep = Math.max(-1, ...steps.map((step) => step.functionID)) + 1;
  const handle = await DBOS.rewindWorkflow(workflowId, { startStep });
  return handle.getResult();
}

/**
 * The run's outcome: what its workflow returned (a parked run returns `suspended_client_tool`), or `aborted`.
 * While the run waits warm for a human, `handle.result()` resolves early with `suspended_client_tool` and the
 * run record still says `running`: keep awaiting. Once the record says anything else, `handle.result()`
 * resolves only with the workflow's own outcome, so the worker never exits before its workflow ended.
 */
async function settledResult(runtime: WorkerRuntime, handle: AgentExecutionHandle<unknown>): Promise<AgentResult> {
  for (;;) {
    const result = await handle.result();
    if (result.status !== 'suspended_client_tool') return result;
    const run = await runtime.stateStore.getRun(handle.sessionId, handle.runId);
    if (run?.status !== 'running') return handle.result();
    await sleep(POLL_MS);
  }
}

async function currentWorkflowId(runtime: WorkerRuntime, sessionId: string): Promise<string> {
  const run = await runtime.stateStore.getCurrentRun(sessionId);
  if (run?.workflowId === undefined) throw new Error(`session ${sessionId} has no run with a workflow id`);
  return run.workflowId;
}

/** Wait until every session's recovered workflow was dequeued (claimed) by this process after launch. */
async function waitUntilClaimedHere(runtime: WorkerRuntime, sessions: string[]): Promise<void> {
  const executorId = process.env.DBOS__VMID ?? 'local';
  const deadline = Date.now() + CLAIM_TIMEOUT_MS;
  for (const sessionId of sessions) {
    const workflowId = await currentWorkflowId(runtime, sessionId);
    for (;;) {
      const status = await DBOS.getWorkflowStatus(workflowId);
      if (status?.status === 'PENDING' && status.executorId === executorId && status.dequeuedAt !== undefined) break;
      if (Date.now() > deadline) {
        const seen = status === null ? 'no workflow row' : `status ${status.status}, executor ${String(status.executorId)}, version ${String(status.applicationVersion)}`;
        throw new Error(`workflow ${workflowId} was not recovered by this process within ${CLAIM_TIMEOUT_MS} ms (${seen})`);
      }
      await sleep(POLL_MS);
    }
  }
}

async function shutdown(runtime: WorkerRuntime): Promise<void> {
  await DBOS.shutdown();
  await Promise.allSettled([runtime.stateStore.close(), runtime.streamManager.close(), runtime.usageStore.close(), runtime.pool.end()]);
}

runWorker(main);
