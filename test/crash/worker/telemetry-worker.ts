/**
 * Telemetry crash-drill worker (`node --import tsx telemetry-worker.ts`, configuration in `HELIX_CRASH_WORKER_CONFIG`
 * as a `TelemetryWorkerConfig`, DBOS executor id in `DBOS__VMID`). The agent worker's runtime — Postgres store,
 * streams and usage, the crash agent (its `blockToolCalls` never return in a start worker), the real
 * `@ai-sdk/openai` client against the parent's fake server — with an executor traced through
 * `telemetry: { tracer }`: an SDK tracer provider with `HelixIdGenerator` whose every ended span is appended to
 * `spanFile` at once (test/crash/telemetry/span-file.ts), so the spans of a process the parent SIGKILLs survive it.
 * - start: execute() every session, print `started`, await the results;
 * - recover: never execute; DBOS recovers the pending workflows at launch; await each session's run.
 * Each result is printed as one JSON line; then the worker exits 0.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { HookManager } from '../../../src/hooks/index.js';
import { VercelAIAdapter } from '../../../src/llm/vercel-ai-adapter.js';
import { registerAgent } from '../../../src/steps/runtime-registry.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import { registerDBOSAgentWorkflows } from '../../../src/workflows/agent.workflow.js';
import { fileTracing } from '../telemetry/span-file.js';
import type { TelemetryWorkerConfig } from '../telemetry/telemetry-drill.js';
import { createCrashAgent, type CrashAgent } from './crash-agent.js';
import {
  CRASH_APPLICATION_NAME,
  CRASH_APPLICATION_VERSION,
  WORKER_CONFIG_ENV,
  userMessageFor,
} from './worker-config.js';
import { emit, runWorker } from './worker-lifecycle.js';

function readConfig(): TelemetryWorkerConfig {
  const raw = process.env[WORKER_CONFIG_ENV];
  if (raw === undefined) throw new Error(`${WORKER_CONFIG_ENV} is not set`);
  const config = JSON.parse(raw) as TelemetryWorkerConfig;
  if (config.mode !== 'start' && config.mode !== 'recover') throw new Error(`unsupported mode ${String(config.mode)}`);
  return config;
}

async function main(): Promise<void> {
  const config = readConfig();
  const connectionString = config.databaseUrl;
  const pool = new pg.Pool({ connectionString, max: 4 });
  pool.on('error', () => undefined);
  const stateStore = new PostgresStateStore({ connectionString });
  const streamManager = new PostgresStreamManager({ connectionString });
  const usageStore = new PostgresUsageStore({ connectionString });
  const blocked = new Set(config.mode === 'start' ? (config.blockToolCalls ?? []) : []);
  const agent = createCrashAgent(pool, blocked);
  const openai = createOpenAI({ baseURL: config.openaiBaseUrl, apiKey: 'test' });
  const llmAdapter = new VercelAIAdapter({ model: openai.chat('fake-model') });
  const { tracer, provider } = fileTracing(config.spanFile);

  // As in every recovery-only process: the agent, the workflows and the executor exist before DBOS launches.
  registerAgent(agent);
  registerDBOSAgentWorkflows();
  const telemetry = { tracer };
  // holdFinish: the run's finish step body is over (its spans emitted, if emitted early) but its record is not.
  const onAgentComplete = async (): Promise<void> => {
    emit({ event: 'paused', point: 'finish_deferred', toolCallId: '' });
    await new Promise(() => undefined);
  };
  const hookManager = config.mode === 'start' && config.holdFinish === true ? new HookManager({ hooks: [{ onAgentComplete }] }) : undefined;
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter, telemetry, ...(hookManager === undefined ? {} : { hookManager }) });
  DBOS.setConfig({
    name: CRASH_APPLICATION_NAME,
    systemDatabaseUrl: connectionString,
    applicationVersion: config.applicationVersion ?? CRASH_APPLICATION_VERSION,
    logLevel: 'error',
  });
  await DBOS.launch();
  emit({ event: 'launched', at: Date.now() });

  await Promise.all(config.sessions.map((sessionId) => runSession(config, executor, agent, sessionId)));
  await DBOS.shutdown();
  await provider.shutdown();
  await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close(), pool.end()]);
}

async function runSession(
  config: TelemetryWorkerConfig,
  executor: DBOSAgentExecutor,
  agent: CrashAgent,
  sessionId: string,
): Promise<void> {
  const handle =
    config.mode === 'start'
      ? await executor.execute(agent, userMessageFor(sessionId), { sessionId })
      : await executor.getHandle(agent, sessionId);
  if (handle === null) throw new Error(`session ${sessionId} has no run to recover`);
  const { runId, workflowId } = handle;
  if (config.mode === 'start') emit({ event: 'started', sessionId, runId, workflowId });
  const result = await handle.result();
  emit({ event: 'result', sessionId, result, at: Date.now() });
}

runWorker(main);
