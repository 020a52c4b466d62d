import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, sleep } from './executor-test-kit.js';

const work = defineTool({
  name: 'work',
  description: 'Does 40 ms of work',
  parameters: z.object({ job: z.string() }),
  execute: async ({ job }) => {
    await sleep(40);
    return { done: job };
  },
});

const agent = defineAgent({ name: 'metered_agent', systemPrompt: 'Work.', tools: [work], maxSteps: 4 });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_usage', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('usage metering', () => {
  it('sums LLM calls, tokens, tool calls and tool durations per run and per session across two turns', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0
        ? {
            type: 'tool_calls',
            toolCalls: [
              { name: 'work', arguments: { job: 'a' } },
              { name: 'work', arguments: { job: 'b' } },
            ],
            usage: { inputTokens: 100, outputTokens: 20 },
          }
        : callIndex === 1
          ? { type: 'text', text: 'worked', usage: { inputTokens: 150, outputTokens: 7, totalTokens: 160 } }
          : undefined,
    );
    const first = await runtime.executor.execute(agent, 'work twice', { sessionId: 'usage-1' });
    const firstResult = await first.result();
    const firstUsage = await runtime.usageStore.getRunUsage('usage-1', first.runId);

    expect(firstUsage).toMatchObject({ llmCalls: 2, inputTokens: 250, outputTokens: 27, totalTokens: 280, toolCalls: 2, toolFailures: 0 });
    // Two 40 ms tools, each timed in whole ms by Date.now(): a timer may fire just short of 40 of those ms.
    expect(firstUsage.toolDurationMs).toBeGreaterThanOrEqual(78);
    expect(firstResult.usage).toEqual(firstUsage);

    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: 'again', usage: { inputTokens: 300, outputTokens: 11 } } : undefined));
    const second = await first.send('once more');
    const secondResult = await second.result();
    const secondUsage = await runtime.usageStore.getRunUsage('usage-1', second.runId);

    expect(secondUsage).toEqual({ llmCalls: 1, inputTokens: 300, outputTokens: 11, totalTokens: 311, toolCalls: 0, toolFailures: 0, toolDurationMs: 0 });
    expect(secondResult.usage).toEqual(secondUsage);

    const session = await runtime.usageStore.getSessionUsage('usage-1');
    expect(session).toEqual({
      llmCalls: 3,
      inputTokens: 550,
      outputTokens: 38,
      totalTokens: 591,
      toolCalls: 2,
      toolFailures: 0,
      toolDurationMs: firstUsage.toolDurationMs,
    });

    const records = await runtime.usageStore.listRecords('usage-1');
    expect(records.map((record) => record.id).sort()).toEqual(
      [`${first.runId}:1:llm`, `${first.runId}:2:llm`, `${second.runId}:1:llm`, `${first.runId}:1:tool:mock-call-0-0`, `${first.runId}:1:tool:mock-call-0-1`].sort(),
    );
  });
});
