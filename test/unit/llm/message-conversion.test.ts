import { modelMessageSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { toModelMessages } from '../../../src/llm/vercel/message-conversion.js';
import type { Message } from '../../../src/types/message.js';

describe('toModelMessages', () => {
  it('moves leading system messages into `system` and keeps user text as strings', () => {
    const converted = toModelMessages([
      { role: 'system', content: 'You are terse.' },
      { role: 'system', content: 'Answer in English.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(converted).toEqual({
      system: 'You are terse.\n\nAnswer in English.',
      messages: [{ role: 'user', content: 'Hi' }],
      hasInlineSystemMessages: false,
    });
  });

  it('keeps a system message that follows the conversation start in place and flags it', () => {
    const converted = toModelMessages([
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Reminder: be brief.' },
    ]);
    expect(converted.system).toBeUndefined();
    expect(converted.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Reminder: be brief.' },
    ]);
    expect(converted.hasInlineSystemMessages).toBe(true);
  });

  it('turns assistant tool calls into tool-call parts after the text and drops thinking', () => {
    const converted = toModelMessages([
      {
        role: 'assistant',
        content: 'Checking.',
        thinking: 'private reasoning',
        toolCalls: [
          { id: 'c1', name: 'search', arguments: { q: 'dbos' } },
          { id: 'c2', name: 'add', arguments: { a: 1, b: 2 } },
        ],
      },
    ]);
    expect(converted.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'dbos' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'add', input: { a: 1, b: 2 } },
        ],
      },
    ]);
  });

  it('omits the text part of an assistant turn that only calls tools, and drops empty turns', () => {
    const converted = toModelMessages([
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'noop', arguments: {} }] },
      { role: 'assistant', content: '' },
    ]);
    expect(converted.messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'noop', input: {} }] },
    ]);
  });

  it.each([
    ['an object result', { content: { hits: 3 } }, { type: 'json', value: { hits: 3 } }],
    ['an array result', { content: [1, 2] }, { type: 'json', value: [1, 2] }],
    ['a number result', { content: 42 }, { type: 'json', value: 42 }],
    ['an undefined result', { content: undefined }, { type: 'json', value: null }],
    ['a string result', { content: 'done' }, { type: 'text', value: 'done' }],
    ['a string error', { content: 'boom', isError: true }, { type: 'error-text', value: 'boom' }],
    ['an object error', { content: { reason: 'x' }, isError: true }, { type: 'error-text', value: '{"reason":"x"}' }],
  ])('maps %s to the matching tool-result output', (_label, fields, output) => {
    const message = { role: 'tool', toolCallId: 'c1', toolName: 'search', ...fields } as Message;
    const [converted] = toModelMessages([message]).messages;
    expect(converted).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output }],
    });
  });

  it('drops undefined fields nested in JSON results', () => {
    const [converted] = toModelMessages([
      { role: 'tool', toolCallId: 'c1', toolName: 't', content: { kept: 1, dropped: undefined } },
    ]).messages;
    expect(converted).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 't', output: { type: 'json', value: { kept: 1 } } }],
    });
  });

  it('merges consecutive tool results into one tool message, and starts a new one after another role', () => {
    const converted = toModelMessages([
      { role: 'tool', toolCallId: 'c1', toolName: 'a', content: 1 },
      { role: 'tool', toolCallId: 'c2', toolName: 'b', content: 2 },
      { role: 'user', content: 'next' },
      { role: 'tool', toolCallId: 'c3', toolName: 'c', content: 3 },
    ]);
    expect(converted.messages.map((message) => message.role)).toEqual(['tool', 'user', 'tool']);
    const first = converted.messages[0];
    expect(first?.role === 'tool' ? first.content.map((part) => part.type === 'tool-result' && part.toolCallId) : []).toEqual(['c1', 'c2']);
  });

  it('produces messages that pass the AI SDK prompt schema', () => {
    const conversation: Message[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'What is 1 + 2?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1, b: 2 } }] },
      { role: 'tool', toolCallId: 'c1', toolName: 'add', content: { sum: 3 } },
      { role: 'assistant', content: 'It is 3.' },
      { role: 'user', content: 'Thanks' },
    ];
    const { messages } = toModelMessages(conversation);
    expect(messages).toHaveLength(5);
    for (const message of messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
  });

  it('puts cache breakpoints on the system prompt, on a tool-result part, or on the marked message', () => {
    const mark = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const conversation: Message[] = [
      { role: 'system', content: 'Cached prompt.' },
      { role: 'user', content: 'Go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 't', arguments: {} }, { id: 'b', name: 't', arguments: {} }] },
      { role: 'tool', toolCallId: 'a', toolName: 't', content: 'A' },
      { role: 'tool', toolCallId: 'b', toolName: 't', content: 'B' },
    ];
    const converted = toModelMessages(conversation, [
      { messageIndex: 0, providerOptions: mark },
      { messageIndex: 1, providerOptions: mark },
      { messageIndex: 4, providerOptions: mark },
    ]);
    expect(converted.system).toBe('Cached prompt.');
    expect(converted.systemProviderOptions).toEqual(mark);
    expect(converted.messages[0]).toEqual({ role: 'user', content: 'Go', providerOptions: mark });
    expect(converted.messages[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'A' } },
        { type: 'tool-result', toolCallId: 'b', toolName: 't', output: { type: 'text', value: 'B' }, providerOptions: mark },
      ],
    });
    for (const message of converted.messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
    expect(toModelMessages(conversation)).not.toHaveProperty('systemProviderOptions');
  });
});
