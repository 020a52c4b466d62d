import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { NotResumableError } from '../../../src/errors/index.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import type { AgentCompleteEvent, AgentFailEvent } from '../../../src/hooks/types.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM, sleep } from '../executor/executor-test-kit.js';
import { conversation, createGate, type Gate } from './run-control-kit.js';

/** The gate of the current test (slow tool, slow hook or slow LLM call). */
let gate: Gate = createGate();
/** The abort signals the cooperative tool and the LLM call were given. */
const signals: { tool?: AbortSignal; llm?: AbortSignal } = {};
let lookupFinished = 0;

const stubbornLookup = defineTool({
  name: 'stubborn_lookup',
  description: 'A slow lookup that ignores cancellation',
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => {
    await gate.pass();
    lookupFinished += 1;
    return { found: q };
  },
});

const politeLookup = defineTool({
  name: 'polite_lookup',
  description: 'A slow lookup that stops when its run is aborted',
  parameters: z.object({ q: z.string() }),
  execute: async (_input, context) => {
    signals.tool = context.abortSignal;
    const aborted = new Promise<void>((resolve) => context.abortSignal.addEventListener('abort', () => resolve(), { once: true }));
    void gate.pass();
    await Promise.race([aborted, sleep(20_000)]);
    throw new Error('stopped');
  },
});

const isAborted = (kind: keyof typeof signals): boolean => signals[kind]?.aborted === true;

const quickLookup = defineTool({ name: 'quick_lookup', description: 'Fast', parameters: z.object({ q: z.string() }), execute: async ({ q }) => ({ found: q }) });

const completions: AgentCompleteEvent[] = [];
const failures: AgentFailEvent[] = [];
/** When set, afterTool blocks on the gate: the step is committed, the next one has not started. */
let holdAfterTool = false;
const agent = defineAgent({
  name: 'control_agent',
  systemPrompt: 'Look things up.',
  tools: [stubbornLookup, politeLookup, quickLookup],
  maxSteps: 5,
  hooks: {
    onAgentComplete: (event) => void completions.push(event),
    onAgentFail: (event) => void failures.push(event),
    afterTool: async () => {
      if (holdAfterTool) await gate.pass();
    },
  },
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('run_control_abort', llm.adapter, { toolRetryPolicy: { maxAttempts: 2, initialIntervalSeconds: 0.01 } });
});
afterAll(async () => {
  gate.open();
  await runtime?.shutdown();
});

const isNotResumable = (error: unknown): boolean => NotResumableError.isInstance(error) && error.code === 'NOT_RESUMABLE';

/** One tool call first, then a text answer. */
function callThenAnswer(toolName: string, id: string): void {
  llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id, name: toolName, arguments: { q: 'x' } }] } : { type: 'text', text: 'answer' }));
}

/** The durable outcome of an aborted run, seen from every angle. */
async function expectAborted(handle: AgentExecutionHandle<unknown>, chunks: Promise<StreamChunk[]>, reason: string): Promise<void> {
  expect(await handle.result()).toMatchObject({ status: 'aborted', completionReason: 'aborted', runId: handle.runId });
  expect(await handle.getState()).toMatchObject({ status: 'failed', failureReason: 'aborted' });
  expect((await runtime.stateStore.getRun(handle.sessionId, handle.runId))?.status).toBe('aborted');
  expect(await handle.canResume()).toBe(false);
  await expect(handle.resume()).rejects.toSatisfy(isNotResumable);
  await expect(runtime.executor.resume(agent, handle.sessionId, { mode: 'with_message', message: 'go on' })).rejects.toSatisfy(isNotResumable);
  const seen = await chunks;
  expect(seen.at(-1)).toMatchObject({ type: 'error', code: 'ABORTED', recoverable: false });
  expect(seen.at(-1)).toMatchObject({ error: expect.stringContaining(reason) as unknown });
  expect(seen.filter((chunk) => chunk.type === 'output' || chunk.type === 'run_interrupted')).toEqual([]);
}

