import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { MockLLMScript } from '../../../src/llm/mock/mock-llm-response.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, toolResults } from './executor-test-kit.js';

/** Attempt timestamps per tool name. */
const attempts = new Map<string, number[]>();
function attempt(name: string): number {
  const list = attempts.get(name) ?? [];
  list.push(Date.now());
  attempts.set(name, list);
  return list.length;
}

const flaky = defineTool({
  name: 'flaky',
  description: 'Fails twice, then works',
  parameters: z.object({}),
  execute: async () => {
    if (attempt('flaky') <= 2) throw new Error('transient outage');
    return { value: 'finally' };
  },
});

const broken = defineTool({
  name: 'broken',
  description: 'Always fails',
  parameters: z.object({}),
  execute: async () => {
    attempt('broken');
    throw new Error('permanent outage');
  },
});

let abortedAttempts = 0;
const sluggish = defineTool({
  name: 'sluggish',
  description: 'Takes far longer than its time limit',
  parameters: z.object({}),
  timeoutMs: 50,
  execute: async (_input, context) => {
    attempt('sluggish');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      context.abortSignal.addEventListener('abort', () => {
        abortedAttempts += 1;
        clearTimeout(timer);
        resolve();
      });
    });
    return { value: 'too late' };
  },
});

const agent = defineAgent({ name: 'retry_agent', systemPrompt: 'Use your tools.', tools: [flaky, broken, sluggish], maxSteps: 3 });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_tool_retries', llm.adapter, {
    toolRetryPolicy: { maxAttempts: 3, initialIntervalSeconds: 0.02, backoffCoefficient: 2, maximumIntervalSeconds: 0.03 },
  });
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** Call `toolName` once, then answer in text. */
function callOnce(toolName: string, id: string): MockLLMScript {
  return (_input, callIndex) =>
    callIndex === 0
      ? { type: 'tool_calls', toolCalls: [{ id, name: toolName, arguments: {} }] }
      : callIndex === 1
        ? { type: 'text', text: 'ok' }
        : undefined;
}

describe('server tool retries (ToolRetryPolicy)', () => {
  it('a tool failing twice then succeeding runs 3 times, waiting the policy intervals, and succeeds', async () => {
    llm.use(callOnce('flaky', 'r-flaky'));
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'retry-flaky' });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', completionReason: 'text_response' });
    const times = attempts.get('flaky')!;
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(19); // 0.02 s
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(29); // 0.04 s capped at 0.03 s
    expect(toolResults(llm.adapter.calls[1]!.messages)).toEqual([
      expect.objectContaining({ toolCallId: 'r-flaky', content: { value: 'finally' } }),
    ]);
    expect(toolResults(llm.adapter.calls[1]!.messages)[0]?.isError).toBeUndefined();
    const records = await runtime.usageStore.listRecords('retry-flaky', { runId: handle.runId });
    expect(records.filter((record) => record.kind === 'tool')).toEqual([expect.objectContaining({ name: 'flaky', success: true })]);
  });

  it('a tool that always fails returns an error result to the LLM after maxAttempts; usage records success false', async () => {
    llm.use(callOnce('broken', 'r-broken'));
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'retry-broken' });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', completionReason: 'text_response', output: 'ok' });
    expect(attempts.get('broken')).toHaveLength(3);
    const [feedback] = toolResults(llm.adapter.calls[1]!.messages);
    expect(feedback).toMatchObject({ toolCallId: 'r-broken', isError: true, content: expect.stringContaining('permanent outage') });
    const records = await runtime.usageStore.listRecords('retry-broken', { runId: handle.runId });
    expect(records.filter((record) => record.kind === 'tool')).toEqual([expect.objectContaining({ name: 'broken', success: false })]);
    expect(await runtime.usageStore.getRunUsage('retry-broken', handle.runId)).toMatchObject({ toolCalls: 1, toolFailures: 1 });
  });

  it('timeoutMs aborts a slow server tool; after its attempts the timeout is an error result for the LLM', async () => {
    llm.use(callOnce('sluggish', 'r-slow'));
    const startedAt = Date.now();
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'retry-timeout' });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', output: 'ok' });
    expect(Date.now() - startedAt).toBeLessThan(4_000);
    expect(attempts.get('sluggish')).toHaveLength(3);
    expect(abortedAttempts).toBe(3);
    const [feedback] = toolResults(llm.adapter.calls[1]!.messages);
    expect(feedback).toMatchObject({ toolCallId: 'r-slow', isError: true, content: expect.stringContaining('did not finish within 50 ms') });
    expect(await runtime.usageStore.getRunUsage('retry-timeout', handle.runId)).toMatchObject({ toolCalls: 1, toolFailures: 1 });
  });
});
