/**
 * Crash-drill worker for persistent sessions (`node --import tsx persistent-worker.ts`, configuration in
 * `HELIX_CRASH_WORKER_CONFIG`, DBOS executor id in `DBOS__VMID`). The model is a MockLLMAdapter whose answers
 * derive from the transcript (so every process answers alike) and which records each call in a side table;
 * the `lookup` tool records each execution and, in a `start` worker with `blockTools`, never returns.
 * - start: execute() each message (one persistent session, in order), print `started` per message, await results
 *   (with `closeTimeoutMs`: call executor.close() while a tool blocks the turn, then wait to be killed);
 * - recover: never execute; DBOS recovers the session's workflow at launch; await the given runs;
 * - send: execute() each message and await its result (a later process, possibly another applicationVersion).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { readPersistentMarker } from '../../../src/orchestration/persistent-session.js';
import type { PersistentWorkerConfig } from './persistent-worker-config.js';
import { WORKER_CONFIG_ENV } from './worker-config.js';
import { emit, runWorker } from './worker-lifecycle.js';
import { launchDrillExecutor, runEnded } from './worker-runtime.js';


async function main(): Promise<void> {
  const config = JSON.parse(process.env[WORKER_CONFIG_ENV] ?? '{}') as PersistentWorkerConfig;
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 3 });
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look something up',
    parameters: z.object({ topic: z.string() }),
    execute: async ({ topic }, context) => {
      await pool.query('INSERT INTO persistent_tool_runs VALUES ($1, $2)', [context.sessionId, context.toolCallId]);
      if (config.mode === 'start' && config.blockTools === true) await new Promise(() => undefined);
      return { found: topic };
    },
  });
  const agent = defineAgent({ name: 'drill_chat', systemPrompt: 'Chat.', tools: [lookup], maxSteps: 3 });
  const llm = new MockLLMAdapter(async (input) => {
    const users = input.messages.flatMap((message) => (message.role === 'user' && typeof message.content === 'string' ? [message.content] : []));
    const text = users.at(-1) ?? '';
    const runId = input.messages.findLast((message) => message.role === 'user')?.id?.split(':')[0] ?? '';
    await pool.query('INSERT INTO persistent_llm_calls VALUES ($1, $2, $3, $4)', [input.sessionId, runId, input.step, text]);
    const last = input.messages.at(-1);
    if (last?.role === 'tool') return { type: 'text', text: `done: ${text}` };
    if (text.startsWith('lookup ')) return { type: 'tool_calls', toolCalls: [{ id: `call-${text.replace(/\W/g, '_')}`, name: 'lookup', arguments: { topic: text.slice(7) } }] };
    return { type: 'text', text: `echo: ${users.join(' | ')}` };
  });
  const stateStore = new PostgresStateStore({ connectionString: config.databaseUrl });
  const streamManager = new PostgresStreamManager({ connectionString: config.databaseUrl });
  const { databaseUrl, applicationVersion, persistentWarmWindowMs } = config;
  const executor = await launchDrillExecutor(agent, { databaseUrl, applicationVersion, stateStore, streamManager, llmAdapter: llm, persistentWarmWindowMs });

  const runIds: string[] = [...(config.runIds ?? [])];
  for (const message of config.mode === 'recover' ? [] : config.messages) {
    const handle = await executor.execute(agent, message, { sessionId: config.sessionId, mode: 'persistent' });
    emit({ event: 'started', sessionId: config.sessionId, runId: handle.runId, workflowId: handle.workflowId });
    runIds.push(handle.runId);
  }
  if (config.mode === 'start' && config.closeTimeoutMs !== undefined) {
    while (Number((await pool.query<{ count: string }>('SELECT count(*) FROM persistent_tool_runs WHERE session_id = $1', [config.sessionId])).rows[0]?.count ?? 0) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await executor.close({ timeoutMs: config.closeTimeoutMs });
    emit({ event: 'result', sessionId: 'close', result: { returned: true } });
    await new Promise(() => undefined);
  }
  for (const runId of runIds) {
    const run = await runEnded(stateStore, config.sessionId, runId);
    emit({ event: 'result', sessionId: runId, result: { status: run.status, output: (run.metadata as { output?: unknown } | undefined)?.output, workflowId: run.workflowId } });
  }
  // A parking session: exit only once its workflow parked (a shutdown would leave it pending).
  while (config.persistentWarmWindowMs !== undefined && readPersistentMarker((await stateStore.loadState(config.sessionId))?.metadata)?.phase !== 'closed') {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  // …and once DBOS recorded its end: the marker closes in the workflow's last step, before the workflow returns.
  const workflowId = config.persistentWarmWindowMs === undefined ? undefined : (await stateStore.loadState(config.sessionId))?.metadata?.dbosWorkflowId;
  while (workflowId !== undefined && (await DBOS.getWorkflowStatus(workflowId))?.status === 'PENDING') {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await DBOS.shutdown();
  await Promise.allSettled([stateStore.close(), streamManager.close(), pool.end()]);
}

runWorker(main);
