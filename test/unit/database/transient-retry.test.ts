import { describe, expect, it } from 'vitest';
import { transientPostgresCondition } from '../../../src/database/transient-postgres-error.js';
import { resolveTransientRetry, retryTransient, type RetryAttempt } from '../../../src/database/transient-retry.js';
import { InvalidArgumentError, StoreError } from '../../../src/errors/index.js';

const fast = { budgetMs: 2_000, initialDelayMs: 1, maxDelayMs: 4 };
const settings = { policy: fast, classify: transientPostgresCondition };
const terminated = (): Error => Object.assign(new Error('terminating connection due to administrator command: secret'), { code: '57P01' });

describe('retryTransient', () => {
  it('retries transient failures and tells each attempt the previous condition', async () => {
    const attempts: RetryAttempt[] = [];
    const result = await retryTransient(
      'load a session',
      async (attempt) => {
        attempts.push(attempt);
        if (attempt.number < 3) throw attempt.number === 1 ? terminated() : Object.assign(new Error('x'), { code: 'ECONNREFUSED' });
        return 'loaded';
      },
      settings,
    );
    expect(result).toBe('loaded');
    expect(attempts).toEqual([
      { number: 1, previousCondition: undefined },
      { number: 2, previousCondition: '57P01' },
      { number: 3, previousCondition: 'ECONNREFUSED' },
    ]);
  });

  it('rethrows a non-transient error at once, as it is', async () => {
    let calls = 0;
    const failure = new Error('duplicate key');
    Object.assign(failure, { code: '23505' });
    await expect(retryTransient('insert', async () => ((calls += 1), Promise.reject(failure)), settings)).rejects.toBe(failure);
    expect(calls).toBe(1);
  });

  it('throws a retryable StoreError naming operation and condition (not the driver message) once the budget is spent', async () => {
    const started = Date.now();
    const error = await retryTransient('commit a step', async () => Promise.reject(terminated()), { ...settings, policy: { budgetMs: 50, initialDelayMs: 5, maxDelayMs: 10 } }).catch(
      (caught: unknown) => caught,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(StoreError.isRetryable(error)).toBe(true);
    expect((error as StoreError).data).toMatchObject({ operation: 'commit a step', condition: '57P01', retryable: true });
    expect((error as StoreError).message).not.toContain('secret');
  });

  it('with budgetMs 0 does not retry at all', async () => {
    let calls = 0;
    const error = await retryTransient('read', async () => ((calls += 1), Promise.reject(terminated())), { ...settings, policy: { ...fast, budgetMs: 0 } }).catch(
      (caught: unknown) => caught,
    );
    expect(calls).toBe(1);
    expect(StoreError.isRetryable(error)).toBe(true);
  });
});

describe('resolveTransientRetry', () => {
  it('fills in the defaults (3 minutes, 50 ms → 2 s) and validates each field', () => {
    expect(resolveTransientRetry()).toEqual({ budgetMs: 180_000, initialDelayMs: 50, maxDelayMs: 2_000 });
    expect(resolveTransientRetry({ budgetMs: 0 })).toMatchObject({ budgetMs: 0 });
    for (const bad of [{ budgetMs: -1 }, { initialDelayMs: 0 }, { maxDelayMs: 1.5 }]) {
      expect(() => resolveTransientRetry(bad)).toThrow(InvalidArgumentError);
    }
  });
});

describe('StoreError.isRetryable', () => {
  it('reads the flag from a revived plain error too (DBOS replays errors as plain Errors)', () => {
    const revived = Object.assign(new Error('x'), { code: 'STORE_ERROR', data: { retryable: true } });
    expect(StoreError.isRetryable(revived)).toBe(true);
    expect(StoreError.isRetryable(new StoreError('STORE_ERROR', 'x'))).toBe(false);
  });
});
