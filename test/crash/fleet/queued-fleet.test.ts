/**
 * A queued fleet on one Postgres: this test process is the API process (a DBOSAgentExecutor without llmAdapter, DBOS
 * launched with `listenQueues: []` under its own executor id) and two worker processes (each an executor with an
 * llmAdapter, its own executor id, the queue registered with `workerConcurrency: 2`) run what it enqueues. The API
 * process executes 12 sessions of an agent that names the queue, reads each run's stream and awaits each result;
 * every run is executed by a worker, never by the API process, each step once, and both workers take a share.
 */
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import type { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import type { AgentResult } from '../../../src/types/result.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { useFleetDrill } from './fleet-drill.js';
import { scenarioByStep, type DrillScenario } from '../support/drill-scenarios.js';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { chunkRowCount, stepRecordsOf, toolRunsOf } from '../support/durable-probes.js';
import { describeConversation, storedMessages } from '../support/session-snapshot.js';
import { outlineOf, textOfStep } from '../support/stream-view.js';
import { createFleetAgent, type FleetAgent } from '../worker/fleet-agent.js';
import { FLEET_QUEUE, type FleetWorkerConfig } from '../worker/fleet-worker-config.js';
import { CRASH_APPLICATION_VERSION, userMessageFor } from '../worker/worker-config.js';

const FLEET_WORKER_SCRIPT = fileURLToPath(new URL('../worker/fleet-worker.ts', import.meta.url));
const WORKER_IDS = ['fleet-worker-1', 'fleet-worker-2'];
const SESSIONS = Array.from({ length: 12 }, (_, index) => `fleet-${index + 1}`);
/** Twelve runs, two at a time per worker: neither worker can take them all at once. */
const WORKER_CONCURRENCY = 2;
/** Keeps a worker's two slots busy for a while, so the other worker's dispatcher finds runs waiting. */
const TOOL_DELAY_MS = 300;
const LOOKUP_CALL_ID = 'call_1_lookup_fleet';

const answerDeltas = (sessionId: string): string[] => ['Fleet ', 'answer ', 'for ', `${sessionId}.`];
const answerOf = (sessionId: string): string => answerDeltas(sessionId).join('');
const fleetScenario = (sessionId: string): DrillScenario =>
  scenarioByStep([
    { type: 'tool_calls', toolCalls: [{ id: LOOKUP_CALL_ID, name: 'lookup', arguments: { key: sessionId } }] },
    { type: 'text', text: answerDeltas(sessionId) },
  ]);

// The API process launches first (creating DBOS's tables); it never dequeues, and runs nothing it enqueues.
const { env, api } = useFleetDrill('crash_fleet', SESSIONS.map((sessionId) => [sessionId, fleetScenario(sessionId)] as const));

/** What the API process saw of one session's run. */
interface ObservedRun {
  sessionId: string;
  handle: AgentExecutionHandle<unknown>;
  chunks: StreamChunk[];
  result: AgentResult<unknown>;
}

/** What a client shows of a stream: a `step_reset` drops the chunks of its step read before it. */
function visibleChunks(chunks: readonly StreamChunk[]): StreamChunk[] {
  return chunks.reduce<StreamChunk[]>(
    (shown, chunk) => (chunk.type === 'step_reset' ? shown.filter((seen) => !(seen.agentId === chunk.agentId && seen.step === chunk.step)) : [...shown, chunk]),
    [],
  );
}

async function executeAndObserve(executor: DBOSAgentExecutor, agent: FleetAgent, sessionId: string, priority: number): Promise<ObservedRun> {
  const handle = await executor.execute(agent, userMessageFor(sessionId), { sessionId, priority });
  const read = async (): Promise<StreamChunk[]> => {
    const chunks: StreamChunk[] = [];
    for await (const chunk of handle.stream()) chunks.push(chunk);
    return chunks;
  };
  const [chunks, result] = await Promise.all([read(), handle.result()]);
  return { sessionId, handle, chunks, result };
}

describe('queued fleet: an API process enqueues, two worker processes run', () => {
  it('runs 12 sessions on the workers only, each step once, spread over both workers', async () => {
    const executor = api();
    const config: FleetWorkerConfig = {
      databaseUrl: env.database.url,
      openaiBaseUrl: env.llm.baseURL,
      sessions: SESSIONS,
      workerConcurrency: WORKER_CONCURRENCY,
      toolDelayMs: TOOL_DELAY_MS,
    };
    const workers = WORKER_IDS.map((executorId) => env.workers.spawn(executorId, executorId, config, FLEET_WORKER_SCRIPT));
    // Enqueueing checks the queue in DBOS's queues table: the workers register it after their launch.
    for (const worker of workers) await worker.waitForEvent('launched', DRILL_TIMEOUTS.start);

    // The API process builds the agent to enqueue its runs; its tool never runs here.
    const agent = createFleetAgent(env.pool);
    const runs = await Promise.all(SESSIONS.map((sessionId, index) => executeAndObserve(executor, agent, sessionId, index % 3)));
    for (const worker of workers) expect(await worker.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);

    const pidOfExecutor = new Map(WORKER_IDS.map((executorId, index) => [executorId, workers[index]?.pid]));
    const ranBy = new Map<string, string>();
    for (const [index, { sessionId, handle, chunks, result }] of runs.entries()) {
      // The caller's handle: the result from DBOS, the stream from Postgres, both written by another process.
      expect(result, sessionId).toMatchObject({ runId: handle.runId, status: 'completed', output: answerOf(sessionId), stepCount: 2 });
      // Dequeued once: its stream held none of its chunks when it began, so no step of it was reset.
      expect(chunks.filter((chunk) => chunk.type === 'step_reset')).toEqual([]);
      const visible = visibleChunks(chunks);
      expect(textOfStep(visible, 2)).toBe(answerOf(sessionId));
      expect(outlineOf(visible)).toEqual([
        `tool_start@1:${LOOKUP_CALL_ID}`,
        `tool_end@1:${LOOKUP_CALL_ID}`,
        ...answerDeltas(sessionId).map((delta) => `text_delta@2:${delta}`),
        'output@2',
      ]);

      // Enqueued on the agent's queue with the call's priority, dequeued and run by a worker, never by the API.
      const status = await DBOS.getWorkflowStatus(handle.workflowId);
      expect(status).toMatchObject({ status: 'SUCCESS', queueName: FLEET_QUEUE, priority: index % 3, applicationVersion: CRASH_APPLICATION_VERSION });
      expect(WORKER_IDS).toContain(status?.executorId);
      ranBy.set(sessionId, status?.executorId ?? '');

      // One run, each step once: one model request per step, one tool execution (in the worker that ran the
      // workflow), one DBOS step row per agent step, no duplicated message, one terminal chunk.
      expect((await env.stateStore.listRuns(sessionId)).runs.map((run) => run.status)).toEqual(['completed']);
      expect(env.llm.countsByStep(sessionId)).toEqual([1, 1]);
      expect((await toolRunsOf(env.pool, sessionId)).map((run) => [run.toolCallId, run.pid])).toEqual([[LOOKUP_CALL_ID, pidOfExecutor.get(status?.executorId ?? '')]]);
      expect((await stepRecordsOf(env.pool, handle.workflowId)).map((step) => [step.name, step.error])).toEqual([
        ['BeginRunStep', null],
        ['CallLLMStep', null],
        ['ExecuteToolStep:lookup', null],
        ['CallLLMStep', null],
        ['FinishRunStep', null],
      ]);
      const messages = await storedMessages(env, sessionId);
      expect(describeConversation(messages)).toEqual(['user', `assistant[${LOOKUP_CALL_ID}]`, `tool(${LOOKUP_CALL_ID})`, 'assistant']);
      expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
      expect(await chunkRowCount(env.pool, sessionId, 'output')).toBe(1);
    }
    // Both workers ran a share (two slots each cannot hold twelve runs), and no request came from elsewhere.
    expect(new Set(ranBy.values())).toEqual(new Set(WORKER_IDS));
    expect(env.llm.unattributedCount).toBe(0);
  }, 60_000);
});
