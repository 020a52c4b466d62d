import { describe, expect, it } from 'vitest';
import { anthropicCache } from '../../../src/llm/anthropic-cache.js';
import { planCacheBreakpoints, toCacheStrategies } from '../../../src/orchestration/prompt-cache.js';
import type { Message } from '../../../src/types/message.js';

const ephemeral = { anthropic: { cacheControl: { type: 'ephemeral' } } };
const roles = (...list: Array<Message['role']>): Array<Pick<Message, 'role'>> => list.map((role) => ({ role }));

describe('planCacheBreakpoints (anthropicCache)', () => {
  const cases: Array<[string, Array<Pick<Message, 'role'>>, number[]]> = [
    ['system only', roles('system', 'user'), [0]],
    ['no system, no tools', roles('user'), []],
    ['one tool batch: its last result', roles('system', 'user', 'assistant', 'tool', 'tool'), [0, 4]],
    ['two batches: the latest batch only', roles('system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'tool'), [0, 7]],
    ['latest batch followed by text turns', roles('system', 'user', 'assistant', 'tool', 'assistant', 'user'), [0, 3]],
    ['tool batch without a system prompt', roles('user', 'assistant', 'tool'), [2]],
  ];
  it.each(cases)('%s', (_label, messages, indices) => {
    const breakpoints = planCacheBreakpoints(messages, [anthropicCache()]);
    expect(breakpoints.map((breakpoint) => breakpoint.messageIndex)).toEqual(indices);
    for (const breakpoint of breakpoints) expect(breakpoint.providerOptions).toEqual(ephemeral);
  });

  it('puts the ttl into cacheControl', () => {
    expect(planCacheBreakpoints(roles('system'), [anthropicCache({ ttl: '1h' })])).toEqual([
      { messageIndex: 0, providerOptions: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } } },
    ]);
  });

  it('places nothing without strategies', () => {
    expect(planCacheBreakpoints(roles('system', 'user', 'assistant', 'tool'), [])).toEqual([]);
  });
});

describe('toCacheStrategies', () => {
  const accepted: Array<[string, unknown, number]> = [
    ['undefined', undefined, 0],
    ['one strategy', anthropicCache(), 1],
    ['an array', [anthropicCache(), anthropicCache({ ttl: '5m' })], 2],
    ['a plain object of a known type', { type: 'anthropic' }, 1],
  ];
  it.each(accepted)('accepts %s', (_label, cache, count) => {
    expect(toCacheStrategies(cache)).toHaveLength(count);
  });

  const refused: Array<[string, unknown]> = [
    ['an unknown strategy', { type: 'openai' }],
    ['a legacy object without a type', { strategy: 'ephemeral', breakpoints: ['system'] }],
    ['a string', 'anthropic'],
    ['a function', () => []],
    ['an unknown ttl', { type: 'anthropic', ttl: '10m' }],
    ['an array with one bad entry', [anthropicCache(), { type: 'mystery' }]],
  ];
  it.each(refused)('refuses %s with INVALID_AGENT_CONFIG', (_label, cache) => {
    expect(() => toCacheStrategies(cache)).toThrow(expect.objectContaining({ code: 'INVALID_AGENT_CONFIG' }));
  });
});