describe('abort()', () => {
  it('ends a run stuck in a slow tool as aborted at once, and nothing of the run is committed afterwards', async () => {
    gate = createGate();
    callThenAnswer('stubborn_lookup', 'stubborn-1');
    const handle = await runtime.executor.execute(agent, 'look up', { sessionId: 'abort-tool' });
    const chunks = collectChunks(handle);
    await gate.entered;
    const started = Date.now();
    await handle.abort('user cancelled');
    // The tool is still blocked: the outcome comes from abort()'s durable record, not from the workflow.
    expect(await handle.result()).toMatchObject({ status: 'aborted' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(lookupFinished).toBe(0);
    await expectAborted(handle, chunks, 'user cancelled');

    // Let the tool finish: the cancelled workflow must not commit, call the LLM again or overwrite the outcome.
    gate.open();
    await waitUntil(() => lookupFinished === 1);
    await sleep(500);
    expect(llm.adapter.callCount).toBe(1);
    expect(conversation((await runtime.stateStore.getMessages('abort-tool')).messages)).toEqual(['user:look up']);
    expect(await handle.getState()).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect((await runtime.stateStore.getRun('abort-tool', handle.runId))?.status).toBe('aborted');
    expect(completions.filter((event) => event.sessionId === 'abort-tool')).toEqual([]);
    expect(failures.filter((event) => event.sessionId === 'abort-tool')).toEqual([]);
  });

  it("aborts the in-flight tool's abortSignal and does not retry the tool", async () => {
    gate = createGate();
    delete signals.tool;
    callThenAnswer('polite_lookup', 'polite-1');
    const handle = await runtime.executor.execute(agent, 'look up politely', { sessionId: 'abort-polite' });
    const chunks = collectChunks(handle);
    await gate.entered;
    await handle.abort('stop now');
    await expectAborted(handle, chunks, 'stop now');
    await waitUntil(() => isAborted('tool'), 5_000);
    expect(isAborted('tool')).toBe(true);
    await sleep(300);
    expect(gate.passes).toBe(1);
    expect(llm.adapter.callCount).toBe(1);
  });

  it('cancels an LLM call in flight (delayMs) and ends the run as aborted; retry() then starts afresh', async () => {
    llm.use((input, callIndex) => {
      if (callIndex === 0) {
        signals.llm = input.abortSignal;
        return { type: 'text', text: 'too late', delayMs: 20_000 };
      }
      return { type: 'text', text: 'after retry' };
    });
    const handle = await runtime.executor.execute(agent, 'think hard', { sessionId: 'abort-llm' });
    const chunks = collectChunks(handle);
    await waitUntil(() => llm.adapter.callCount === 1);
    const started = Date.now();
    await handle.abort();
    await expectAborted(handle, chunks, 'Aborted');
    await waitUntil(() => isAborted('llm'), 5_000);
    expect(isAborted('llm')).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(conversation((await runtime.stateStore.getMessages('abort-llm')).messages)).toEqual(['user:think hard']);

    const retried = await handle.retry();
    expect(await retried.result()).toMatchObject({ status: 'completed', output: 'after retry' });
    expect(await retried.getState()).toMatchObject({ status: 'completed' });
    expect((await retried.getState())?.failureReason).toBeUndefined();
    expect((await runtime.stateStore.listRuns('abort-llm')).runs.map((run) => run.status)).toEqual(['aborted', 'completed']);
  });

  it('is a no-op for a session that is not running', async () => {
    llm.use(() => ({ type: 'text', text: 'done' }));
    const handle = await runtime.executor.execute(agent, 'quick', { sessionId: 'abort-done' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    await handle.abort('too late');
    expect(await handle.getState()).toMatchObject({ status: 'completed', output: 'done' });
    expect((await runtime.stateStore.getRun('abort-done', handle.runId))?.status).toBe('completed');
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'done' });
  });
});

describe('interrupt() between steps', () => {
  it('ends the run at the next step boundary: no further LLM call', async () => {
    gate = createGate();
    holdAfterTool = true;
    callThenAnswer('quick_lookup', 'quick-1');
    try {
      const handle = await runtime.executor.execute(agent, 'look up', { sessionId: 'interrupt-between' });
      const chunks = collectChunks(handle);
      await gate.entered;
      // Step 1 is committed; step 2 has not started.
      expect(conversation((await runtime.stateStore.getMessages('interrupt-between')).messages)).toEqual(['user:look up', 'assistant:[quick-1]', 'tool:quick-1']);
      await handle.interrupt('pause please');
      gate.open();
      expect(await handle.result()).toMatchObject({ status: 'interrupted', completionReason: 'interrupted', stepCount: 1 });
      expect((await chunks).at(-1)).toMatchObject({ type: 'run_interrupted', runId: handle.runId, reason: 'pause please' });
      expect(llm.adapter.callCount).toBe(1);
      expect(await handle.canResume()).toBe(true);
    } finally {
      holdAfterTool = false;
    }
  });

  it('an interrupt that arrives during the final step does not leak into the next turn', async () => {
    gate = createGate();
    llm.use(async (_input, callIndex) => {
      if (callIndex === 0) await gate.pass();
      return { type: 'text', text: `turn ${callIndex + 1}` };
    });
    const handle = await runtime.executor.execute(agent, 'one', { sessionId: 'interrupt-late' });
    await gate.entered;
    await handle.interrupt('too late');
    gate.open();
    // Nothing was left to interrupt: the run's only step answered.
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'turn 1' });

    const next = await handle.send('two');
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'turn 2' });
    expect(llm.adapter.callCount).toBe(2);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await sleep(10);
}
