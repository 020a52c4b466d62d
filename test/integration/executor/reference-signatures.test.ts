import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { InMemoryUsageStore } from '../../../src/usage/memory/in-memory-usage-store.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from './executor-test-kit.js';

const agent = defineAgent({ name: 'signature_agent', systemPrompt: 'x', maxSteps: 2 });
const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('signatures', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe("the reference's signatures", () => {
  it('ExecuteOptions.usageStore meters the run there; getHandle(agent, id, { usageStore }) reports it', async () => {
    llm.use(() => ({ type: 'text', text: 'metered', usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 } }));
    const own = new InMemoryUsageStore();
    const handle = await runtime.executor.execute(agent, 'count me', { sessionId: 'metered-1', usageStore: own });
    const result = await handle.result();
    expect(result.usage).toMatchObject({ llmCalls: 1, inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    expect((await own.listRecords('metered-1')).length).toBeGreaterThan(0);
    expect(await runtime.usageStore.listRecords('metered-1')).toEqual([]);
    const reconnected = await runtime.executor.getHandle(agent, 'metered-1', { usageStore: own });
    expect((await reconnected!.result()).usage).toMatchObject({ totalTokens: 10 });
  });

  it('handle.retry(options) passes its hooks to the retried run', async () => {
    llm.use(() => undefined); // no response: the run fails
    const failed = await runtime.executor.execute(agent, 'fail first', { sessionId: 'retry-opts' });
    expect((await failed.result()).status).toBe('failed');
    llm.use(() => ({ type: 'text', text: 'second time' }));
    const resumedFrom: string[] = [];
    const retried = await failed.retry({ hooks: { onAgentResumed: (event) => void resumedFrom.push(event.previousRunId) } });
    expect(await retried.result()).toMatchObject({ status: 'completed', output: 'second time' });
    expect(resumedFrom).toEqual([failed.runId]);
  });
});
