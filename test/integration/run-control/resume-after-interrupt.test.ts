import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { createGate, type Gate } from './run-control-kit.js';

/** The gate of the current test: the slow tool blocks on it and ignores its abort signal. */
let gate: Gate = createGate();

const slowTool = defineTool({
  name: 'slow_tool',
  description: 'A slow tool that finishes what it started',
  parameters: z.object({}),
  execute: async () => {
    await gate.pass();
    return 'done';
  },
});
const askUser = defineTool({ name: 'ask_user', description: 'Ask the user', parameters: z.object({ question: z.string() }), execute: 'client' });

const agent = defineAgent({ name: 'resume_after_interrupt', systemPrompt: 'Work.', tools: [slowTool, askUser], maxSteps: 6 });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('resume_after_interrupt', llm.adapter, { hitlWarmWindowMs: 30_000 });
});
afterAll(async () => {
  gate.open();
  await runtime?.shutdown();
});

describe('resume() right after interrupt()', () => {
  it('mid-run: waits for the interruption to land, then starts a new run continuing the session', async () => {
    gate = createGate();
    llm.use((input, callIndex) => (callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'slow-1', name: 'slow_tool', arguments: {} }] } : { type: 'text', text: `answer ${callIndex}` }));
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'interrupt-mid-run' });
    await gate.entered;
    await handle.interrupt('stop');
    // The tool finishes what it started a little later; the run ends interrupted at the step boundary.
    setTimeout(() => gate.open(), 200);
    const resumed = await runtime.executor.resume(agent, 'interrupt-mid-run');

    expect(resumed.runId).not.toBe(handle.runId);
    expect(await handle.result()).toMatchObject({ status: 'interrupted', runId: handle.runId });
    expect(await resumed.result()).toMatchObject({ status: 'completed', runId: resumed.runId, output: 'answer 1' });
    expect((await runtime.stateStore.getRun('interrupt-mid-run', resumed.runId))?.previousRunId).toBe(handle.runId);
    expect((await runtime.stateStore.loadState('interrupt-mid-run'))?.status).toBe('completed');
    expect(gate.passes).toBe(1);
  });

  it('during a warm human wait: result() says interrupted at once, and resume() starts a new run', async () => {
    llm.use((input, callIndex) =>
      callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'ask-1', name: 'ask_user', arguments: { question: 'which?' } }] } : { type: 'text', text: 'thanks' },
    );
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'interrupt-warm' });
    expect(await handle.result()).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: ['ask-1'] } });
    await handle.interrupt('later');
    expect(await handle.result()).toMatchObject({ status: 'interrupted', runId: handle.runId });

    const resumed = await runtime.executor.resume(agent, 'interrupt-warm');
    expect(resumed.runId).not.toBe(handle.runId);
    expect((await runtime.stateStore.getRun('interrupt-warm', resumed.runId))?.previousRunId).toBe(handle.runId);
    expect(await resumed.result()).toMatchObject({ status: 'suspended_client_tool', runId: resumed.runId, suspended: { toolCallIds: ['ask-1'] } });
    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'interrupt-warm', toolCallId: 'ask-1', result: 'blue' });
    const current = await runtime.executor.getHandle(agent, 'interrupt-warm');
    expect(await current?.result()).toMatchObject({ status: 'completed', output: 'thanks' });
  });

  it('during a warm human wait, resume() called without awaiting result() first still starts a new run', async () => {
    llm.use((input, callIndex) =>
      callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'ask-2', name: 'ask_user', arguments: { question: 'which?' } }] } : { type: 'text', text: 'thanks' },
    );
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'interrupt-warm-direct' });
    expect(await handle.result()).toMatchObject({ status: 'suspended_client_tool' });
    await handle.interrupt();
    const resumed = await runtime.executor.resume(agent, 'interrupt-warm-direct');
    expect(resumed.runId).not.toBe(handle.runId);
    expect((await runtime.stateStore.getRun('interrupt-warm-direct', handle.runId))?.status).toBe('interrupted');
  });
});
