/**
 * Run control from another process (real processes, DBOS, Postgres, `@ai-sdk/openai` against the parent's
 * fake server): a worker's run waits warm for a client tool result, blocked in `DBOS.recv`; the parent —
 * its own DBOS executor — interrupts or aborts it through a handle. The run ends within CONTROL_LATENCY_MS of the call
 * (measured to the durable run status); interrupted is resumable (a submit, then resume in another worker,
 * completes it), aborted is not.
 */
import { describe, expect, it } from 'vitest';
import { NotResumableError } from '../../../src/errors/index.js';
import { useDrill } from '../support/drill.js';
import { expectCleanExit, outcomeOf, startRun } from '../support/drill-flow.js';
import { stepRecordsOf, workflowRowOf } from '../support/durable-probes.js';
import { startWaitingRun } from '../support/hitl-flow.js';
import { executionsOf, runStatusReached } from '../support/hitl-probes.js';
import { describeConversation, storedMessages } from '../support/session-snapshot.js';
import { HITL_ANSWERS, HITL_CALLS, HITL_SCENARIOS } from './hitl-scenarios.js';

const INTERRUPT = 'control-interrupt';
const ABORT = 'control-abort';
/**
 * A waiting run ends this soon after interrupt()/abort() is called from another process: the bound (250 ms)
 * doubled, because this suite runs beside dozens of others on 2 cores (a slower VM missed 250 ms in a full run). A
 * wait that is never woken takes seconds and still fails.
 */
const CONTROL_LATENCY_MS = 500;
const STATUS_TIMEOUT_MS = 5_000;

const env = useDrill('crash_hitl_control', { controlPlane: true, sessions: [[INTERRUPT, HITL_SCENARIOS.mixedBatch], [ABORT, HITL_SCENARIOS.clientOnly]], setupTimeoutMs: 60_000 });

describe('interrupt and abort from another process while a run waits for a human', () => {
  it('interrupt ends the waiting run within 500 ms; after a submit, resume in another worker completes it', async () => {
    const { worker: runner, run } = await startWaitingRun(env, 'hitl-control-interrupt', INTERRUPT, [HITL_CALLS.pickCity]);
    const handle = await env.control.handleOf(run);

    const calledAt = Date.now();
    await handle.interrupt('user pressed stop');
    const seenAt = await runStatusReached(env.stateStore, INTERRUPT, run.runId, 'interrupted', STATUS_TIMEOUT_MS);
    const record = await env.stateStore.getRun(INTERRUPT, run.runId);
    // The worker wrote the status (its finish step stamps endedAt); the parent saw it this soon.
    expect(seenAt - calledAt).toBeLessThan(CONTROL_LATENCY_MS);
    expect((record?.endedAt ?? Number.NaN) - calledAt).toBeLessThan(CONTROL_LATENCY_MS);

    const { result } = await outcomeOf(runner, INTERRUPT);
    await expectCleanExit(runner);
    expect(result).toMatchObject({ runId: run.runId, status: 'interrupted', completionReason: 'interrupted', error: 'user pressed stop' });
    expect(await workflowRowOf(env.pool, run.workflowId)).toMatchObject({ status: 'SUCCESS', executorId: 'hitl-control-interrupt' });
    expect((await env.stateStore.loadState(INTERRUPT))?.status).toBe('interrupted');
    expect(await handle.canResume()).toBe(true);

    const submitted = await env.control.executor.submitToolResult({ kind: 'client-tool-result', sessionId: INTERRUPT, toolCallId: HITL_CALLS.pickCity, result: { city: 'Lima' } });
    expect(submitted.status).toBe('accepted');
    const { worker: resumer, run: resumed } = await startRun(env, 'resume', 'hitl-control-resume', INTERRUPT, { agent: 'hitl' });
    const { result: final } = await outcomeOf(resumer, INTERRUPT);
    await expectCleanExit(resumer);

    expect(final).toMatchObject({ runId: resumed.runId, status: 'completed', output: HITL_ANSWERS.trip });
    expect(await executionsOf(env.pool, INTERRUPT)).toEqual({ [`lookup:${HITL_CALLS.lookup}`]: [runner.pid] });
    expect(env.llm.countsByStep(INTERRUPT)).toEqual([1, 1]);
    expect((await env.stateStore.listRuns(INTERRUPT)).runs.map((entry) => [entry.status, entry.previousRunId])).toEqual([
      ['interrupted', undefined],
      ['completed', run.runId],
    ]);
    const messages = await storedMessages(env, INTERRUPT);
    expect(describeConversation(messages)).toEqual(['user', `assistant[${HITL_CALLS.lookup},${HITL_CALLS.pickCity}]`, `tool(${HITL_CALLS.lookup})`, `tool(${HITL_CALLS.pickCity})`, 'assistant']);
    expect(messages.find((message) => message.role === 'tool' && message.toolCallId === HITL_CALLS.pickCity)).toMatchObject({ content: { city: 'Lima' } });
  }, 90_000);

  it('abort cancels the waiting run within 500 ms; the workflow stops and the session is not resumable', async () => {
    const { worker: runner, run } = await startWaitingRun(env, 'hitl-control-abort', ABORT, [HITL_CALLS.pickCity]);
    const handle = await env.control.handleOf(run);
    const stepsBefore = (await stepRecordsOf(env.pool, run.workflowId)).length;

    const calledAt = Date.now();
    await handle.abort('no longer needed');
    const seenAt = await runStatusReached(env.stateStore, ABORT, run.runId, 'aborted', STATUS_TIMEOUT_MS);
    expect(seenAt - calledAt).toBeLessThan(CONTROL_LATENCY_MS);

    // The worker's own handle sees its workflow end (cancelled in its recv, woken at once).
    const { result, at } = await outcomeOf(runner, ABORT);
    await expectCleanExit(runner);
    expect(result).toMatchObject({ runId: run.runId, status: 'aborted', completionReason: 'aborted', error: 'Aborted: no longer needed' });
    expect(at - calledAt).toBeLessThan(CONTROL_LATENCY_MS);
    expect((await workflowRowOf(env.pool, run.workflowId))?.status).toBe('CANCELLED');
    // Nothing ran after the wake: no further step was recorded, the abort's outcome stands.
    const stepsAfter = await stepRecordsOf(env.pool, run.workflowId);
    expect(stepsAfter.slice(stepsBefore).map((step) => step.name)).not.toContain('ClientToolStep.poll');
    expect(stepsAfter.map((step) => step.name)).not.toContain('FinishRunStep');
    expect((await env.stateStore.getRun(ABORT, run.runId))?.status).toBe('aborted');
    expect(await env.stateStore.loadState(ABORT)).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect(env.llm.countsByStep(ABORT)).toEqual([1]);

    expect(await handle.canResume()).toBe(false);
    await expect(env.control.executor.resume(env.control.agent, ABORT)).rejects.toSatisfy((error: unknown) => NotResumableError.isInstance(error));
    expect((await env.stateStore.listRuns(ABORT)).runs).toHaveLength(1);
  }, 90_000);
});
