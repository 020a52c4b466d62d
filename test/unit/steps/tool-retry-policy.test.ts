import { describe, expect, it } from 'vitest';
import {
  attemptsAllowed,
  DEFAULT_TOOL_RETRY_POLICY,
  resolveToolRetryPolicy,
  retryDelayMs,
  type ToolRetryPolicy,
} from '../../../src/steps/tool-retry-policy.js';

describe('resolveToolRetryPolicy', () => {
  it('defaults match runtime-temporal: 3 attempts, 1 s, ×2, at most 60 s', () => {
    expect(resolveToolRetryPolicy()).toEqual({
      retriesAllowed: true,
      maxAttempts: 3,
      initialIntervalSeconds: 1,
      backoffCoefficient: 2,
      maximumIntervalSeconds: 60,
    });
    expect(resolveToolRetryPolicy({})).toEqual(DEFAULT_TOOL_RETRY_POLICY);
  });

  it('overrides only the given fields; explicit undefined keeps the default', () => {
    expect(resolveToolRetryPolicy({ maxAttempts: 5, backoffCoefficient: undefined })).toEqual({ ...DEFAULT_TOOL_RETRY_POLICY, maxAttempts: 5 });
    expect(resolveToolRetryPolicy({ retriesAllowed: false, initialIntervalSeconds: 0.5 })).toMatchObject({
      retriesAllowed: false,
      initialIntervalSeconds: 0.5,
      maxAttempts: 3,
    });
  });

  it('returns a fresh object and leaves the frozen default untouched', () => {
    const resolved = resolveToolRetryPolicy();
    resolved.maxAttempts = 9;
    expect(DEFAULT_TOOL_RETRY_POLICY.maxAttempts).toBe(3);
    expect(Object.isFrozen(DEFAULT_TOOL_RETRY_POLICY)).toBe(true);
  });
});

describe('retryDelayMs', () => {
  const defaults = resolveToolRetryPolicy();
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [6, 32_000],
    [7, 60_000], // 64 s capped at 60 s
    [20, 60_000],
  ])('default policy, retry %i waits %i ms', (attempt, expected) => {
    expect(retryDelayMs(defaults, attempt)).toBe(expected);
  });

  it('treats attempt 0 (or below) like the first retry', () => {
    expect(retryDelayMs(defaults, 0)).toBe(1_000);
    expect(retryDelayMs(defaults, -3)).toBe(1_000);
  });

  it.each<[ToolRetryPolicy, number, number]>([
    [{ initialIntervalSeconds: 0.01, backoffCoefficient: 3 }, 3, 90],
    [{ initialIntervalSeconds: 0.25, backoffCoefficient: 1 }, 5, 250],
    [{ initialIntervalSeconds: 0.02, maximumIntervalSeconds: 0.03 }, 2, 30],
    [{ initialIntervalSeconds: 0.0015 }, 1, 2], // rounded to whole milliseconds
    [{ initialIntervalSeconds: 0 }, 4, 0],
  ])('custom policy %o, retry %i waits %i ms', (policy, attempt, expected) => {
    expect(retryDelayMs(resolveToolRetryPolicy(policy), attempt)).toBe(expected);
  });
});

describe('attemptsAllowed', () => {
  it.each<[ToolRetryPolicy, number]>([
    [{}, 3],
    [{ maxAttempts: 1 }, 1],
    [{ maxAttempts: 7 }, 7],
    [{ maxAttempts: 2.9 }, 2],
    [{ maxAttempts: 0 }, 1],
    [{ maxAttempts: -4 }, 1],
    [{ retriesAllowed: false }, 1],
    [{ retriesAllowed: false, maxAttempts: 10 }, 1],
  ])('%o allows %i attempt(s)', (policy, expected) => {
    expect(attemptsAllowed(resolveToolRetryPolicy(policy))).toBe(expected);
  });
});
