/**
 * The kit of the fleet-member drills: the test process as the API process (a DBOSAgentExecutor without llmAdapter,
 * DBOS launched with `listenQueues: []`: it enqueues, it never runs a step), the ledger agent's scripted sessions,
 * fleet-member worker processes (fleet-member-worker.ts) and the checks every drill makes of its completed sessions.
 */
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { expect } from 'vitest';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import { withIdleTransactionTimeout } from '../../../src/store/postgres/session-timeouts.js';
import type { AgentResult } from '../../../src/types/result.js';
import type { FakeUsage } from '../../fixtures/fake-openai/index.js';
import { useDrill, type Drill } from '../support/drill.js';
import { scenarioByStep, type DrillScenario } from '../support/drill-scenarios.js';
import { chunkRowCount, waitUntil } from '../support/durable-probes.js';
import { describeConversation, storedMessages } from '../support/session-snapshot.js';
import type { WorkerProcess } from '../support/worker-process.js';
import type { FleetAgent } from '../worker/fleet-agent.js';
import { FLEET_TOOL_LEDGER_SQL, type FleetMemberWorkerConfig, type FleetWorkerEvent } from '../worker/fleet-worker-config.js';
import { CRASH_APPLICATION_NAME, CRASH_APPLICATION_VERSION, userMessageFor } from '../worker/worker-config.js';

const MEMBER_WORKER_SCRIPT = fileURLToPath(new URL('../worker/fleet-member-worker.ts', import.meta.url));
/** The API process's DBOS executor id (it runs nothing). */
const API_EXECUTOR_ID = 'fleet-api';

/**
 * A fleet drill: the crash drill of the file and its API executor.
 *
 * @example
 * const { env, api } = useFleetDrill('crash_fleet_dead', sessions);
 */
export interface FleetDrill {
  env: Drill;
  /** The API process's executor (after the file's beforeAll). */
  api: () => DBOSAgentExecutor;
}

/**
 * Register a fleet drill file: its database (with the tool ledger), the fake OpenAI server answering `sessions`, and
 * this process launched as the API process.
 *
 * @example
 * const { env, api } = useFleetDrill('crash_fleet_dead', SESSIONS.map((sessionId) => [sessionId, ledgerScenario(sessionId, { toolSteps: 2 })] as const));
 */
export function useFleetDrill(prefix: string, sessions: ReadonlyArray<readonly [sessionId: string, scenario: DrillScenario]>): FleetDrill {
  let api: DBOSAgentExecutor | undefined;
  let launched = false;
  const env = useDrill(prefix, {
    tables: FLEET_TOOL_LEDGER_SQL,
    sessions,
    prepare: async () => {
      api = new DBOSAgentExecutor({ stateStore: env.stateStore, streamManager: env.streamManager });
      DBOS.setConfig({
        name: CRASH_APPLICATION_NAME,
        systemDatabaseUrl: withIdleTransactionTimeout(env.database.url),
        applicationVersion: CRASH_APPLICATION_VERSION,
        executorID: API_EXECUTOR_ID,
        listenQueues: [],
        logLevel: 'error',
      });
      await DBOS.launch();
      launched = true;
    },
    release: async () => {
      await api?.close();
      if (launched) await DBOS.shutdown();
    },
  });
  return {
    env,
    api: () => {
      if (api === undefined) throw new Error(`the API executor of ${prefix} was not constructed`);
      return api;
    },
  };
}

/**
 * The tool call id of the lookup in agent step `step`.
 *
 * @example
 * lookupCallId(2); // 'call_2_lookup'
 */
export function lookupCallId(step: number): string {
  return `call_${step}_lookup`;
}

/**
 * The final answer of a session.
 *
 * @example
 * expect(result.output).toBe(answerOf('dead-1'));
 */
export function answerOf(sessionId: string): string {
  return `Facts collected for ${sessionId}.`;
}

/**
 * What the fake provider streams for a ledger session: `toolSteps` steps of one lookup each, then the answer; each
 * answer streamed with `chunkDelayMs` between events (a call stays in flight a while) and reporting `usage`.
 *
 * @example
 * const scenario = ledgerScenario('dead-1', { toolSteps: 2, chunkDelayMs: 20, usage: { inputTokens: 150, outputTokens: 30 } });
 */
export function ledgerScenario(sessionId: string, options: { toolSteps: number; chunkDelayMs?: number; usage?: FakeUsage }): DrillScenario {
  const shared = { ...(options.chunkDelayMs === undefined ? {} : { chunkDelayMs: options.chunkDelayMs }), ...(options.usage === undefined ? {} : { usage: options.usage }) };
  const lookups = Array.from({ length: options.toolSteps }, (_, index) => ({
    type: 'tool_calls' as const,
    toolCalls: [{ id: lookupCallId(index + 1), name: 'lookup', arguments: { key: `${sessionId}-${index + 1}` } }],
    ...shared,
  }));
  return scenarioByStep([...lookups, { type: 'text', text: answerOf(sessionId), ...shared }]);
}

