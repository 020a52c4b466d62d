/**
 * Crash-drill worker for companions (`node --import tsx companion-worker.ts`, configuration in
 * `HELIX_CRASH_WORKER_CONFIG`, DBOS executor id in `DBOS__VMID`). The model is a MockLLMAdapter whose answers derive
 * from the transcript (every process answers alike) and which records each call in a side table.
 * Parent messages: `spawn <name> <text>` (blocking researcher), `bg <name> <text>` (non-blocking watcher),
 * `ask <name> <text>` (sendMessage); anything else is answered in text.
 * - start: execute() each parent message in turn, print `started`, await its result (and the companions' turns);
 * - recover: never execute; DBOS recovers the workflows at launch; await the given parent runs.
 * Fault injection (start mode only): `hangOn` blocks a model call; `hangAfterContinueCas` blocks right after the real
 * store committed a continuation's marker CAS (the store itself is the real PostgresStateStore).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { z } from 'zod';
import { defineAgent } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { readPersistentMarker } from '../../../src/orchestration/persistent-session.js';
import { registerAgent } from '../../../src/steps/runtime-registry.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { registerDBOSAgentWorkflows } from '../../../src/workflows/agent.workflow.js';
import type { CompanionWorkerConfig } from './companion-worker-config.js';
import { CRASH_APPLICATION_NAME, CRASH_APPLICATION_VERSION, WORKER_CONFIG_ENV } from './worker-config.js';
import { emit, runWorker } from './worker-lifecycle.js';

const never = (): Promise<never> => new Promise(() => undefined);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const config = JSON.parse(process.env[WORKER_CONFIG_ENV] ?? '{}') as CompanionWorkerConfig;
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 3 });
  const researcher = defineAgent({ name: 'researcher', systemPrompt: 'Research.', outputSchema: z.object({ answer: z.string() }), maxSteps: 3 });
  const watcher = defineAgent({ name: 'watcher', systemPrompt: 'Watch.', outputSchema: z.object({ seen: z.string() }), maxSteps: 3 });
  const boss = defineAgent({
    name: 'boss',
    systemPrompt: 'Delegate.',
    maxSteps: 4,
    persistentAgents: [
      { agent: researcher, mode: 'blocking' },
      { agent: watcher, mode: 'non-blocking' },
    ],
  });
  const llm = new MockLLMAdapter(async (input) => {
    const users = input.messages.filter((message) => message.role === 'user');
    // A delivered companion outcome is not the turn's own message.
    const last = users.filter((message) => message.id?.startsWith('companion:') !== true).at(-1);
    const text = typeof last?.content === 'string' ? last.content : '';
    const delivered = users.filter((message) => message.id?.startsWith('companion:')).length;
    await pool.query('INSERT INTO companion_llm_calls VALUES ($1, $2, $3, $4)', [input.sessionId, input.agentType, text, delivered]);
    if (config.mode === 'start' && config.hangOn !== undefined && text === config.hangOn) await never();
    if (input.agentType === 'researcher') return { type: 'structured_output', output: { answer: `re: ${text}` } };
    if (input.agentType === 'watcher') return { type: 'structured_output', output: { seen: text } };
    if (input.messages.at(-1)?.role === 'tool') return { type: 'text', text: 'parent done' };
    const [verb, name, ...rest] = text.split(' ');
    const id = `c-${text.replace(/\W/g, '_')}`;
    const message = rest.join(' ');
    if (verb === 'spawn') return { type: 'tool_calls', toolCalls: [{ id, name: 'companion__spawnAgent', arguments: { agentType: 'researcher', name, message } }] };
    if (verb === 'bg') return { type: 'tool_calls', toolCalls: [{ id, name: 'companion__spawnAgent', arguments: { agentType: 'watcher', name, message } }] };
    if (verb === 'ask') return { type: 'tool_calls', toolCalls: [{ id, name: 'companion__sendMessage', arguments: { name, message } }] };
    return { type: 'text', text: `echo: ${text}` };
  });
  const realStore = new PostgresStateStore({ connectionString: config.databaseUrl });
  const stateStore = config.mode === 'start' && config.hangAfterContinueCas === true ? hangingAfterContinueCas(realStore) : realStore;
  const streamManager = new PostgresStreamManager({ connectionString: config.databaseUrl });
  registerAgent(boss);
  registerDBOSAgentWorkflows();
  const executor = new DBOSAgentExecutor({
    stateStore,
    streamManager,
    llmAdapter: llm,
    ...(config.persistentWarmWindowMs === undefined ? {} : { persistentWarmWindowMs: config.persistentWarmWindowMs }),
  });
  DBOS.setConfig({ name: CRASH_APPLICATION_NAME, systemDatabaseUrl: config.databaseUrl, applicationVersion: CRASH_APPLICATION_VERSION, logLevel: 'error' });
  await DBOS.launch();
  emit({ event: 'launched', at: Date.now() });

  const awaitRun = async (runId: string): Promise<void> => {
    for (;;) {
      const run = await realStore.getRun(config.sessionId, runId);
      if (run !== null && run.status !== 'running') {
        emit({ event: 'result', sessionId: runId, result: { status: run.status, output: (run.metadata as { output?: unknown } | undefined)?.output } });
        return;
      }
      await pause(25);
    }
  };
  for (const message of config.mode === 'recover' ? [] : config.messages) {
    const handle = await executor.execute(boss, message, { sessionId: config.sessionId });
    emit({ event: 'started', sessionId: config.sessionId, runId: handle.runId, workflowId: handle.workflowId });
    await awaitRun(handle.runId);
    while ((await realStore.getSubSessionRefs(config.sessionId)).some((ref) => ref.status === 'running')) await pause(25);
  }
  for (const runId of config.runIds ?? []) await awaitRun(runId);
  for (const child of config.waitParked ?? []) {
    while (readPersistentMarker((await realStore.loadState(child))?.metadata)?.phase !== 'closed') await pause(25);
  }
  await DBOS.shutdown();
  await Promise.allSettled([realStore.close(), streamManager.close(), pool.end()]);
}

/** The real store, except that the version-checked write of a continuation's marker (the CAS) never returns once committed. */
function hangingAfterContinueCas(store: PostgresStateStore): SessionStateStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'saveState') {
        return async (...args: Parameters<SessionStateStore['saveState']>) => {
          const written = await target.saveState(...args);
          if (args[1].metadata?.dbosWorkflowId?.includes('-continue-') === true) await never();
          return written;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...parameters: unknown[]) => unknown).bind(target) : value;
    },
  });
}

runWorker(main);
