/**
 * SIGKILL drills around LLM calls: killed while the model streams step 2 (after the first text delta is
 * stored), and killed between steps (step 1 committed, step 2's LLM call hanging). After recovery the
 * interrupted call is issued exactly once more, the completed step's call never again (exact fake-server
 * request counts), history holds one assistant message per step and the stream shows the text once.
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from './support/drill.js';
import { DRILL_SCENARIOS, STREAMED_ANSWER_DELTAS } from './support/drill-scenarios.js';
import { killAndRecover, startDoomedRun, waitForSignal } from './support/drill-flow.js';
import { checkpointExists, chunkRowCount, stepOutputOf, stepRecordsOf, toolRunCounts } from './support/durable-probes.js';
import { describeConversation, snapshotSession, storedMessages } from './support/session-snapshot.js';
import { outlineOf, readStreamWithResets, textOfStep } from './support/stream-view.js';

const STREAM_BASELINE = 'stream-baseline';
const STREAM_DRILL = 'stream-drill';
const BETWEEN_BASELINE = 'between-baseline';
const BETWEEN_DRILL = 'between-drill';
const STREAM_READ_TIMEOUT_MS = 15_000;

const env = useDrill('crash_llm', {
  sessions: [
    [STREAM_DRILL, DRILL_SCENARIOS.streamCrash, { crash: true }],
    [BETWEEN_DRILL, DRILL_SCENARIOS.betweenSteps, { crash: true }],
  ],
  baselines: {
    executorId: 'crash-llm-baseline',
    sessions: [
      [STREAM_BASELINE, DRILL_SCENARIOS.streamCrash],
      [BETWEEN_BASELINE, DRILL_SCENARIOS.betweenSteps],
    ],
  },
});

describe('crash drill: SIGKILL during LLM calls', () => {
  it('re-issues only the interrupted streaming call and shows its text exactly once', async () => {
    const finalText = STREAMED_ANSWER_DELTAS.join('');
    const doomed = await startDoomedRun(env, 'crash-stream', STREAM_DRILL, []);
    await waitForSignal(doomed.worker, 'the first text_delta chunk of step 2 stored', async () => (await chunkRowCount(env.pool, STREAM_DRILL, 'text_delta', 2)) >= 1);
    await doomed.worker.kill();
    // Killed mid-stream: only step 1 is recorded (its LLM row, and its tool's row with the agent step's commit),
    // step 2's text is partial.
    expect((await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name)).toEqual(['BeginRunStep', 'CallLLMStep', 'ExecuteToolStep:lookup']);
    expect(await checkpointExists(env.pool, STREAM_DRILL, `${doomed.runId}:1`)).toBe(true);
    expect(await chunkRowCount(env.pool, STREAM_DRILL, 'text_delta', 2)).toBeLessThan(STREAMED_ANSWER_DELTAS.length);
    expect(env.llm.countsByStep(STREAM_DRILL)).toEqual([1, 1]);

    const { result } = await killAndRecover(env, doomed);

    expect(env.llm.countsByStep(STREAM_DRILL)).toEqual([1, 2]);
    expect(await toolRunCounts(env.pool, STREAM_DRILL)).toEqual({ call_1_lookup_a: 1 });
    const messages = await storedMessages(env, STREAM_DRILL);
    expect(describeConversation(messages)).toEqual(['user', 'assistant[call_1_lookup_a]', 'tool(call_1_lookup_a)', 'assistant']);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    expect(messages.filter((message) => message.role === 'assistant' && message.content === finalText).map((message) => message.id)).toEqual([
      `${doomed.runId}:2:0`,
    ]);
    expect(result).toMatchObject({ status: 'completed', completionReason: 'text_response', output: finalText, stepCount: 2 });

    const view = await readStreamWithResets(env.streamManager, STREAM_DRILL, STREAM_READ_TIMEOUT_MS);
    expect(view.raw.filter((chunk) => chunk.type === 'step_reset' && chunk.step === 2)).toHaveLength(1);
    expect(textOfStep(view.visible, 2)).toBe(finalText);
    expect(view.visible.filter((chunk) => chunk.type === 'output')).toMatchObject([{ output: finalText }]);
    const baselineView = await readStreamWithResets(env.streamManager, STREAM_BASELINE, STREAM_READ_TIMEOUT_MS);
    expect(outlineOf(view.visible)).toEqual(outlineOf(baselineView.visible));
    expect(await snapshotSession(env, STREAM_DRILL, result)).toEqual(await snapshotSession(env, STREAM_BASELINE, env.baseline(STREAM_BASELINE)));
  }, 120_000);

  it('never re-issues the LLM call of a step committed before the kill', async () => {
    const doomed = await startDoomedRun(env, 'crash-between', BETWEEN_DRILL, []);
    await waitForSignal(
      doomed.worker,
      "step 1's checkpoint and step 2's LLM request",
      async () => (await checkpointExists(env.pool, BETWEEN_DRILL, `${doomed.runId}:1`)) && env.llm.countOf(BETWEEN_DRILL, 2) === 1,
    );
    expect(env.llm.countsByStep(BETWEEN_DRILL)).toEqual([1, 1]);
    // Every step has its DBOS row (fused: the tool step's row committed with the agent step, checkpoint :1).
    const before = (await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name);
    expect(before).toEqual(['BeginRunStep', 'CallLLMStep', 'ExecuteToolStep:lookup']);

    const { result } = await killAndRecover(env, doomed);

    expect(env.llm.countsByStep(BETWEEN_DRILL)).toEqual([1, 2]);
    // The recovered workflow replayed both recorded steps: the tool did not run again.
    expect(await toolRunCounts(env.pool, BETWEEN_DRILL)).toEqual({ call_1_lookup_a: 1 });
    const after = await stepRecordsOf(env.pool, doomed.workflowId);
    expect(after.map((step) => step.name)).toEqual([...before, 'CallLLMStep', 'FinishRunStep']);
    const toolStep = after.find((step) => step.name.startsWith('ExecuteToolStep'));
    expect(toolStep).toBeDefined();
    // Either journal (the workers inherit HELIX_JOURNAL): the tool step's record committed the agent step (fused: in
    // DBOS's row's transaction; public: in its batch record, before DBOS's row), so it keeps no result (that is in the
    // committed messages).
    const recorded = await stepOutputOf(toolStep!);
    expect(recorded).toMatchObject({ committed: true });
    expect(recorded).not.toHaveProperty('result');
    const messages = await storedMessages(env, BETWEEN_DRILL);
    expect(describeConversation(messages)).toEqual(['user', 'assistant[call_1_lookup_a]', 'tool(call_1_lookup_a)', 'assistant']);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    const checkpoints = await env.stateStore.listCheckpoints(BETWEEN_DRILL);
    expect(checkpoints.map((checkpoint) => checkpoint.id)).toEqual([`${doomed.runId}:1`, `${doomed.runId}:2`]);
    expect(result).toMatchObject({ status: 'completed', completionReason: 'text_response', output: 'Finished after a.', stepCount: 2 });
    expect(await snapshotSession(env, BETWEEN_DRILL, result)).toEqual(await snapshotSession(env, BETWEEN_BASELINE, env.baseline(BETWEEN_BASELINE)));
    expect(env.llm.countsByStep(BETWEEN_BASELINE)).toEqual([1, 1]);
  }, 120_000);
});
