import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { readStream } from '../../support/read-stream.js';
import { scriptedLLM, sleep, toolResults } from '../executor/executor-test-kit.js';
import { createGate, expectResumedStream, type Gate } from './run-control-kit.js';

/** The gate of the current test: the polite tool passes it, then waits for its abort signal. */
let gate: Gate = createGate();
const politeTool = defineTool({
  name: 'polite_tool',
  description: 'A slow tool that stops when its run is cancelled',
  parameters: z.object({}),
  execute: async (_input, context) => {
    void gate.pass();
    if (!context.abortSignal.aborted) await new Promise<void>((resolve) => context.abortSignal.addEventListener('abort', () => resolve(), { once: true }));
    throw new Error('stopped');
  },
});
const askUser = defineTool({ name: 'ask_user', description: 'Ask the user', parameters: z.object({ question: z.string() }), execute: 'client' });
const agent = defineAgent({ name: 'dbos_cancel_agent', systemPrompt: 'Work.', tools: [politeTool, askUser], maxSteps: 4 });

/** Runs of the resume scenario's tools: the quick one ends before the cancel, the slow one is cancelled once. */
const runs = { quick: 0, slow: 0 };
/** Set when the slow tool's cancelled run saw its abort signal and stopped. */
let slowStopped = false;
/** The slow tool's run after the resume passes this gate: the test looks at the reopened run meanwhile. */
let resumedGate: Gate = createGate();
const quickTool = defineTool({
  name: 'quick_tool',
  description: 'A tool that ends before the cancel',
  parameters: z.object({}),
  execute: async () => {
    runs.quick += 1;
    return 'quick result';
  },
});
const slowTool = defineTool({
  name: 'slow_tool',
  description: 'Stops when cancelled; runs to its end once resumed',
  parameters: z.object({}),
  execute: async (_input, context) => {
    runs.slow += 1;
    if (runs.slow > 1) {
      await resumedGate.pass();
      return 'slow result';
    }
    void gate.pass();
    if (!context.abortSignal.aborted) await new Promise<void>((resolve) => context.abortSignal.addEventListener('abort', () => resolve(), { once: true }));
    slowStopped = true;
    throw new Error('stopped');
  },
});
const resumableAgent = defineAgent({ name: 'dbos_resume_agent', systemPrompt: 'Work.', tools: [quickTool, slowTool], maxSteps: 6 });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('dbos_cancel', llm.adapter, { hitlWarmWindowMs: 60_000 });
});
afterAll(async () => {
  gate.open();
  resumedGate.open();
  await runtime?.shutdown();
});

/** Poll until the session reads aborted (failed, failureReason aborted); returns the milliseconds it took. */
async function msUntilAborted(sessionId: string, limitMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const state = await runtime.stateStore.loadState(sessionId);
    if (state?.status === 'failed' && state.failureReason === 'aborted') return Date.now() - started;
    if (Date.now() - started > limitMs) return Number.POSITIVE_INFINITY;
    await sleep(20);
  }
}

describe('an operator cancels an agent run through DBOS (dbos workflow cancel)', () => {
  it('mid-tool: the session reads aborted within a second, the run aborted, the stream ends with ABORTED', async () => {
    gate = createGate();
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'slow-1', name: 'polite_tool', arguments: {} }] } : { type: 'text', text: 'never' }));
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'cancel-mid-tool' });
    await gate.entered;
    await DBOS.cancelWorkflow(handle.workflowId);
    expect(await msUntilAborted('cancel-mid-tool', 5_000)).toBeLessThan(1_500);
    expect((await runtime.stateStore.getRun('cancel-mid-tool', handle.runId))?.status).toBe('aborted');
    expect(await handle.result()).toMatchObject({ status: 'aborted', completionReason: 'aborted' });
    const chunks = await readStream(runtime.streamManager, 'cancel-mid-tool');
    expect(chunks.at(-1)).toMatchObject({ type: 'error', code: 'ABORTED', recoverable: false });
    expect((await runtime.streamManager.getInfo('cancel-mid-tool'))?.status).not.toBe('active');
    expect(llm.adapter.callCount).toBe(1);
  });

  it('during a warm human wait: the session reads aborted and the open call is settled', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'ask-1', name: 'ask_user', arguments: { question: 'which?' } }] } : { type: 'text', text: 'never' },
    );
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'cancel-warm' });
    expect(await handle.result()).toMatchObject({ status: 'suspended_client_tool' });
    await DBOS.cancelWorkflow(handle.workflowId);
    expect(await msUntilAborted('cancel-warm', 5_000)).toBeLessThan(1_500);
    expect((await runtime.stateStore.loadState('cancel-warm'))?.pendingClientToolCalls ?? {}).toEqual({});
    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'cancel-warm', toolCallId: 'ask-1', result: 'x' })).toMatchObject({
      status: 'already_completed',
    });
  });
});

