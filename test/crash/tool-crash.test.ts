/**
 * SIGKILL drills around tool execution (real processes, DBOS, Postgres and `@ai-sdk/openai` against the
 * parent's fake server): killed while a tool runs, and killed after a phase-1 tool finished while the phase-2
 * finishWith tool runs (before the step commit). After recovery in a process that never calls execute(),
 * only the unfinished tool runs again and the session ends exactly as an uncrashed baseline does.
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from './support/drill.js';
import { DRILL_SCENARIOS } from './support/drill-scenarios.js';
import { killAndRecover, startDoomedRun, waitForSignal } from './support/drill-flow.js';
import { checkpointExists, chunkRowCount, toolRunCounts, toolRunsOf, toolStepRecorded } from './support/durable-probes.js';
import { describeConversation, snapshotSession, storedMessages } from './support/session-snapshot.js';

const TOOL_BASELINE = 'tool-baseline';
const TOOL_DRILL = 'tool-drill';
const FINISH_BASELINE = 'finish-baseline';
const FINISH_DRILL = 'finish-drill';

const env = useDrill('crash_tools', {
  sessions: [
    [TOOL_DRILL, DRILL_SCENARIOS.toolCrash, { crash: true }],
    [FINISH_DRILL, DRILL_SCENARIOS.finishCrash, { crash: true }],
  ],
  baselines: {
    executorId: 'crash-tools-baseline',
    sessions: [
      [TOOL_BASELINE, DRILL_SCENARIOS.toolCrash],
      [FINISH_BASELINE, DRILL_SCENARIOS.finishCrash],
    ],
  },
});

describe('crash drill: SIGKILL during tool execution', () => {
  it('re-runs only the tool that never completed, and the run ends as an uncrashed run does', async () => {
    const doomed = await startDoomedRun(env, 'crash-tool', TOOL_DRILL, DRILL_SCENARIOS.toolCrash.blockToolCalls);
    await waitForSignal(
      doomed.worker,
      "lookup b running and lookup a's step recorded by DBOS",
      async () => (await toolRunCounts(env.pool, TOOL_DRILL)).call_1_lookup_b === 1 && (await toolStepRecorded(env.pool, doomed.workflowId, 'call_1_lookup_a')),
    );
    expect(await checkpointExists(env.pool, TOOL_DRILL, `${doomed.runId}:1`)).toBe(false);

    const { worker: recoverer, result } = await killAndRecover(env, doomed);

    expect(await toolRunCounts(env.pool, TOOL_DRILL)).toEqual({ call_1_lookup_a: 1, call_1_lookup_b: 2 });
    const lookupB = (await toolRunsOf(env.pool, TOOL_DRILL)).filter((run) => run.toolCallId === 'call_1_lookup_b');
    expect(lookupB.map((run) => run.pid)).toEqual([doomed.worker.pid, recoverer.pid]);
    expect(env.llm.countsByStep(TOOL_DRILL)).toEqual([1, 1]);
    // tool_start is keyed by (run, step, call): the re-run tool does not show it twice.
    expect(await chunkRowCount(env.pool, TOOL_DRILL, 'tool_start')).toBe(2);

    const messages = await storedMessages(env, TOOL_DRILL);
    expect(describeConversation(messages)).toEqual([
      'user',
      'assistant[call_1_lookup_a,call_1_lookup_b]',
      'tool(call_1_lookup_a)',
      'tool(call_1_lookup_b)',
      'assistant',
    ]);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    expect(result).toMatchObject({ sessionId: TOOL_DRILL, runId: doomed.runId, status: 'completed', completionReason: 'text_response', output: 'Both facts are recorded.', stepCount: 2 });
    expect(await snapshotSession(env, TOOL_DRILL, result)).toEqual(await snapshotSession(env, TOOL_BASELINE, env.baseline(TOOL_BASELINE)));
    expect(env.llm.countsByStep(TOOL_BASELINE)).toEqual([1, 1]);
  }, 120_000);

  it('never re-runs a finished phase-1 tool when killed in the phase-2 finishWith tool before the commit', async () => {
    const doomed = await startDoomedRun(env, 'crash-finish', FINISH_DRILL, DRILL_SCENARIOS.finishCrash.blockToolCalls);
    await waitForSignal(doomed.worker, 'the finishWith tool running', async () => (await toolRunCounts(env.pool, FINISH_DRILL)).call_1_report === 1);
    // Phase 2 starts only after phase 1's steps are recorded; its state write is staged, not yet committed.
    expect(await toolStepRecorded(env.pool, doomed.workflowId, 'call_1_lookup_a')).toBe(true);
    expect(await checkpointExists(env.pool, FINISH_DRILL, `${doomed.runId}:1`)).toBe(false);
    expect(await env.stateStore.getStagedChanges(FINISH_DRILL, `${doomed.runId}:1`)).toHaveLength(1);

    const { result } = await killAndRecover(env, doomed);

    expect(await toolRunCounts(env.pool, FINISH_DRILL)).toEqual({ call_1_lookup_a: 1, call_1_report: 2 });
    expect(env.llm.countsByStep(FINISH_DRILL)).toEqual([1]);
    const messages = await storedMessages(env, FINISH_DRILL);
    expect(describeConversation(messages)).toEqual(['user', 'assistant[call_1_lookup_a,call_1_report]', 'tool(call_1_lookup_a)', 'tool(call_1_report)']);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    // The recovered report saw the staged write of the tool that ran in the killed process.
    expect(result).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { summary: 'a only', facts: ['a'] }, stepCount: 1 });
    expect(await env.stateStore.getStagedChanges(FINISH_DRILL)).toEqual([]);
    expect(await snapshotSession(env, FINISH_DRILL, result)).toEqual(await snapshotSession(env, FINISH_BASELINE, env.baseline(FINISH_BASELINE)));
  }, 120_000);
});
