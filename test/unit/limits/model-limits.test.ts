import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors/index.js';
import { CONCURRENCY_RECHECK_MS, decidePermit, estimateTokens, validatedModelLimits, type LimitUsage, type ModelLimit } from '../../../src/limits/model-limits.js';

const idle: LimitUsage = { now: 10_000, active: 0, requests: 0, tokens: 0, oldestRequestAt: null, oldestTokenAt: null, nextExpiryAt: null };
const usage = (over: Partial<LimitUsage>): LimitUsage => ({ ...idle, ...over });

describe('decidePermit', () => {
  const cases: Array<[string, ModelLimit, LimitUsage, number, ReturnType<typeof decidePermit>]> = [
    ['no limits: granted', {}, usage({ active: 99, requests: 99 }), 10, { grant: true }],
    ['a free slot: granted', { concurrency: 2 }, usage({ active: 1 }), 10, { grant: true }],
    ['every slot taken: recheck soon', { concurrency: 2 }, usage({ active: 2, nextExpiryAt: 60_000 }), 10, { grant: false, waitMs: CONCURRENCY_RECHECK_MS, reason: 'concurrency' }],
    ['every slot taken, one lapsing sooner: wait for it', { concurrency: 1 }, usage({ active: 1, nextExpiryAt: 10_020 }), 10, { grant: false, waitMs: 20, reason: 'concurrency' }],
    ['requests under the budget: granted', { requests: { limit: 3, periodMs: 1_000 } }, usage({ requests: 2, oldestRequestAt: 9_500 }), 10, { grant: true }],
    ['requests at the budget: wait until the oldest leaves the period', { requests: { limit: 3, periodMs: 1_000 } }, usage({ requests: 3, oldestRequestAt: 9_500 }), 10, { grant: false, waitMs: 501, reason: 'requests' }],
    ['tokens that fit: granted', { tokens: { limit: 1_000, periodMs: 60_000 } }, usage({ tokens: 500, oldestTokenAt: 1_000 }), 500, { grant: true }],
    ['tokens that do not fit: wait', { tokens: { limit: 1_000, periodMs: 60_000 } }, usage({ tokens: 600, oldestTokenAt: 1_000 }), 500, { grant: false, waitMs: 51_001, reason: 'tokens' }],
    ['an estimate above the whole budget goes alone in an empty period', { tokens: { limit: 1_000, periodMs: 60_000 } }, usage({ tokens: 0 }), 5_000, { grant: true }],
    ['an estimate above the whole budget waits while anything is in the period', { tokens: { limit: 1_000, periodMs: 60_000 } }, usage({ tokens: 1, oldestTokenAt: 9_000 }), 5_000, { grant: false, waitMs: 59_001, reason: 'tokens' }],
    ['concurrency is checked first', { concurrency: 1, requests: { limit: 1, periodMs: 1_000 } }, usage({ active: 1, requests: 1, oldestRequestAt: 9_900, nextExpiryAt: 99_000 }), 1, { grant: false, waitMs: CONCURRENCY_RECHECK_MS, reason: 'concurrency' }],
  ];
  it.each(cases)('%s', (_label, limit, given, estimated, expected) => {
    expect(decidePermit(limit, given, estimated)).toEqual(expected);
  });
});

describe('validatedModelLimits and estimateTokens', () => {
  it('accepts well-formed limits and refuses the rest typed', () => {
    expect(validatedModelLimits({ 'openai:gpt-4o': { concurrency: 2 }, '*': { requests: { limit: 1, periodMs: 10 } } }).size).toBe(2);
    for (const bad of [{ 'has space': {} }, { k: { concurrency: 0 } }, { k: { requests: { limit: 1, periodMs: 0 } } }, { k: { tokens: { limit: -1, periodMs: 10 } } }]) {
      expect(() => validatedModelLimits(bad as unknown as Record<string, ModelLimit>)).toThrow(InvalidArgumentError);
    }
  });

  it('estimates a quarter token per character plus the output allowance', () => {
    expect(estimateTokens(400, undefined)).toBe(100);
    expect(estimateTokens(401, 50)).toBe(151);
  });
});