/** Poll until `condition` holds (fails the test after `limitMs`). */
async function until(condition: () => boolean, limitMs: number): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    expect(Date.now() - started).toBeLessThan(limitMs);
    await sleep(20);
  }
}

/** The resume scenario's model: the quick tool, then the slow one, then the answer. */
function useResumeScript(): void {
  llm.use((_input, callIndex) => {
    if (callIndex === 0) return { type: 'tool_calls', toolCalls: [{ id: 'quick-1', name: 'quick_tool', arguments: {} }] };
    if (callIndex === 1) return { type: 'tool_calls', toolCalls: [{ id: 'slow-1', name: 'slow_tool', arguments: {} }] };
    return { type: 'text', text: 'All done.' };
  });
}

/** Start the resume scenario on `sessionId` and wait until the slow tool runs (the quick one has ended). */
async function startUntilSlowTool(sessionId: string) {
  gate = createGate();
  resumedGate = createGate();
  runs.quick = 0;
  runs.slow = 0;
  slowStopped = false;
  useResumeScript();
  const handle = await runtime.executor.execute(resumableAgent, 'go', { sessionId });
  await gate.entered;
  return handle;
}

/**
 * Resume the cancelled workflow through DBOS and check the run continues: reopened (session active, run running,
 * stream taking chunks) while the slow tool runs again, then completed — no recorded step run again.
 */
async function resumeAndExpectCompletion(sessionId: string, handle: { runId: string; workflowId: string; result(): Promise<unknown> }): Promise<void> {
  await DBOS.resumeWorkflow(handle.workflowId);
  await resumedGate.entered;
  // Reopened at the slow tool's step (the first one the resumed execution runs live).
  expect(await runtime.stateStore.loadState(sessionId)).toMatchObject({ status: 'active' });
  expect((await runtime.stateStore.loadState(sessionId))?.failureReason).toBeUndefined();
  expect((await runtime.stateStore.getRun(sessionId, handle.runId))?.status).toBe('running');
  expect((await runtime.streamManager.getInfo(sessionId))?.status).toBe('active');
  expect((await runtime.stateStore.readInterruptFlag(sessionId)).interrupted).toBe(false);
  resumedGate.open();

  const completed = { status: 'completed', completionReason: 'text_response', output: 'All done.' };
  expect(await DBOS.retrieveWorkflow(handle.workflowId).getResult()).toMatchObject(completed);
  expect(await handle.result()).toMatchObject(completed);
  expect(await (await runtime.executor.getHandle(resumableAgent, sessionId))!.result()).toMatchObject(completed);
  expect(await runtime.stateStore.loadState(sessionId)).toMatchObject({ status: 'completed', output: 'All done.' });
  const completedRun = await runtime.stateStore.getRun(sessionId, handle.runId);
  expect(completedRun?.status).toBe('completed');
  // The abort's outcome went with its reopening: the completed run carries no abort error.
  expect(completedRun?.error).toBeUndefined();
  expect(completedRun?.completionReason).not.toBe('aborted');

  // Recorded steps replayed: the quick tool ran once, the model was called twice before the cancel and once after.
  expect(runs).toEqual({ quick: 1, slow: 2 });
  expect(llm.adapter.callCount).toBe(3);
  expect(toolResults(llm.adapter.calls[2]!.messages).map((message) => message.toolCallId)).toEqual(['quick-1', 'slow-1']);
  // The history holds the resumed call's result, not the stopped attempt's error (nothing of a cancelled step commits).
  expect(toolResults(llm.adapter.calls[2]!.messages).map((message) => [message.content, message.isError ?? false])).toEqual([
    ['quick result', false],
    ['slow result', false],
  ]);
  const { messages } = await runtime.stateStore.getMessages(sessionId);
  expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);

  // The stream: the abort's chunk, then the continuation, ending with the run's output.
  const chunks = await expectResumedStream(runtime.streamManager, sessionId, { toolCallId: 'slow-1', result: 'slow result', text: 'All done.' });
  expect(chunks.filter((chunk) => chunk.type === 'tool_end' && chunk.toolCallId === 'quick-1')).toHaveLength(1);
}

