import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { LLMAdapter } from '../../../src/llm/adapter.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM, textOf } from './executor-test-kit.js';

const llm = scriptedLLM();
/** True while the adapter's generateStep is running. */
let generating = false;
let generationEndedAt = 0;
const trackingAdapter: LLMAdapter = {
  async generateStep(input, callbacks) {
    generating = true;
    try {
      return await llm.adapter.generateStep(input, callbacks);
    } finally {
      generating = false;
      generationEndedAt = Date.now();
    }
  },
};

const lookup = defineTool({
  name: 'lookup',
  description: 'Look something up',
  parameters: z.object({ key: z.string() }),
  execute: async ({ key }, context) => {
    context.emit('lookup_progress', { key });
    return { value: key.toUpperCase() };
  },
});
const agent = defineAgent({ name: 'streaming_agent', systemPrompt: 'Talk.', tools: [lookup], maxSteps: 3 });

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_streaming', trackingAdapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

const WORDS = Array.from({ length: 16 }, (_, index) => `word${index}`).join(' ');

describe('streaming through handle.stream()', () => {
  it('delivers text deltas while the LLM is still generating', async () => {
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: WORDS, chunkDelayMs: 50 } : undefined));
    const handle = await runtime.executor.execute(agent, 'say many words', { sessionId: 'stream-live' });

    let firstDelta: { at: number; whileGenerating: boolean } | undefined;
    const chunks: StreamChunk[] = [];
    for await (const chunk of handle.stream()) {
      if (chunk.type === 'text_delta' && firstDelta === undefined) firstDelta = { at: Date.now(), whileGenerating: generating };
      chunks.push(chunk);
    }
    await handle.result();

    expect(firstDelta?.whileGenerating).toBe(true);
    // 16 words × 50 ms: the first delta must arrive well before the call finished, not in one final batch.
    expect(generationEndedAt - firstDelta!.at).toBeGreaterThan(300);
    expect(textOf(chunks)).toBe(WORDS);
    expect(chunks.filter((chunk) => chunk.type === 'text_delta').length).toBe(16);
    expect(chunks.at(-1)).toMatchObject({ type: 'output', output: WORDS, agentId: 'stream-live', agentType: 'streaming_agent' });
  });

  it('assigns strictly increasing sequences; a later run streams only its own chunks', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0
        ? { type: 'tool_calls', text: 'Looking up.', toolCalls: [{ id: 'lk-1', name: 'lookup', arguments: { key: 'a' } }] }
        : callIndex === 1
          ? { type: 'text', text: 'Found A.' }
          : undefined,
    );
    const first = await runtime.executor.execute(agent, 'look up a', { sessionId: 'stream-seq' });
    const firstChunks = await collectChunks(first);
    await first.result();

    const sequences = firstChunks.map((chunk) => chunk.sequence);
    expect(sequences[0]).toBeGreaterThan(0);
    for (let index = 1; index < sequences.length; index += 1) expect(sequences[index]).toBeGreaterThan(sequences[index - 1]!);
    expect(firstChunks.map((chunk) => chunk.type)).toEqual(
      expect.arrayContaining(['text_delta', 'tool_start', 'custom', 'tool_end', 'output']),
    );
    const steps = firstChunks.map((chunk) => chunk.step);
    expect([...steps].sort((left, right) => left - right)).toEqual(steps);

    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: 'Second turn.' } : undefined));
    const second = await first.send('and again');
    const secondChunks = await collectChunks(second);
    await second.result();

    expect(secondChunks[0]!.sequence).toBeGreaterThan(sequences.at(-1)!);
    expect(textOf(secondChunks)).toBe('Second turn.');
    expect(secondChunks.filter((chunk) => chunk.type === 'output')).toHaveLength(1);
  });
});
