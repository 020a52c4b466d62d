import { InvalidArgumentError, StoreError } from '../errors/index.js';
import type { Logger } from '../hooks/types.js';

/**
 * How long a store, usage store or stream manager waits out transient backend errors (a restarting
 * Postgres or Redis, a dropped connection): capped exponential back-off, up to `budgetMs` in all.
 *
 * @example
 * const retry: TransientRetryOptions = { budgetMs: 300_000, initialDelayMs: 100, maxDelayMs: 5_000 };
 */
export interface TransientRetryOptions {
  /** Longest total time spent retrying one operation, in ms; `0` disables retries. Default 180,000 (3 min). */
  budgetMs?: number;
  /** First back-off delay, in ms; doubles per attempt. Default 50. */
  initialDelayMs?: number;
  /** Longest back-off delay, in ms. Default 2,000. */
  maxDelayMs?: number;
}

/**
 * {@link TransientRetryOptions} with every field set.
 *
 * @example
 * const policy: TransientRetryPolicy = resolveTransientRetry({ budgetMs: 10_000 });
 */
export type TransientRetryPolicy = Required<TransientRetryOptions>;

/** The defaults of {@link TransientRetryOptions}. */
export const DEFAULT_TRANSIENT_RETRY: TransientRetryPolicy = { budgetMs: 180_000, initialDelayMs: 50, maxDelayMs: 2_000 };

/**
 * Fill in and check a {@link TransientRetryOptions}.
 *
 * @throws InvalidArgumentError when a field is not a non-negative integer (or a delay is 0).
 * @example
 * const policy = resolveTransientRetry(options.retry);
 */
export function resolveTransientRetry(options: TransientRetryOptions = {}): TransientRetryPolicy {
  const policy = { ...DEFAULT_TRANSIENT_RETRY, ...definedFields(options) };
  for (const [field, value] of Object.entries(policy)) {
    if (!Number.isInteger(value) || value < (field === 'budgetMs' ? 0 : 1)) {
      throw new InvalidArgumentError(`retry.${field} must be a ${field === 'budgetMs' ? 'non-negative' : 'positive'} integer (milliseconds).`, { field });
    }
  }
  return policy;
}

/**
 * One attempt of {@link retryTransient}: its number (1 first) and the condition of the previous failure.
 *
 * @example
 * await retryTransient('load a session', async (attempt) => (attempt.previousCondition ? verify() : run()), settings);
 */
export interface RetryAttempt {
  number: number;
  /** The transient condition the previous attempt failed with (`undefined` on the first attempt). */
  previousCondition: string | undefined;
}

/**
 * What {@link retryTransient} needs besides the operation.
 *
 * @example
 * const settings: RetrySettings = { policy, classify: transientPostgresCondition, logger };
 */
export interface RetrySettings {
  policy: TransientRetryPolicy;
  /** The transient condition of an error (`'57P01'`, `'ECONNREFUSED'`…), or `undefined` when it is not transient. */
  classify(error: unknown): string | undefined;
  logger?: Logger | undefined;
}

/**
 * Run `body`, retrying it while it fails with a transient error and the budget lasts. Non-transient errors
 * are rethrown as they are. When the budget is spent, throws a retryable `StoreError` (`STORE_ERROR`) naming
 * the operation and the condition (never SQL or parameters). `body` must be safe to run again after a
 * failure: idempotent, or checking `attempt.previousCondition` for "already applied".
 *
 * @throws StoreError with `retryable: true` when transient failures outlast `policy.budgetMs`.
 * @example
 * const row = await retryTransient('load a session', () => pool.query(sql, [id]), { policy, classify: transientPostgresCondition });
 */
export async function retryTransient<T>(operation: string, body: (attempt: RetryAttempt) => Promise<T>, settings: RetrySettings): Promise<T> {
  const started = Date.now();
  let delay = settings.policy.initialDelayMs;
  let previousCondition: string | undefined;
  for (let number = 1; ; number += 1) {
    try {
      return await body({ number, previousCondition });
    } catch (error) {
      const condition = settings.classify(error);
      if (condition === undefined) throw error;
      const elapsedMs = Date.now() - started;
      if (elapsedMs + delay > settings.policy.budgetMs) throw exhaustedError(operation, condition, number, elapsedMs, error);
      settings.logger?.warn('transient backend error; retrying', { operation, condition, attempt: number, delayMs: delay });
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(settings.policy.maxDelayMs, delay * 2);
      previousCondition = condition;
    }
  }
}

/**
 * The retryable StoreError thrown when transient failures outlast the budget.
 *
 * @example
 * throw exhaustedError('append stream chunks', 'ECONNREFUSED', 12, 180_000, error);
 */
export function exhaustedError(operation: string, condition: string, attempts: number, elapsedMs: number, cause: unknown): StoreError {
  return new StoreError(
    'STORE_ERROR',
    `Could not ${operation}: the backend kept failing with a transient error (${condition}) for ${elapsedMs} ms; it may succeed once the database is reachable again, so retry later.`,
    { cause, retryable: true, data: { operation, condition, attempts, elapsedMs } },
  );
}

function definedFields(options: TransientRetryOptions): TransientRetryOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
