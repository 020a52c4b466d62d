import { describe, expect, it } from 'vitest';
import { LLMCallError } from '../../../src/errors/index.js';
import { MockLLMAdapter } from '../../../src/llm/index.js';
import { splitIntoWords } from '../../../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput, LLMStreamCallbacks } from '../../../src/types/llm.js';

function input(content = 'hi', extra: Partial<LLMGenerateInput> = {}): LLMGenerateInput {
  return { messages: [{ role: 'user', content }], tools: [], config: {}, ...extra };
}

/** Callbacks that record every event in order. */
function recorder(): { events: string[]; callbacks: LLMStreamCallbacks } {
  const events: string[] = [];
  return {
    events,
    callbacks: {
      onTextDelta: (delta) => void events.push(`text:${delta}`),
      onThinkingDelta: (delta) => void events.push(`thinking:${delta}`),
      onToolCallDelta: (delta) => void events.push(`args:${delta.toolCallId}:${delta.argumentsDelta}`),
      onToolCall: (toolCall) => void events.push(`call:${toolCall.id}:${toolCall.name}`),
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<LLMCallError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  if (!LLMCallError.isInstance(error)) throw new Error('expected an LLMCallError');
  return error;
}

describe('MockLLMAdapter', () => {
  it('plays responses in order and streams text word by word, thinking first', async () => {
    const llm = new MockLLMAdapter([
      { type: 'text', text: 'Hello big world', thinking: 'Let me think' },
      { type: 'text', text: 'Second' },
    ]);
    const { events, callbacks } = recorder();
    const first = await llm.generateStep(input(), callbacks);
    expect(events).toEqual(['thinking:Let ', 'thinking:me ', 'thinking:think', 'text:Hello ', 'text:big ', 'text:world']);
    expect(first).toEqual({
      text: 'Hello big world',
      thinking: 'Let me think',
      toolCalls: [],
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      finishReason: 'stop',
      modelId: 'mock-model',
    });
    expect((await llm.generateStep(input())).text).toBe('Second');
    expect(llm.callCount).toBe(2);
  });

  it('returns tool calls with deterministic ids unless given, and streams their arguments', async () => {
    const llm = new MockLLMAdapter([
      { type: 'text', text: 'warm-up' },
      {
        type: 'tool_calls',
        text: 'Calling',
        toolCalls: [
          { name: 'search', arguments: { q: 'x' } },
          { id: 'given', name: 'add', arguments: { a: 1 } },
        ],
      },
    ]);
    await llm.generateStep(input());
    const { events, callbacks } = recorder();
    const result = await llm.generateStep(input(), callbacks);
    expect(result.toolCalls).toEqual([
      { id: 'mock-call-1-0', name: 'search', arguments: { q: 'x' } },
      { id: 'given', name: 'add', arguments: { a: 1 } },
    ]);
    expect(result.finishReason).toBe('tool_calls');
    expect(events).toEqual([
      'text:Calling',
      'args:mock-call-1-0:{"q":"x"}',
      'call:mock-call-1-0:search',
      'args:given:{"a":1}',
      'call:given:add',
    ]);
  });

  it('turns subAgentCalls into subagent__ tool calls after the regular ones', async () => {
    const llm = new MockLLMAdapter([
      {
        type: 'tool_calls',
        toolCalls: [{ name: 'search', arguments: {} }],
        subAgentCalls: [
          { id: 's1', agentType: 'summarizer', input: { texts: ['text1'] } },
          { agentType: 'critic', input: {} },
        ],
      },
    ]);
    const result = await llm.generateStep(input());
    expect(result.toolCalls).toEqual([
      { id: 'mock-call-0-0', name: 'search', arguments: {} },
      { id: 's1', name: 'subagent__summarizer', arguments: { texts: ['text1'] } },
      { id: 'mock-call-0-2', name: 'subagent__critic', arguments: {} },
    ]);
  });

  it('turns structured output into a __finish__ tool call carrying the output', async () => {
    const llm = new MockLLMAdapter([{ type: 'structured_output', output: { answer: 42 } }]);
    const result = await llm.generateStep(input());
    expect(result.toolCalls).toEqual([{ id: 'mock-call-0-0', name: '__finish__', arguments: { answer: 42 } }]);
    expect(result.finishReason).toBe('tool_calls');
  });

  it('does not share argument objects with the script', async () => {
    const output = { nested: { value: 1 } };
    const llm = new MockLLMAdapter([{ type: 'structured_output', output }]);
    const result = await llm.generateStep(input());
    (result.toolCalls[0]?.arguments.nested as { value: number }).value = 2;
    expect(output.nested.value).toBe(1);
  });

  it('throws scripted errors as LLMCallError with the scripted retryability (default false)', async () => {
    const llm = new MockLLMAdapter([
      { type: 'error', message: 'rate limited', retryable: true, statusCode: 429 },
      { type: 'error', message: 'bad request' },
    ]);
    const first = await rejection(llm.generateStep(input()));
    expect(first.message).toBe('rate limited');
    expect(first.retryable).toBe(true);
    expect(first.data).toEqual({ retryable: true, statusCode: 429 });
    expect((await rejection(llm.generateStep(input()))).retryable).toBe(false);
    expect(llm.callCount).toBe(2);
  });

  it('throws a clear non-retryable LLMCallError when the script runs out', async () => {
    const llm = new MockLLMAdapter([{ type: 'text', text: 'only one' }]);
    await llm.generateStep(input());
    const error = await rejection(llm.generateStep(input()));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('no scripted response for call 2');
  });

  it('records deep copies of the inputs', async () => {
    const llm = new MockLLMAdapter([{ type: 'text', text: 'a' }]);
    const model = { modelId: 'live' };
    const call = input('original', { tools: [{ name: 't', description: 'd', inputSchema: { type: 'object' } }], config: { model, temperature: 0 }, abortSignal: new AbortController().signal, step: 3 });
    await llm.generateStep(call);
    (call.messages[0] as { content: string }).content = 'mutated';
    call.tools[0]!.inputSchema.type = 'mutated';
    expect(llm.calls).toEqual([
      {
        messages: [{ role: 'user', content: 'original' }],
        tools: [{ name: 't', description: 'd', inputSchema: { type: 'object' } }],
        config: { model, temperature: 0 },
        step: 3,
      },
    ]);
    expect(llm.calls[0]?.config.model).toBe(model);
    expect(llm.calls[0]).not.toHaveProperty('abortSignal');
  });

  it('records no inputs with recordInputs: false but still counts calls and plays the script', async () => {
    const llm = new MockLLMAdapter((_request, callIndex) => ({ type: 'text', text: `${callIndex}` }), { recordInputs: false });
    expect((await llm.generateStep(input())).text).toBe('0');
    expect((await llm.generateStep(input())).text).toBe('1');
    expect(llm.callCount).toBe(2);
    expect(llm.calls).toEqual([]);
    llm.reset();
    expect(llm.callCount).toBe(0);
    expect((await llm.generateStep(input())).text).toBe('0');
  });

  it('asks a script function with the input and call index; undefined means exhausted', async () => {
    const llm = new MockLLMAdapter((request, callIndex) =>
      callIndex < 2 ? { type: 'text', text: `${callIndex}:${request.messages.length}` } : undefined,
    );
    expect((await llm.generateStep(input())).text).toBe('0:1');
    expect((await llm.generateStep(input())).text).toBe('1:1');
    expect((await rejection(llm.generateStep(input()))).retryable).toBe(false);
  });

  it('reset() clears the calls and restarts the script', async () => {
    const llm = new MockLLMAdapter([{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }]);
    await llm.generateStep(input());
    llm.reset();
    expect(llm.callCount).toBe(0);
    expect(llm.calls).toEqual([]);
    expect((await llm.generateStep(input())).text).toBe('first');
  });

  it('fills usage defaults around partial usage and honours a finishReason override', async () => {
    const llm = new MockLLMAdapter([{ type: 'text', text: 'x', usage: { inputTokens: 100, reasoningTokens: 4 }, finishReason: 'length' }]);
    const result = await llm.generateStep(input());
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 5, totalTokens: 105, reasoningTokens: 4 });
    expect(result.finishReason).toBe('length');
  });

  it('waits delayMs before answering and chunkDelayMs between deltas', async () => {
    const llm = new MockLLMAdapter([{ type: 'text', text: 'a b c', delayMs: 60, chunkDelayMs: 30 }]);
    const times: number[] = [];
    const started = Date.now();
    await llm.generateStep(input(), { onTextDelta: () => void times.push(Date.now() - started) });
    expect(times).toHaveLength(3);
    expect(times[0]).toBeGreaterThanOrEqual(55);
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(55);
  });

  it('stops with a non-retryable LLMCallError when the abort signal fires mid-stream', async () => {
    const llm = new MockLLMAdapter([{ type: 'text', text: 'one two three four', chunkDelayMs: 50 }]);
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = llm.generateStep(input('hi', { abortSignal: controller.signal }), {
      onTextDelta: (delta) => {
        deltas.push(delta);
        controller.abort();
      },
    });
    const error = await rejection(pending);
    expect(error.retryable).toBe(false);
    expect(deltas).toEqual(['one ']);
  });

  it('propagates an error thrown by a callback', async () => {
    const llm = new MockLLMAdapter([{ type: 'text', text: 'x y' }]);
    const failure = new Error('stream closed');
    await expect(llm.generateStep(input(), { onTextDelta: () => Promise.reject(failure) })).rejects.toBe(failure);
  });
});

describe('splitIntoWords', () => {
  it.each(['Hello big world', '  leading and trailing  ', 'one', '', 'tabs\tand\nnewlines', '   '])(
    'splits %j into deltas that join back to the input',
    (text) => {
      const words = splitIntoWords(text);
      expect(words.join('')).toBe(text);
      expect(words.every((word) => word.length > 0)).toBe(true);
    },
  );

  it('gives one delta per word', () => {
    expect(splitIntoWords('Hello big world')).toEqual(['Hello ', 'big ', 'world']);
  });
});