describe('an operator resumes a cancelled agent run through DBOS (dbos workflow resume)', () => {
  it('cancelled mid-tool: the resumed run reopens, continues from the cancelled step and completes', async () => {
    const sessionId = 'resume-mid-tool';
    const handle = await startUntilSlowTool(sessionId);
    await DBOS.cancelWorkflow(handle.workflowId);
    expect(await msUntilAborted(sessionId, 5_000)).toBeLessThan(1_500);
    expect((await runtime.stateStore.getRun(sessionId, handle.runId))?.status).toBe('aborted');
    await resumeAndExpectCompletion(sessionId, handle);
  });

  it('cancelled during the first model call (no step recorded yet): the resumed run begins again, reopens and completes', async () => {
    const sessionId = 'resume-first-call';
    // The first call waits until its run is cancelled; the resumed execution's call answers.
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: 'never', delayMs: 60_000 } : { type: 'text', text: 'All done.' }));
    const handle = await runtime.executor.execute(resumableAgent, 'go', { sessionId });
    await until(() => llm.adapter.callCount === 1, 5_000);
    await DBOS.cancelWorkflow(handle.workflowId);
    expect(await msUntilAborted(sessionId, 5_000)).toBeLessThan(1_500);
    expect((await runtime.stateStore.getRun(sessionId, handle.runId))?.status).toBe('aborted');
    await sleep(200); // the cancelled execution stops (its model call saw the cancel)
    await DBOS.resumeWorkflow(handle.workflowId);
    const completed = { status: 'completed', completionReason: 'text_response', output: 'All done.' };
    expect(await DBOS.retrieveWorkflow(handle.workflowId).getResult()).toMatchObject(completed);
    expect(await runtime.stateStore.loadState(sessionId)).toMatchObject({ status: 'completed', output: 'All done.' });
    expect((await runtime.stateStore.getRun(sessionId, handle.runId))?.status).toBe('completed');
    expect(llm.adapter.callCount).toBe(2);
    expect((await runtime.stateStore.getMessages(sessionId)).messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect((await DBOS.listWorkflowSteps(handle.workflowId))?.map((step) => step.name)).toEqual(['BeginRunStep', 'CallLLMStep', 'FinishRunStep']);
  });

  it('aborted through the executor: the resumed run clears the abort flag and completes', async () => {
    const sessionId = 'resume-after-abort';
    const handle = await startUntilSlowTool(sessionId);
    await handle.abort('stop for now');
    expect(await msUntilAborted(sessionId, 5_000)).toBeLessThan(1_500);
    expect((await runtime.stateStore.readInterruptFlag(sessionId)).interrupted).toBe(true);
    // abort() records before the workflow sees its cancel: resume once the cancelled execution stopped, as an
    // operator would (a resume before that leaves the old execution in the tool until it returns).
    await until(() => slowStopped, 5_000);
    await sleep(200);
    await resumeAndExpectCompletion(sessionId, handle);
  });
});
