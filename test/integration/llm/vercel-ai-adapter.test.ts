/**
 * VercelAIAdapter with the real `@ai-sdk/openai` client against the local fake OpenAI server, for both the
 * Responses API (`openai('m')`) and Chat Completions (`openai.chat('m')`). No Postgres needed.
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { LLMCallError } from '../../../src/errors/index.js';
import { VercelAIAdapter } from '../../../src/llm/index.js';
import type { LLMGenerateInput, ToolSchema } from '../../../src/types/llm.js';
import type { Message } from '../../../src/types/message.js';
import { startFakeOpenAI } from '../../fixtures/fake-openai/index.js';
import type { FakeOpenAI, FakeOpenAIResponse } from '../../fixtures/fake-openai/index.js';

type OpenAIProvider = ReturnType<typeof createOpenAI>;

const APIS: Array<{ api: 'responses' | 'chat'; model: (provider: OpenAIProvider, id: string) => LanguageModel }> = [
  { api: 'responses', model: (provider, id) => provider(id) },
  { api: 'chat', model: (provider, id) => provider.chat(id) },
];

const ADD_TOOL: ToolSchema = {
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
};

function input(messages: Message[], extra: Partial<LLMGenerateInput> = {}): LLMGenerateInput {
  return { messages, tools: [ADD_TOOL], config: {}, ...extra };
}

const USER_TURN: Message[] = [
  { role: 'system', content: 'You add numbers.' },
  { role: 'user', content: 'What is 2 + 3? SECRET-PROMPT-TEXT' },
];

async function rejection(promise: Promise<unknown>): Promise<LLMCallError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  if (!LLMCallError.isInstance(error)) throw new Error(`expected an LLMCallError, got ${String(error)}`);
  return error;
}

describe.each(APIS)('VercelAIAdapter over the $api API', ({ api, model }) => {
  let fake: FakeOpenAI | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function setup(script: FakeOpenAIResponse[]): Promise<{ fake: FakeOpenAI; adapter: VercelAIAdapter; provider: OpenAIProvider }> {
    fake = await startFakeOpenAI(script);
    const provider = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
    return { fake, adapter: new VercelAIAdapter({ model: model(provider, 'fake-model') }), provider };
  }

  it('streams text through the callback in several deltas before the call resolves', async () => {
    const { adapter, fake: server } = await setup([{ type: 'text', text: 'Two plus three is five.', chunkDelayMs: 15 }]);
    const deltas: Array<{ delta: string; at: number }> = [];
    const result = await adapter.generateStep(input(USER_TURN), { onTextDelta: (delta) => void deltas.push({ delta, at: Date.now() }) });
    const resolvedAt = Date.now();

    expect(deltas.length).toBeGreaterThanOrEqual(3);
    // The server spaces its events 15 ms apart: the first delta must arrive while later events are still unsent.
    expect(resolvedAt - deltas[0]!.at).toBeGreaterThanOrEqual(30);
    expect(deltas.map((entry) => entry.delta).join('')).toBe('Two plus three is five.');
    expect(result.text).toBe('Two plus three is five.');
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe('stop');
    expect(result.modelId).toBe('fake-model');
    expect(server.requests[0]?.api).toBe(api);
  });

  it('reassembles tool-call arguments split across deltas into a parsed ToolCall', async () => {
    const { adapter } = await setup([
      { type: 'tool_calls', toolCalls: [{ id: 'call_add', name: 'add', arguments: { a: 2, b: 3 }, argumentChunks: 4 }] },
    ]);
    const argumentDeltas: string[] = [];
    const completed: unknown[] = [];
    const result = await adapter.generateStep(input(USER_TURN), {
      onToolCallDelta: (delta) => {
        expect(delta).toMatchObject({ toolCallId: 'call_add', toolName: 'add' });
        argumentDeltas.push(delta.argumentsDelta);
      },
      onToolCall: (toolCall) => void completed.push(toolCall),
    });

    expect(argumentDeltas.length).toBeGreaterThanOrEqual(2);
    expect(argumentDeltas.join('')).toBe('{"a":2,"b":3}');
    expect(result.toolCalls).toEqual([{ id: 'call_add', name: 'add', arguments: { a: 2, b: 3 } }]);
    expect(completed).toEqual(result.toolCalls);
    expect(result.finishReason).toBe('tool_calls');
    expect(result.invalidToolCalls).toBeUndefined();
  });

  it('reports the provider usage numbers', async () => {
    const { adapter } = await setup([
      { type: 'text', text: 'ok', usage: { inputTokens: 123, outputTokens: 45, cachedInputTokens: 7, reasoningTokens: 3 } },
    ]);
    const result = await adapter.generateStep(input(USER_TURN));
    expect(result.usage).toEqual({ inputTokens: 123, outputTokens: 45, totalTokens: 168, reasoningTokens: 3, cachedInputTokens: 7 });
  });

  it('maps HTTP 429 to a retryable LLMCallError without retrying inside the SDK, then succeeds on the next call', async () => {
    const { adapter, fake: server } = await setup([
      { type: 'http_error', status: 429, retryAfterSeconds: 2 },
      { type: 'text', text: 'Recovered now' },
    ]);
    const error = await rejection(adapter.generateStep(input(USER_TURN)));
    expect(error.retryable).toBe(true);
    // The provider's retry-after travels with the error (the LLM step waits it out).
    expect(error.data).toEqual({ retryable: true, statusCode: 429, retryAfterMs: 2_000 });
    expect([error.rateLimited, error.retryAfterMs]).toEqual([true, 2_000]);
    expect(JSON.stringify({ message: error.message, data: error.data, cause: (error.cause as Error).message })).not.toContain('SECRET');
    expect(server.requestCount).toBe(1);

    const result = await adapter.generateStep(input(USER_TURN));
    expect(result.text).toBe('Recovered now');
    expect(server.requestCount).toBe(2);
  });

  it('maps a non-retryable HTTP status to retryable false', async () => {
    const { adapter } = await setup([{ type: 'http_error', status: 400, message: 'bad request' }]);
    const error = await rejection(adapter.generateStep(input(USER_TURN)));
    expect(error.retryable).toBe(false);
    expect(error.data).toEqual({ retryable: false, statusCode: 400 });
  });

  it('rejects a malformed stream with a non-retryable LLMCallError instead of hanging', async () => {
    const { adapter } = await setup([{ type: 'malformed', text: 'partial answer' }]);
    const started = Date.now();
    const error = await rejection(adapter.generateStep(input(USER_TURN)));
    expect(error.retryable).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects a dropped connection with a retryable LLMCallError', async () => {
    const { adapter } = await setup([{ type: 'disconnect', text: 'partial answer' }]);
    const error = await rejection(adapter.generateStep(input(USER_TURN)));
    expect(error.retryable).toBe(true);
  });

  it('stops a hanging call when the abort signal fires', async () => {
    const { adapter } = await setup([{ type: 'hang' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(adapter.generateStep(input(USER_TURN, { abortSignal: controller.signal })));
    expect(error.retryable).toBe(false);
  });

  it('flags tool calls whose arguments are not JSON, keeping them in toolCalls with empty arguments', async () => {
    const { adapter } = await setup([{ type: 'tool_calls', toolCalls: [{ id: 'bad', name: 'add', arguments: '{"a": 2,' }] }]);
    const result = await adapter.generateStep(input(USER_TURN));
    expect(result.toolCalls).toEqual([{ id: 'bad', name: 'add', arguments: {} }]);
    expect(result.invalidToolCalls).toEqual([{ toolCallId: 'bad', toolName: 'add', error: expect.stringContaining('JSON') }]);
  });

  it('rethrows an error thrown by a stream callback unchanged', async () => {
    const { adapter } = await setup([{ type: 'text', text: 'one two three' }]);
    const failure = new Error('stream writer closed');
    await expect(
      adapter.generateStep(input(USER_TURN), {
        onTextDelta: () => {
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
  });

  it('uses config.model over the constructor model, and passes temperature and maxOutputTokens', async () => {
    const { adapter, provider, fake: server } = await setup([{ type: 'text', text: 'ok' }]);
    await adapter.generateStep(input(USER_TURN, { config: { model: model(provider, 'override-model'), temperature: 0.25, maxOutputTokens: 77 } }));
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body.model).toBe('override-model');
    expect(body.temperature).toBe(0.25);
    expect(body[api === 'responses' ? 'max_output_tokens' : 'max_tokens']).toBe(77);
  });

  it('sends the assistant tool call and the tool result on the next request of a round trip', async () => {
    const { adapter, fake: server } = await setup([
      { type: 'tool_calls', text: 'Let me add.', toolCalls: [{ id: 'call_7', name: 'add', arguments: { a: 2, b: 3 } }] },
      { type: 'text', text: 'It is 5.' },
    ]);
    const first = await adapter.generateStep(input(USER_TURN));
    const history: Message[] = [
      ...USER_TURN,
      { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'call_7', toolName: 'add', content: { sum: 5 } },
    ];
    const second = await adapter.generateStep(input(history));
    expect(second.text).toBe('It is 5.');
    expect(server.requestCount).toBe(2);

    const body = server.requests[1]?.body as { input?: unknown[]; messages?: unknown[]; tools?: unknown[] };
    if (api === 'responses') {
      expect(body.input).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'function_call', call_id: 'call_7', name: 'add', arguments: '{"a":2,"b":3}' }),
          expect.objectContaining({ type: 'function_call_output', call_id: 'call_7', output: '{"sum":5}' }),
        ]),
      );
    } else {
      expect(body.messages).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            role: 'assistant',
            content: 'Let me add.',
            tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }],
          }),
          { role: 'tool', tool_call_id: 'call_7', content: '{"sum":5}' },
        ]),
      );
    }
    expect(body.tools).toEqual([expect.objectContaining(api === 'responses' ? { name: 'add' } : { function: expect.objectContaining({ name: 'add' }) })]);
  });
});

describe('VercelAIAdapter reasoning (Responses API)', () => {
  it('streams the reasoning summary through onThinkingDelta and returns it as thinking', async () => {
    const fake = await startFakeOpenAI([{ type: 'text', reasoning: 'Add two and three', text: 'Five.' }]);
    try {
      const adapter = new VercelAIAdapter({ model: createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' })('fake-model') });
      const thinking: string[] = [];
      const result = await adapter.generateStep(input(USER_TURN), { onThinkingDelta: (delta) => void thinking.push(delta) });
      expect(thinking.length).toBeGreaterThanOrEqual(2);
      expect(result.thinking).toBe('Add two and three');
      expect(result.text).toBe('Five.');
    } finally {
      await fake.close();
    }
  });
});
