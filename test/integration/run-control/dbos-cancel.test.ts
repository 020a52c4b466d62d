import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { readStream } from '../../support/read-stream.js';
import { scriptedLLM, sleep } from '../executor/executor-test-kit.js';
import { createGate, type Gate } from './run-control-kit.js';

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

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('dbos_cancel', llm.adapter, { hitlWarmWindowMs: 60_000 });
});
afterAll(async () => {
  gate.open();
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
