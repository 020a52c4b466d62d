import { describe, expect, it } from 'vitest';
import { collectLoadedSkillNames } from '../../../src/orchestration/loaded-skills.js';
import type { Message } from '../../../src/types/message.js';

const load = (id: string, name: unknown): Message => ({ role: 'assistant', content: '', toolCalls: [{ id, name: 'load_skill', arguments: { name } }] });
const result = (toolCallId: string, content: unknown, isError = false): Message => ({ role: 'tool', toolCallId, toolName: 'load_skill', content, ...(isError ? { isError } : {}) });

describe('collectLoadedSkillNames', () => {
  const cases: Array<[string, Message[], string[]]> = [
    ['nothing loaded', [{ role: 'user', content: 'hi' }], []],
    ['one load with its body', [load('a', 'pdf'), result('a', '# PDF')], ['pdf']],
    ['first-load order, no repeats', [load('a', 'zip'), result('a', 'Z'), load('b', 'pdf'), result('b', 'P'), load('c', 'zip'), result('c', 'Z')], ['zip', 'pdf']],
    ['an unknown skill (error object) is not loaded', [load('a', 'ghost'), result('a', { error: 'There is no skill named "ghost".' })], []],
    ['a failed call is not loaded', [load('a', 'pdf'), result('a', 'boom', true)], []],
    ['a call without a result is not loaded', [load('a', 'pdf')], []],
    ['other tools are ignored', [{ role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'read_skill_file', arguments: { name: 'pdf' } }] }, { role: 'tool', toolCallId: 'x', toolName: 'read_skill_file', content: 'text' }], []],
    ['a non-string name is ignored', [load('a', 42), result('a', 'body')], []],
  ];
  it.each(cases)('%s', (_label, messages, expected) => {
    expect(collectLoadedSkillNames(messages)).toEqual(expected);
  });
});
