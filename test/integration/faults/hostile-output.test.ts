import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { VercelAIAdapter } from '../../../src/llm/index.js';
import type { Message } from '../../../src/types/message.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, toolResults } from '../executor/executor-test-kit.js';

/** JSON text nested `depth` levels deep (built as text: the real client parses what a provider would send). */
function nestedJson(depth: number): string {
  return `${'{"inner":'.repeat(depth)}{"leaf":true}${'}'.repeat(depth)}`;
}

let searches = 0;
const search = defineTool({
  name: 'search',
  description: 'Search',
  parameters: z.strictObject({ query: z.string() }),
  execute: async ({ query }) => {
    searches += 1;
    return { found: query };
  },
});
const agent = defineAgent({ name: 'hostile_target', systemPrompt: 'Search.', tools: [search], maxSteps: 4 });

let fake: FakeOpenAI;
let runtime: TestRuntime;
let turn = 0;
beforeAll(async () => {
  const hugeKey = 'k'.repeat(1_048_576);
  const bigKey = 'b'.repeat(200_000);
  fake = await startFakeOpenAI(() => {
    turn += 1;
    if (turn === 1) {
      return {
        type: 'tool_calls',
        toolCalls: [
          { id: 'deep', name: 'search', arguments: nestedJson(10_000) },
          { id: 'huge-key', name: 'search', arguments: `{"query":"x","${hugeKey}":1}` },
          { id: 'unknown-key', name: 'search', arguments: `{"query":"x","${bigKey}":1}` },
          { id: 'fine', name: 'search', arguments: { query: 'ok' } },
        ],
      };
    }
    return { type: 'text', text: turn === 2 ? 'saw the results' : 'second turn' };
  });
  const model = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' }).chat('fake-model');
  runtime = await startTestRuntime('faults_hostile_output', new VercelAIAdapter({ model }), { toolRetryPolicy: { maxAttempts: 1 } });
});
afterAll(async () => {
  await runtime?.shutdown();
  await fake?.close();
});

describe('hostile model output stays a tool error', () => {
  it('arguments nested 10,000 deep, past the size limit, or with unknown keys come back as short tool errors; the run and session go on', async () => {
    searches = 0;
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'hostile-1' });
    const chunks = await collectChunks(handle);
    const result = await handle.result();
    expect(result, String(result.error)).toMatchObject({ status: 'completed', output: 'saw the results' });
    expect(searches).toBe(1);

    const results = toolResults((await runtime.stateStore.getMessages('hostile-1')).messages);
    expect(results.map((message) => [message.toolCallId, message.isError === true])).toEqual([
      ['deep', true],
      ['huge-key', true],
      ['unknown-key', true],
      ['fine', false],
    ]);
    expect(String(results[0]?.content)).toContain('nest deeper than 64 levels');
    expect(String(results[1]?.content)).toContain('larger than 262144 bytes');
    expect(String(results[2]?.content)).toContain('1 unrecognized key');
    for (const message of results) expect(JSON.stringify(message.content).length).toBeLessThan(1_200);

    // Rejected arguments never reached the stored history, the stream or the next prompt (the 200 KB call within the
    // limits is kept as the model sent it; its error names no key).
    const stored = (await runtime.stateStore.getMessages('hostile-1')).messages as Message[];
    const assistant = stored.find((message) => message.role === 'assistant');
    expect(assistant?.role === 'assistant' ? assistant.toolCalls?.map((call) => [call.id, JSON.stringify(call.arguments).length < 100]) : []).toEqual([
      ['deep', true],
      ['huge-key', true],
      ['unknown-key', false],
      ['fine', true],
    ]);
    expect(JSON.stringify(stored).length).toBeLessThan(250_000);
    expect(JSON.stringify(chunks).length).toBeLessThan(250_000);
    expect(JSON.stringify(fake.requests[1]?.body).length).toBeLessThan(250_000);
    expect(JSON.stringify(results.map((message) => message.content))).not.toContain('bbbbbbbb');

    // The session stays usable.
    const next = await runtime.executor.execute(agent, 'again', { sessionId: 'hostile-1' });
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'second turn' });
  });
});
