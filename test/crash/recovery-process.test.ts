/**
 * The recovery-only process: a worker that never calls execute() recovers a killed run at `DBOS.launch()`.
 * Variant: it launches DBOS before constructing the executor (≈1 s after the recovered workflow is claimed),
 * so the recovered step starts with no runtime bound; it must wait for the executor instead of failing.
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from './support/drill.js';
import { DRILL_SCENARIOS } from './support/drill-scenarios.js';
import { killAndRecover, startDoomedRun, waitForSignal } from './support/drill-flow.js';
import { stepRecordsOf, toolRunCounts, toolRunsOf } from './support/durable-probes.js';
import { describeConversation, snapshotSession, storedMessages } from './support/session-snapshot.js';

const LATE_BASELINE = 'late-baseline';
const LATE_DRILL = 'late-drill';
const LATE_EXECUTOR_MS = 1_000;

const env = useDrill('crash_recovery', {
  sessions: [[LATE_DRILL, DRILL_SCENARIOS.lateExecutor, { crash: true }]],
  baselines: { executorId: 'crash-recovery-baseline', sessions: [[LATE_BASELINE, DRILL_SCENARIOS.lateExecutor]] },
});

describe('recovery-only process', () => {
  it('waits in a recovered step for an executor constructed after DBOS.launch(), then completes the run', async () => {
    const doomed = await startDoomedRun(env, 'crash-late', LATE_DRILL, DRILL_SCENARIOS.lateExecutor.blockToolCalls);
    await waitForSignal(doomed.worker, 'the blocking lookup running', async () => (await toolRunCounts(env.pool, LATE_DRILL)).call_1_lookup_a === 1);

    const { worker: recoverer, result } = await killAndRecover(env, doomed, { lateExecutorMs: LATE_EXECUTOR_MS });

    const launchedAt = recoverer.events.find((event) => event.event === 'launched')?.at ?? Number.NaN;
    const constructedAt = recoverer.events.find((event) => event.event === 'executor_constructed')?.at ?? Number.NaN;
    expect(constructedAt - launchedAt).toBeGreaterThanOrEqual(LATE_EXECUTOR_MS);
    expect(recoverer.events.some((event) => event.event === 'started')).toBe(false);
    // The recovered tool step waited for the executor and committed its agent step after it existed, with its row
    // (one, no error row).
    const steps = await stepRecordsOf(env.pool, doomed.workflowId);
    expect(steps.filter((step) => step.name.startsWith('ExecuteToolStep'))).toHaveLength(1);
    expect(steps.every((step) => step.error === null)).toBe(true);
    const committed = await env.stateStore.getCheckpoint(LATE_DRILL, `${doomed.runId}:1`);
    expect(committed?.createdAt ?? Number.NaN).toBeGreaterThanOrEqual(constructedAt);
    expect((await toolRunsOf(env.pool, LATE_DRILL)).map((run) => run.pid)).toEqual([doomed.worker.pid, recoverer.pid]);

    // Recovery continued the same run: no new run, no duplicated or lost message, the baseline's outcome.
    expect((await env.stateStore.listRuns(LATE_DRILL)).runs.map((run) => run.runId)).toEqual([doomed.runId]);
    expect(env.llm.countsByStep(LATE_DRILL)).toEqual([1, 1]);
    const messages = await storedMessages(env, LATE_DRILL);
    expect(describeConversation(messages)).toEqual(['user', 'assistant[call_1_lookup_a]', 'tool(call_1_lookup_a)', 'assistant']);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    expect(result).toMatchObject({ runId: doomed.runId, status: 'completed', output: 'Recovered with a late executor.', stepCount: 2 });
    expect(await snapshotSession(env, LATE_DRILL, result)).toEqual(await snapshotSession(env, LATE_BASELINE, env.baseline(LATE_BASELINE)));
  }, 120_000);
});
