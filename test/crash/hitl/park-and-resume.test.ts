/**
 * Parked runs across processes (real processes, DBOS, Postgres, `@ai-sdk/openai` against the parent's fake
 * server). Worker A runs with a short warm window: its run parks (run `suspended_client_tool`, workflow
 * SUCCESS) and A exits. The parent answers; worker C — a different process, possibly a redeploy with another
 * DBOS application version — resumes: a new run settles the parked step and completes, and the server tool of
 * the parked batch never runs again.
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from '../support/drill.js';
import type { WorkerOptions } from '../support/drill-environment.js';
import { DRILL_TIMEOUTS, expectCleanExit, outcomeOf, startRun, type StartedRun } from '../support/drill-flow.js';
import { workflowRowOf } from '../support/durable-probes.js';
import { executionsOf, runStatusReached } from '../support/hitl-probes.js';
import { describeConversation, storedMessages } from '../support/session-snapshot.js';
import { CRASH_APPLICATION_VERSION } from '../worker/worker-config.js';
import { HITL_ANSWERS, HITL_CALLS, HITL_SCENARIOS } from './hitl-scenarios.js';

const PARK = 'park-resume';
const REDEPLOY = 'park-redeploy';
const WARM_WINDOW_MS = 500;
/** A's onMessage hooks (fired by the park for the committed messages) take this long each. */
const PARK_HOOK_DELAY_MS = 150;

const env = useDrill('crash_hitl_park', { controlPlane: true, sessions: [[PARK, HITL_SCENARIOS.mixedBatch], [REDEPLOY, HITL_SCENARIOS.mixedBatch]], setupTimeoutMs: 60_000 });

/** Run `sessionId` in worker A until it parks and A exits; checks the parked state; returns A's run and pid. */
async function parkInWorker(sessionId: string, executorId: string, options: WorkerOptions): Promise<{ run: StartedRun; pid: number }> {
  const { worker, run } = await startRun(env, 'start', executorId, sessionId, { agent: 'hitl', hitlWarmWindowMs: WARM_WINDOW_MS, messageHookDelayMs: PARK_HOOK_DELAY_MS, ...options });
  // Parked is published last (after the park's slow message hooks and its stream end), so a resume from any
  // process — which reactivates the stream — can never be ended by the parking step.
  await runStatusReached(env.stateStore, sessionId, run.runId, 'suspended_client_tool', DRILL_TIMEOUTS.signal);
  expect((await env.streamManager.getInfo(sessionId))?.status).toBe('ended');
  const { result } = await outcomeOf(worker, sessionId);
  await expectCleanExit(worker);

  expect(result).toMatchObject({
    runId: run.runId,
    status: 'suspended_client_tool',
    completionReason: 'suspended',
    suspended: { reason: 'client_tool', toolCallIds: [HITL_CALLS.pickCity] },
  });
  expect((await env.stateStore.getRun(sessionId, run.runId))?.status).toBe('suspended_client_tool');
  expect((await workflowRowOf(env.pool, run.workflowId))?.status).toBe('SUCCESS');
  // The parked step's finished part is committed; the client call waits in the store, not in a workflow.
  expect(describeConversation(await storedMessages(env, sessionId))).toEqual(['user', `assistant[${HITL_CALLS.lookup},${HITL_CALLS.pickCity}]`, `tool(${HITL_CALLS.lookup})`]);
  expect((await env.stateStore.loadState(sessionId))?.pendingClientToolCalls?.[HITL_CALLS.pickCity]).toMatchObject({ kind: 'client', runId: run.runId });
  expect(await executionsOf(env.pool, sessionId)).toEqual({ [`lookup:${HITL_CALLS.lookup}`]: [worker.pid] });
  return { run, pid: worker.pid };
}

/** Answer the parked call from the parent, resume in worker C, and check the settled session. */
async function answerAndResume(sessionId: string, parked: { run: StartedRun; pid: number }, executorId: string, options: WorkerOptions): Promise<StartedRun> {
  const submitted = await env.control.executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId: HITL_CALLS.pickCity, result: { city: 'Rome' } });
  expect(submitted.status).toBe('accepted');
  const { worker, run: resumed } = await startRun(env, 'resume', executorId, sessionId, { agent: 'hitl', ...options });
  const { result } = await outcomeOf(worker, sessionId);
  await expectCleanExit(worker);

  expect(resumed.runId).not.toBe(parked.run.runId);
  expect(result).toMatchObject({ runId: resumed.runId, status: 'completed', completionReason: 'text_response', output: HITL_ANSWERS.trip, stepCount: 1 });
  expect(await executionsOf(env.pool, sessionId)).toEqual({ [`lookup:${HITL_CALLS.lookup}`]: [parked.pid] });
  expect(env.llm.countsByStep(sessionId)).toEqual([1, 1]);
  const runRecords = (await env.stateStore.listRuns(sessionId)).runs;
  expect(runRecords.map((record) => [record.runId, record.status, record.previousRunId])).toEqual([
    [parked.run.runId, 'suspended_client_tool', undefined],
    [resumed.runId, 'completed', parked.run.runId],
  ]);
  const messages = await storedMessages(env, sessionId);
  expect(describeConversation(messages)).toEqual([
    'user',
    `assistant[${HITL_CALLS.lookup},${HITL_CALLS.pickCity}]`,
    `tool(${HITL_CALLS.lookup})`,
    `tool(${HITL_CALLS.pickCity})`,
    'assistant',
  ]);
  expect(messages.find((message) => message.role === 'tool' && message.toolCallId === HITL_CALLS.pickCity)).toMatchObject({ content: { city: 'Rome' } });
  expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
  const state = await env.stateStore.loadState(sessionId);
  expect(state).toMatchObject({ status: 'completed', resumeCount: 1 });
  expect(state?.pendingClientToolCalls ?? {}).toEqual({});
  return resumed;
}

describe('parked human-in-the-loop runs across processes', () => {
  it('parks in one process, is answered from another and resumed by a third; the batch’s server tool ran once', async () => {
    const parked = await parkInWorker(PARK, 'hitl-park-a', {});
    const resumed = await answerAndResume(PARK, parked, 'hitl-park-c', {});
    expect(await workflowRowOf(env.pool, resumed.workflowId)).toMatchObject({ status: 'SUCCESS', executorId: 'hitl-park-c', applicationVersion: CRASH_APPLICATION_VERSION });
  }, 90_000);

  it('survives a redeploy: parked under application version v1, resumed by a v2 process', async () => {
    const parked = await parkInWorker(REDEPLOY, 'hitl-redeploy-a', { applicationVersion: 'v1' });
    expect((await workflowRowOf(env.pool, parked.run.workflowId))?.applicationVersion).toBe('v1');
    const resumed = await answerAndResume(REDEPLOY, parked, 'hitl-redeploy-c', { applicationVersion: 'v2' });
    expect(await workflowRowOf(env.pool, resumed.workflowId)).toMatchObject({ status: 'SUCCESS', executorId: 'hitl-redeploy-c', applicationVersion: 'v2' });
  }, 90_000);
});
