import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

let attempts = 0;
const flaky = defineTool({
  name: 'flaky',
  description: 'Always fails',
  parameters: z.object({}),
  execute: async () => {
    attempts += 1;
    throw new Error('upstream down');
  },
});
const agent = defineAgent({ name: 'backoff_agent', systemPrompt: 'x', tools: [flaky], maxSteps: 3 });
const llm = new MockLLMAdapter((_input, callIndex) =>
  callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'f1', name: 'flaky', arguments: {} }] } : { type: 'text', text: 'gave up' },
);

let runtime: TestRuntime;
beforeAll(async () => {
  // A 30 s backoff: without an interruptible pause the run could not end quickly.
  runtime = await startTestRuntime('backoff_interrupt', llm, { toolRetryPolicy: { maxAttempts: 3, initialIntervalSeconds: 30 } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('run control during a retry backoff', () => {
  it('interrupt ends a run sleeping between tool attempts within 250 ms of the flag being seen', async () => {
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'backoff-1' });
    const deadline = Date.now() + 5_000;
    while (attempts === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(attempts).toBe(1);
    const started = Date.now();
    await handle.interrupt('stop retrying');
    const result = await handle.result();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(250);
    expect(result).toMatchObject({ status: 'interrupted', completionReason: 'interrupted' });
    expect(attempts).toBe(1);
    expect((await runtime.stateStore.loadState('backoff-1'))?.status).toBe('interrupted');
    const tool = (await runtime.stateStore.getMessages('backoff-1')).messages.find((message) => message.role === 'tool');
    expect(tool).toMatchObject({ isError: true, toolCallId: 'f1' });
  });
});
