import { describe, expect, it } from 'vitest';

import { findUnpairedFinishCallId, synthesizeFinishToolResult } from '../../../src/orchestration/index.js';
import type { Message } from '../../../src/types/message.js';

const user: Message = { role: 'user', content: 'go' };
const finishCall = (id: string): Message => ({ role: 'assistant', content: '', toolCalls: [{ id, name: '__finish__', arguments: { a: 1 } }] });
const result = (toolCallId: string, toolName = '__finish__'): Message => ({ role: 'tool', toolCallId, toolName, content: 'ok' });

describe('findUnpairedFinishCallId', () => {
  it.each<[string, Message[], string | undefined]>([
    ['empty history', [], undefined],
    ['ends with a dangling __finish__', [user, finishCall('f1')], 'f1'],
    ['__finish__ already answered', [user, finishCall('f1'), result('f1')], undefined],
    ['consult appended after a dangling __finish__', [user, finishCall('f1'), { role: 'user', content: 'more' }], 'f1'],
    ['only the last assistant message counts', [finishCall('old'), { role: 'assistant', content: 'later' }], undefined],
    ['other tool calls unanswered do not count', [{ role: 'assistant', content: '', toolCalls: [{ id: 't', name: 'search', arguments: {} }] }], undefined],
    [
      '__finish__ next to an answered tool call',
      [{ role: 'assistant', content: '', toolCalls: [{ id: 't', name: 'search', arguments: {} }, { id: 'f2', name: '__finish__', arguments: {} }] }, result('t', 'search')],
      'f2',
    ],
    ['text-only final answer', [user, { role: 'assistant', content: 'done' }], undefined],
  ])('%s', (_label, messages, expected) => {
    expect(findUnpairedFinishCallId(messages)).toBe(expected);
  });

  it('is healed by synthesizeFinishToolResult', () => {
    const history = [user, finishCall('f1')];
    const dangling = findUnpairedFinishCallId(history);
    if (dangling === undefined) throw new Error('expected a dangling __finish__');
    const healed = [...history, synthesizeFinishToolResult(dangling)];
    expect(findUnpairedFinishCallId(healed)).toBeUndefined();
  });
});

describe('synthesizeFinishToolResult', () => {
  it('pairs the call with a deterministic default id', () => {
    expect(synthesizeFinishToolResult('f1')).toEqual({
      id: 'f1:finish-result',
      role: 'tool',
      toolCallId: 'f1',
      toolName: '__finish__',
      content: 'Output accepted; the task is complete.',
    });
    expect(synthesizeFinishToolResult('f1')).toEqual(synthesizeFinishToolResult('f1'));
  });

  it('accepts an explicit id and timestamp', () => {
    const message = synthesizeFinishToolResult('f1', { id: 'run:3:1', createdAt: 9 });
    expect(message).toMatchObject({ id: 'run:3:1', createdAt: 9, toolCallId: 'f1' });
    expect('isError' in message).toBe(false);
  });
});
