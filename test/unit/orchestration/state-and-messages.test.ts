import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { defineAgent } from '../../../src/agent/index.js';
import { ConfigurationError, InvalidArgumentError } from '../../../src/errors/index.js';
import {
  buildEffectiveTools,
  buildMessagesForLLM,
  createAssistantMessage,
  createToolResultMessage,
  ephemeralChildSessionId,
  initializeAgentState,
  messageId,
  persistentChildSessionId,
} from '../../../src/orchestration/index.js';
import type { Message } from '../../../src/types/message.js';
import { fullAgent, stepWith, textAgent } from './fixtures.js';

const stateful = defineAgent({
  name: 'stateful',
  systemPrompt: (state) => `You have ${state.notes.length} notes for ${state.owner}.`,
  stateSchema: z.object({ notes: z.array(z.string()).default([]), owner: z.string().default('nobody'), count: z.number().default(0) }),
});

describe('initializeAgentState', () => {
  it.each<[string, Parameters<typeof initializeAgentState<typeof stateful.stateSchema & z.ZodType, z.ZodType>>[1], Record<string, unknown>, string]>([
    ['a string applies schema defaults', 'hi', { notes: [], owner: 'nobody', count: 0 }, 'hi'],
    ['object input merges state over defaults', { message: 'go', state: { owner: 'ada' } }, { notes: [], owner: 'ada', count: 0 }, 'go'],
  ])('%s', (_label, input, customState, content) => {
    const result = initializeAgentState(stateful, input, { runId: 'run-7' });
    expect(result).toEqual({ customState, message: { id: 'run-7:0:0', role: 'user', content } });
  });

  it('merges input.state over the existing state of a continuation', () => {
    const { customState } = initializeAgentState(stateful, { message: 'again', state: { count: 2 } }, {
      existingState: { notes: ['kept'], owner: 'ada', count: 1 },
    });
    expect(customState).toEqual({ notes: ['kept'], owner: 'ada', count: 2 });
  });

  it('uses the state as given without a stateSchema, and omits the id without runId', () => {
    expect(initializeAgentState(textAgent, { message: 'm', state: { free: 1 } })).toEqual({
      customState: { free: 1 },
      message: { role: 'user', content: 'm' },
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['state not matching the schema', { message: 'm', state: { count: 'two', owner: 'secret-owner-value' } }, /stateSchema of agent "stateful": count: /],
    ['a number input', 42, /string or/],
    ['a missing message', { state: {} }, /input.message/],
    ['an array state', { message: 'm', state: [] }, /input.state/],
  ])('rejects %s with InvalidArgumentError', (_label, input, message) => {
    const run = () => initializeAgentState(stateful, input as string);
    expect(run).toThrow(InvalidArgumentError);
    expect(run).toThrow(message);
    expect(run).not.toThrow(/secret-owner-value/);
  });
});

describe('buildMessagesForLLM', () => {
  const history: Message[] = [
    { role: 'user', content: 'hello' },
    { role: 'system', content: 'stale system prompt' },
    { role: 'assistant', content: 'hi' },
  ];

  it('puts the dynamic system prompt first and drops stored system messages', () => {
    const messages = buildMessagesForLLM(stateful, history, { notes: ['a', 'b'], owner: 'ada', count: 0 });
    expect(messages).toEqual([
      { role: 'system', content: 'You have 2 notes for ada.' },
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ]);
    expect(history).toHaveLength(3);
  });

  it('uses a string prompt as is', () => {
    expect(buildMessagesForLLM(textAgent, [], {})[0]).toEqual({ role: 'system', content: 'Chat.' });
  });

  it('rejects a prompt function that does not return a string', () => {
    const broken = defineAgent({ name: 'broken', systemPrompt: (() => 42) as unknown as () => string });
    expect(() => buildMessagesForLLM(broken, [], {})).toThrow(ConfigurationError);
  });
});

describe('buildEffectiveTools', () => {
  it('orders user tools, __finish__, then companions', () => {
    expect(buildEffectiveTools(fullAgent).map((tool) => tool.name)).toEqual([
      'search', 'pick', 'pay', 'refund', 'submit', 'subagent__summarizer', 'remote__researcher', '__finish__',
      'companion__spawnAgent', 'companion__sendMessage', 'companion__listChildren', 'companion__getChildStatus',
      'companion__terminateChild', 'companion__waitForResult',
    ]);
    expect(buildEffectiveTools(fullAgent)).toBe(buildEffectiveTools(fullAgent));
  });
});

describe('message builders and ids', () => {
  it('creates an assistant message with thinking and copies of the tool calls', () => {
    const step = { ...stepWith([{ name: 'search', arguments: { query: 'q' } }], 'text'), thinking: 'hmm' };
    const message = createAssistantMessage(step, { id: 'r:1:0', createdAt: 5 });
    expect(message).toEqual({ id: 'r:1:0', role: 'assistant', content: 'text', thinking: 'hmm', toolCalls: step.toolCalls, createdAt: 5 });
    expect(message.toolCalls?.[0]).not.toBe(step.toolCalls[0]);
    expect(createAssistantMessage(stepWith([], 'only text'), { id: 'r:1:0' })).toEqual({ id: 'r:1:0', role: 'assistant', content: 'only text' });
  });

  it.each([
    [{ id: 'r:1:1', toolCallId: 'c', toolName: 't', result: { ok: true } }, { id: 'r:1:1', role: 'tool', toolCallId: 'c', toolName: 't', content: { ok: true } }],
    [{ id: 'r:1:1', toolCallId: 'c', toolName: 't', error: 'Timed out' }, { id: 'r:1:1', role: 'tool', toolCallId: 'c', toolName: 't', content: 'Timed out', isError: true }],
    [{ id: 'r:1:1', toolCallId: 'c', toolName: 't', result: null }, { id: 'r:1:1', role: 'tool', toolCallId: 'c', toolName: 't', content: null }],
  ])('creates tool result %#', (input, expected) => {
    expect(createToolResultMessage(input)).toEqual(expected);
  });

  it.each<[string, number, number, string | RegExp]>([
    ['run-1', 0, 0, 'run-1:0:0'],
    ['run-1', 12, 3, 'run-1:12:3'],
    ['', 1, 0, /runId/],
    ['run-1', -1, 0, /step/],
    ['run-1', 1, 0.5, /index/],
  ])('messageId(%s, %d, %d)', (runId, step, index, expected) => {
    if (typeof expected === 'string') expect(messageId(runId, step, index)).toBe(expected);
    else expect(() => messageId(runId, step, index)).toThrow(expected);
  });

  it('derives child session ids', () => {
    expect(ephemeralChildSessionId('parent', 'call_1')).toBe('parent-sub-call_1');
    expect(persistentChildSessionId('parent', 'researcher')).toBe('parent-agent-researcher');
  });
});
