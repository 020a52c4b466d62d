/**
 * Crash-drill worker for companions (`node --import tsx companion-worker.ts`, configuration in
 * `HELIX_CRASH_WORKER_CONFIG`, DBOS executor id in `DBOS__VMID`). The model is a MockLLMAdapter whose answers derive
 * from the transcript (every process answers alike) and which records each call in a side table.
 * Parent messages: `spawn <name> <text>` (blocking researcher), `bg <name> <text>` (non-blocking watcher),
 * `human <name> <text>` (blocking clerk, which asks a human through the client tool `confirm`), `ask <name> <text>`
 * (sendMessage); anything else is answered in text.
 * - start: execute() each parent message in turn, print `started`, await its result (and the companions' turns);
 * - submit: answer `submit` against the root (`autoResumeOnSubmit` as configured), print `started` with the run it
 *   resumed, await it;
 * - recover: never execute; DBOS recovers the workflows at launch; await the given parent runs.
 * Fault injection (not in recover mode): `hangOn` blocks a model call, `hangOnHumanAnswer` the clerk's call that reads
 * the answer; `hangAfterMarkerCas` blocks right after the real store committed a companion marker CAS (the store
 * itself is the real PostgresStateStore).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { readPersistentMarker } from '../../../src/orchestration/persistent-session.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { CompanionWorkerConfig } from './companion-worker-config.js';
import { WORKER_CONFIG_ENV } from './worker-config.js';
import { emit, runWorker } from './worker-lifecycle.js';
import { launchDrillExecutor, runEnded } from './worker-runtime.js';

const never = (): Promise<never> => new Promise(() => undefined);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const config = JSON.parse(process.env[WORKER_CONFIG_ENV] ?? '{}') as CompanionWorkerConfig;
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 3 });
  const researcher = defineAgent({ name: 'researcher', systemPrompt: 'Research.', outputSchema: z.object({ answer: z.string() }), maxSteps: 3 });
  const watcher = defineAgent({ name: 'watcher', systemPrompt: 'Watch.', outputSchema: z.object({ seen: z.string() }), maxSteps: 3 });
  const confirm = defineTool({ name: 'confirm', description: 'Ask a human to confirm', parameters: z.object({ what: z.string() }), execute: 'client' });
  const clerk = defineAgent({ name: 'clerk', systemPrompt: 'Ask first.', tools: [confirm], outputSchema: z.object({ confirmed: z.unknown() }), maxSteps: 3 });
  const boss = defineAgent({
    name: 'boss',
    systemPrompt: 'Delegate.',
    maxSteps: 4,
    persistentAgents: [
      { agent: researcher, mode: 'blocking' },
      { agent: watcher, mode: 'non-blocking' },
      { agent: clerk, mode: 'blocking' },
    ],
  });
  const llm = new MockLLMAdapter(async (input) => {
    const users = input.messages.filter((message) => message.role === 'user');
    // A delivered companion outcome is not the turn's own message.
    const last = users.filter((message) => message.id?.startsWith('companion:') !== true).at(-1);
    const text = typeof last?.content === 'string' ? last.content : '';
    const delivered = users.filter((message) => message.id?.startsWith('companion:')).length;
    const lastMessage = input.messages.at(-1);
    await pool.query('INSERT INTO companion_llm_calls VALUES ($1, $2, $3, $4, $5)', [input.sessionId, input.agentType, text, delivered, lastMessage?.role ?? null]);
    if (config.mode !== 'recover' && config.hangOn !== undefined && text === config.hangOn) await never();
    if (input.agentType === 'clerk') {
      if (lastMessage?.role !== 'tool') return { type: 'tool_calls', toolCalls: [{ id: `confirm-${input.sessionId ?? ''}`, name: 'confirm', arguments: { what: text } }] };
      if (config.mode === 'submit' && config.hangOnHumanAnswer === true) await never();
      return { type: 'structured_output', output: { confirmed: lastMessage.content } };
    }
    if (input.agentType === 'researcher') return { type: 'structured_output', output: { answer: `re: ${text}` } };
    if (input.agentType === 'watcher') return { type: 'structured_output', output: { seen: text } };
    if (input.messages.at(-1)?.role === 'tool') return { type: 'text', text: 'parent done' };
    const [verb, name, ...rest] = text.split(' ');
    const id = `c-${text.replace(/\W/g, '_')}`;
    const message = rest.join(' ');
    if (verb === 'spawn') return { type: 'tool_calls', toolCalls: [{ id, name: 'companion__spawnAgent', arguments: { agentType: 'researcher', name, message } }] };
    if (verb === 'human') return { type: 'tool_calls', toolCalls: [{ id, name: 'companion__spawnAgent', arguments: { agentType: 'clerk', name, message } }] };
    if (verb === 'bg') return { type: 'tool_calls', toolCalls: [{ id, name: 'companion__spawnAgent', arguments: { agentType: 'watcher', name, message } }] };
    if (verb === 'ask') return { type: 'tool_calls', toolCalls: [{ id, name: 'companion__sendMessage', arguments: { name, message } }] };
    return { type: 'text', text: `echo: ${text}` };
  });
  const realStore = new PostgresStateStore({ connectionString: config.databaseUrl });
  const stateStore = config.mode !== 'recover' && config.hangAfterMarkerCas !== undefined ? hangingAfterMarkerCas(realStore, config.hangAfterMarkerCas) : realStore;
  const streamManager = new PostgresStreamManager({ connectionString: config.databaseUrl });
  const { databaseUrl, persistentWarmWindowMs, hitlWarmWindowMs, autoResumeOnSubmit } = config;
  const executor = await launchDrillExecutor(boss, { databaseUrl, stateStore, streamManager, llmAdapter: llm, persistentWarmWindowMs, hitlWarmWindowMs, autoResumeOnSubmit });

  const awaitRun = async (runId: string): Promise<void> => {
    const run = await runEnded(realStore, config.sessionId, runId);
    // …and its workflow has returned (the run's record commits a moment before DBOS records the workflow's end).
    while (run.workflowId !== undefined && (await DBOS.getWorkflowStatus(run.workflowId))?.status === 'PENDING') await pause(25);
    emit({ event: 'result', sessionId: runId, result: { status: run.status, output: (run.metadata as { output?: unknown } | undefined)?.output } });
  };
  for (const message of config.mode === 'start' ? config.messages : []) {
    const handle = await executor.execute(boss, message, { sessionId: config.sessionId });
    emit({ event: 'started', sessionId: config.sessionId, runId: handle.runId, workflowId: handle.workflowId });
    await awaitRun(handle.runId);
    while ((await realStore.getSubSessionRefs(config.sessionId)).some((ref) => ref.status === 'running')) await pause(25);
  }
  if (config.mode === 'start' && config.holdOpen === true) await never();
  if (config.mode === 'submit' && config.submit !== undefined) {
    const submitted = await executor.submitToolResult({ kind: 'client-tool-result', sessionId: config.sessionId, ...config.submit });
    if (submitted.runId === undefined) throw new Error(`the submission did not resume the session (${submitted.status}, ${submitted.next ?? 'no next'})`);
    emit({ event: 'started', sessionId: config.sessionId, runId: submitted.runId, workflowId: '' });
    await awaitRun(submitted.runId);
  }
  for (const runId of config.runIds ?? []) await awaitRun(runId);
  for (const child of config.waitParked ?? []) {
    while (readPersistentMarker((await realStore.loadState(child))?.metadata)?.phase !== 'closed') await pause(25);
    // …and its workflow has returned (closed is recorded a moment before the workflow's own result).
    const workflowId = readPersistentMarker((await realStore.loadState(child))?.metadata)?.workflowId ?? '';
    while ((await DBOS.getWorkflowStatus(workflowId))?.status === 'PENDING') await pause(25);
  }
  await DBOS.shutdown();
  await Promise.allSettled([realStore.close(), streamManager.close(), pool.end()]);
}

/** The real store, except that a version-checked marker write naming a workflow id containing `fragment` never returns once committed. */
function hangingAfterMarkerCas(store: PostgresStateStore, fragment: string): SessionStateStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'saveState') {
        return async (...args: Parameters<SessionStateStore['saveState']>) => {
          const written = await target.saveState(...args);
          if (args[2]?.expectedVersion !== undefined && args[1].metadata?.dbosWorkflowId?.includes(fragment) === true) await never();
          return written;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...parameters: unknown[]) => unknown).bind(target) : value;
    },
  });
}

runWorker(main);
