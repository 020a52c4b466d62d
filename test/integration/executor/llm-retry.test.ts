import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { LLMCallError } from '../../../src/errors/index.js';
import type { LLMAdapter } from '../../../src/llm/adapter.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, sleep, textOf, visibleText } from './executor-test-kit.js';

const FINAL_TEXT = 'The final answer, streamed once.';
const llm = scriptedLLM();

/** Resolved by the live reader once it has seen the failed attempt's partial text. */
let partialSeen: () => void = () => undefined;
let attempts = 0;
/** First attempt: streams partial text, waits until a live reader saw it, then fails retryably. */
const flakyAdapter: LLMAdapter = {
  async generateStep(input, callbacks) {
    attempts += 1;
    if (attempts === 1) {
      const seen = new Promise<void>((resolve) => {
        partialSeen = resolve;
      });
      await callbacks?.onTextDelta?.('Partial ');
      await callbacks?.onTextDelta?.('attempt ');
      await Promise.race([seen, sleep(5_000)]);
      throw new LLMCallError('The provider dropped the connection.', { retryable: true, statusCode: 503 });
    }
    return llm.adapter.generateStep(input, callbacks);
  },
};

const agent = defineAgent({ name: 'retrying_agent', systemPrompt: 'Answer.', maxSteps: 2 });

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_llm_retry', flakyAdapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('a retried LLM step', () => {
  it('resets the partial chunks: live readers see step_reset, late readers never see the failed attempt', async () => {
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: FINAL_TEXT } : undefined));
    const handle = await runtime.executor.execute(agent, 'answer me', { sessionId: 'llm-retry' });

    const live: StreamChunk[] = [];
    let sawPartialBeforeReset = false;
    for await (const chunk of handle.stream()) {
      live.push(chunk);
      if (chunk.type === 'text_delta' && chunk.delta.startsWith('Partial')) {
        sawPartialBeforeReset = !live.some((earlier) => earlier.type === 'step_reset');
        partialSeen();
      }
    }
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', completionReason: 'text_response', output: FINAL_TEXT, stepCount: 1 });
    expect(attempts).toBe(2);
    expect(sawPartialBeforeReset).toBe(true);

    // The live reader saw the partial text, then a step_reset for step 1, then the final text.
    const resets = live.filter((chunk) => chunk.type === 'step_reset');
    expect(resets).toEqual([expect.objectContaining({ type: 'step_reset', step: 1, attempt: 2, agentId: 'llm-retry' })]);
    expect(textOf(live)).toBe(`Partial attempt ${FINAL_TEXT}`);
    expect(visibleText(live)).toBe(FINAL_TEXT);

    // A reader created after the run ended sees none of the failed attempt.
    const late: StreamChunk[] = [];
    const reader = await runtime.streamManager.createReader('llm-retry', 0);
    for await (const chunk of reader) late.push(chunk);
    expect(textOf(late)).toBe(FINAL_TEXT);
    expect(visibleText(late)).toBe(FINAL_TEXT);
    expect(late.at(-1)).toMatchObject({ type: 'output', output: FINAL_TEXT });

    // One assistant message for the step; the LLM result was recorded once.
    const { messages } = await runtime.stateStore.getMessages('llm-retry');
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'answer me'],
      ['assistant', FINAL_TEXT],
    ]);
    expect(messages[1]?.id).toBe(`${handle.runId}:1:0`);
    expect(await runtime.usageStore.getRunUsage('llm-retry', handle.runId)).toMatchObject({ llmCalls: 1 });
  });
});

describe('a retried LLM step in a later turn', () => {
  it('resets only its own run: earlier turns keep their chunks', async () => {
    attempts = 1; // the next call succeeds
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: 'Turn one.' } : undefined));
    const first = await runtime.executor.execute(agent, 'first', { sessionId: 'llm-retry-2' });
    await first.result();

    attempts = 0; // the next call fails once after partial text
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: 'Turn two.' } : undefined));
    const second = await first.send('second');
    const live: StreamChunk[] = [];
    for await (const chunk of second.stream()) {
      live.push(chunk);
      if (chunk.type === 'text_delta' && chunk.delta.startsWith('Partial')) partialSeen();
    }
    expect(await second.result()).toMatchObject({ status: 'completed', output: 'Turn two.' });
    expect(visibleText(live)).toBe('Turn two.');

    const late: StreamChunk[] = [];
    const reader = await runtime.streamManager.createReader('llm-retry-2', 0);
    for await (const chunk of reader) late.push(chunk);
    expect(textOf(late)).toBe('Turn one.Turn two.');
  });
});
