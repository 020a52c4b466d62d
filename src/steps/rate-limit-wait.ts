import { LLMCallError } from '../errors/index.js';
import type { RunScope } from '../orchestration/workflow-input.js';
import type { StepEnvironment } from './step-scope.js';
import { pauseUnlessInterrupted } from './interruptible-pause.js';
import { chunkKey } from './stream-writers.js';

/** How long one LLM step waits out a provider's rate limits in all, before the 429 fails the step like any error. */
export const RATE_LIMIT_WAIT_BUDGET_MS = 10 * 60_000;
/** The first wait of a 429 without `retry-after` (doubled each time, up to {@link MAX_UNSPECIFIED_WAIT_MS}). */
const FIRST_UNSPECIFIED_WAIT_MS = 1_000;
const MAX_UNSPECIFIED_WAIT_MS = 30_000;

/**
 * The rate-limit waits of one LLM step so far (they do not count as failed attempts).
 *
 * @example
 * const waits: RateLimitWaits = { count: 0, waitedMs: 0 };
 */
export interface RateLimitWaits {
  count: number;
  waitedMs: number;
}

/**
 * Wait out a provider's "too many requests" inside the step: how long the provider asked (`retry-after`), else a
 * doubling backoff, within {@link RATE_LIMIT_WAIT_BUDGET_MS} per step. The wait is announced on the stream as a
 * `custom` chunk `rate_limited` ({ waitMs, waits }; keyed, so a replayed step does not add a second) and ends early
 * on an interrupt. Returns `'not_rate_limited'` for any other error (or a spent budget), `'interrupted'` when an
 * interrupt cut the wait short, else `'waited'` (call the model again).
 *
 * @example
 * const outcome = await waitOutRateLimit(environment, input, error, waits);
 */
export async function waitOutRateLimit(
  environment: StepEnvironment,
  scope: RunScope & { step: number },
  error: unknown,
  waits: RateLimitWaits,
): Promise<'not_rate_limited' | 'waited' | 'interrupted'> {
  if (!LLMCallError.isInstance(error) || !error.rateLimited) return 'not_rate_limited';
  const waitMs = error.retryAfterMs ?? Math.min(FIRST_UNSPECIFIED_WAIT_MS * 2 ** waits.count, MAX_UNSPECIFIED_WAIT_MS);
  if (waits.waitedMs + waitMs > RATE_LIMIT_WAIT_BUDGET_MS) return 'not_rate_limited';
  waits.count += 1;
  waits.waitedMs += waitMs;
  const { emitter, dependencies } = environment;
  await emitter.emit({ type: 'custom', eventName: 'rate_limited', data: { waitMs, waits: waits.count } }, { key: chunkKey(scope, 'rate_limited', String(waits.count)) });
  await emitter.flush();
  dependencies.logger.warn('llm.rate_limited', { sessionId: scope.sessionId, step: scope.step, waitMs, waits: waits.count });
  return (await pauseUnlessInterrupted(dependencies.stateStore, scope.sessionId, waitMs)) ? 'interrupted' : 'waited';
}
