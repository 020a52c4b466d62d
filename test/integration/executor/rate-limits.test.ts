/**
 * A provider's 429 is waited out inside the LLM step (the real `@ai-sdk/openai` client against the local fake OpenAI
 * server): the run completes, the wait is announced on the stream, nothing is stored twice, and an interrupt ends the
 * wait.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { VercelAIAdapter } from '../../../src/llm/index.js';
import { retryAfterOf } from '../../../src/llm/vercel/error-mapping.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, visibleText } from './executor-test-kit.js';

const agent = defineAgent({ name: 'limited_agent', systemPrompt: 'Answer.', maxSteps: 2 });

let fake: FakeOpenAI;
let runtime: TestRuntime;
beforeAll(async () => {
  fake = await startFakeOpenAI([]);
  const provider = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  runtime = await startTestRuntime('executor_rate_limits', new VercelAIAdapter({ model: provider('fake-model') }));
});
afterAll(async () => {
  await runtime?.shutdown();
  await fake?.close();
});

const rateLimitedChunks = (chunks: StreamChunk[]) => chunks.filter((chunk) => chunk.type === 'custom' && chunk.eventName === 'rate_limited');

describe("a provider's rate limit", () => {
  it('is waited out for as long as retry-after says, announced on the stream, and the run completes once', async () => {
    const before = fake.requestCount;
    fake.push(
      { type: 'http_error', status: 429, retryAfterSeconds: 0.3 },
      { type: 'http_error', status: 429, retryAfterSeconds: 0.2 },
      { type: 'http_error', status: 429, retryAfterSeconds: 0.1 },
      { type: 'text', text: 'Answered after the limit.' },
    );
    const startedAt = Date.now();
    const handle = await runtime.executor.execute(agent, 'Hi.', { sessionId: 'limited-1' });
    const [chunks, result] = await Promise.all([collectChunks(handle), handle.result()]);
    expect(result).toMatchObject({ status: 'completed', output: 'Answered after the limit.' });
    // Three waits (more than the step's 3 attempts for other errors) of the provider's own lengths.
    expect(rateLimitedChunks(chunks).map((chunk) => (chunk as { data: unknown }).data)).toEqual([
      { waitMs: 300, waits: 1 },
      { waitMs: 200, waits: 2 },
      { waitMs: 100, waits: 3 },
    ]);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(600);
    expect(visibleText(chunks)).toBe('Answered after the limit.');
    expect(fake.requestCount - before).toBe(4);
    const { messages } = await runtime.stateStore.getMessages('limited-1');
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(await runtime.usageStore.getRunUsage('limited-1', handle.runId)).toMatchObject({ llmCalls: 1 });
  });

  it('ends its wait on an interrupt: the run is interrupted, not failed, and resumes', async () => {
    fake.push({ type: 'http_error', status: 429, retryAfterSeconds: 60 }, { type: 'text', text: 'After the resume.' });
    const handle = await runtime.executor.execute(agent, 'Hi.', { sessionId: 'limited-2' });
    for await (const chunk of handle.stream()) {
      if (chunk.type === 'custom' && chunk.eventName === 'rate_limited') break;
    }
    const interruptedAt = Date.now();
    await handle.interrupt('user stopped the wait');
    expect(await handle.result()).toMatchObject({ status: 'interrupted' });
    expect(Date.now() - interruptedAt).toBeLessThan(30_000);
    const resumed = await runtime.executor.resume(agent, 'limited-2');
    expect(await resumed.result()).toMatchObject({ status: 'completed', output: 'After the resume.' });
  });
});

describe('retryAfterOf', () => {
  it.each([
    ['retry-after-ms wins', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['seconds', { 'Retry-After': '2' }, 2_000],
    ['fractional seconds', { 'retry-after': '0.25' }, 250],
    ['an HTTP date', { 'retry-after': new Date(1_000_000 + 3_000).toUTCString() }, 3_000],
    ['capped at ten minutes', { 'retry-after': '86400' }, 600_000],
    ['unreadable', { 'retry-after': 'soon' }, undefined],
    ['absent', {}, undefined],
  ])('%s', (_label, headers, expected) => {
    expect(retryAfterOf(headers as Record<string, string>, 1_000_000)).toBe(expected);
  });
});