/**
 * A run the API process enqueued.
 *
 * @example
 * const [first]: QueuedRun[] = await enqueueSessions(api(), agent, ['dead-1']);
 */
export interface QueuedRun {
  sessionId: string;
  handle: AgentExecutionHandle<unknown>;
}

/**
 * Execute (enqueue) every session on the API executor, in order, priority 0.
 *
 * @example
 * const runs = await enqueueSessions(api(), createLedgerFleetAgent(env.pool), SESSIONS);
 */
export async function enqueueSessions(executor: DBOSAgentExecutor, agent: FleetAgent, sessionIds: readonly string[]): Promise<QueuedRun[]> {
  const runs: QueuedRun[] = [];
  for (const sessionId of sessionIds) runs.push({ sessionId, handle: await executor.execute(agent, userMessageFor(sessionId), { sessionId }) });
  return runs;
}

/**
 * A fleet-member worker's configuration, but for the drill's database and fake server.
 *
 * @example
 * const config: MemberOptions = { sessions, workerConcurrency: 4, toolDelayMs: 400, deadAfterMs: 1_500, sweepIntervalMs: 250 };
 */
export type MemberOptions = Omit<FleetMemberWorkerConfig, 'databaseUrl' | 'openaiBaseUrl' | 'executorId'>;

/**
 * Spawn a fleet-member worker joining as `executorId` (labelled `label`, default the executor id).
 *
 * @example
 * const worker = spawnMember(env, 'fleet-worker-1', { sessions, workerConcurrency: 6, toolDelayMs: 600, deadAfterMs: 1_500, sweepIntervalMs: 250 });
 */
export function spawnMember(env: Drill, executorId: string, options: MemberOptions, label = executorId): WorkerProcess {
  const config: FleetMemberWorkerConfig = { databaseUrl: env.database.url, openaiBaseUrl: env.llm.baseURL, executorId, ...options };
  return env.workers.spawn(label, executorId, config, MEMBER_WORKER_SCRIPT);
}

/**
 * The first fleet event of this kind a worker printed, if any.
 *
 * @example
 * expect(fleetEventOf(newProcess, 'joined')).toBeUndefined();
 */
export function fleetEventOf(worker: WorkerProcess, event: FleetWorkerEvent['event']): FleetWorkerEvent | undefined {
  const lines: readonly unknown[] = worker.events;
  return lines.find((line): line is FleetWorkerEvent => (line as { event?: unknown }).event === event);
}

/**
 * Wait up to `timeoutMs` for a fleet event of this kind (fails with the worker's output).
 *
 * @example
 * const { at } = await waitForFleetEvent(newProcess, 'joined', 30_000);
 */
export async function waitForFleetEvent(worker: WorkerProcess, event: FleetWorkerEvent['event'], timeoutMs: number): Promise<FleetWorkerEvent> {
  await waitUntil(`${worker.label} to print ${event}`, timeoutMs, async () => fleetEventOf(worker, event) !== undefined, () => worker.describe());
  const found = fleetEventOf(worker, event);
  if (found === undefined) throw new Error(`${worker.label} printed no ${event}`);
  return found;
}

/**
 * Await every run and check that each completed once with its answer: one completed run, its conversation (each
 * lookup call id once, no message stored twice), one output chunk and no error chunk. Returns the results by session.
 *
 * @example
 * await expectSessionsCompleted(env, runs, 2);
 */
export async function expectSessionsCompleted(env: Drill, runs: readonly QueuedRun[], toolSteps: number): Promise<Map<string, AgentResult<unknown>>> {
  const results = new Map<string, AgentResult<unknown>>();
  for (const { sessionId, handle } of runs) results.set(sessionId, await handle.result());
  const lookups = Array.from({ length: toolSteps }, (_, index) => [`assistant[${lookupCallId(index + 1)}]`, `tool(${lookupCallId(index + 1)})`]);
  for (const { sessionId, handle } of runs) {
    expect(results.get(sessionId), sessionId).toMatchObject({ runId: handle.runId, status: 'completed', output: answerOf(sessionId), stepCount: toolSteps + 1 });
    expect((await env.stateStore.listRuns(sessionId)).runs.map((run) => run.status), sessionId).toEqual(['completed']);
    const messages = await storedMessages(env, sessionId);
    expect(describeConversation(messages), sessionId).toEqual(['user', ...lookups.flat(), 'assistant']);
    expect(new Set(messages.map((message) => message.id)).size, sessionId).toBe(messages.length);
    expect(await chunkRowCount(env.pool, sessionId, 'output'), sessionId).toBe(1);
    expect(await chunkRowCount(env.pool, sessionId, 'error'), sessionId).toBe(0);
  }
  return results;
}
