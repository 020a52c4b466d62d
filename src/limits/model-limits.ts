import { InvalidArgumentError } from '../errors/index.js';

/**
 * A sliding-period budget: at most `limit` in any `periodMs`.
 *
 * @example
 * const perMinute: PeriodBudget = { limit: 500, periodMs: 60_000 };
 */
export interface PeriodBudget {
  limit: number;
  periodMs: number;
}

/**
 * What the whole fleet may send one model: concurrent calls, requests and tokens per sliding period.
 *
 * @example
 * const limit: ModelLimit = { concurrency: 8, requests: { limit: 500, periodMs: 60_000 }, tokens: { limit: 200_000, periodMs: 60_000 } };
 */
export interface ModelLimit {
  concurrency?: number;
  requests?: PeriodBudget;
  /** Input and output tokens; a call reserves its estimate (prompt characters / 4 + `maxOutputTokens`) and is settled to its usage. */
  tokens?: PeriodBudget;
}

/**
 * A permit to call a model, or how long to wait before asking again.
 *
 * @example
 * const answer: PermitAnswer = { granted: false, waitMs: 120, reason: 'concurrency' };
 */
export type PermitAnswer = { granted: true; permit: ModelPermit } | { granted: false; waitMs: number; reason: 'concurrency' | 'requests' | 'tokens' };

/**
 * A granted call, to release with the call's real token count.
 *
 * @example
 * const permit: ModelPermit = { modelKey: 'openai:gpt-4o', holder: 'wf:3:9f2c' };
 */
export interface ModelPermit {
  modelKey: string;
  holder: string;
}

/**
 * Shared model limits (see `PostgresModelLimiter`): `tryAcquire` grants a call or says how long to wait; `release`
 * ends it. A permit a crashed process never released lapses after the limiter's lease.
 *
 * @example
 * const answer = await limiter.tryAcquire({ modelKey: 'openai:gpt-4o', holder, estimatedTokens: 900 });
 */
export interface ModelLimiter {
  /** The limit of a model key (undefined: the key is not limited). */
  limitOf(modelKey: string): ModelLimit | undefined;
  tryAcquire(request: { modelKey: string; holder: string; estimatedTokens: number }): Promise<PermitAnswer>;
  release(permit: ModelPermit, usedTokens: number | undefined): Promise<void>;
  /** Release every permit held by a process of `executorId` (a dead fleet member's); returns how many. */
  releaseExecutor(executorId: string): Promise<number>;
}

/**
 * The holder of a permit: the process's executor id first (so a dead member's permits can be released), then the
 * call's identity.
 *
 * @example
 * permitHolder('worker-1', 'agent__s1__run-1', 3, randomUUID()); // 'worker-1|agent__s1__run-1|3|…'
 */
export function permitHolder(executorId: string, workflowId: string, step: number, unique: string): string {
  return `${executorId}|${workflowId}|${step}|${unique}`;
}

/**
 * Validate model limits (keys and numbers) when the limiter is built.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` naming the first bad field.
 * @example
 * const limits = validatedModelLimits({ 'openai:gpt-4o': { concurrency: 4 } });
 */
export function validatedModelLimits(limits: Record<string, ModelLimit>): ReadonlyMap<string, ModelLimit> {
  const validated = new Map<string, ModelLimit>();
  for (const [modelKey, limit] of Object.entries(limits ?? {})) {
    if (!/^[\w.:/@*-]{1,128}$/.test(modelKey)) throw new InvalidArgumentError('A model limit key must be 1-128 characters of [A-Za-z0-9_.:/@*-].', { field: 'limits' });
    const positive = (value: unknown) => Number.isInteger(value) && (value as number) > 0;
    if (limit.concurrency !== undefined && !positive(limit.concurrency)) throw new InvalidArgumentError('concurrency must be a positive integer.', { field: 'concurrency' });
    for (const field of ['requests', 'tokens'] as const) {
      const budget = limit[field];
      if (budget !== undefined && (!positive(budget.limit) || !positive(budget.periodMs))) {
        throw new InvalidArgumentError(`${field} must be { limit, periodMs } with positive integers.`, { field });
      }
    }
    validated.set(modelKey, Object.freeze({ ...limit }));
  }
  return validated;
}

/**
 * A rough token count of a prompt: its characters / 4, plus the output the call may produce.
 *
 * @example
 * estimateTokens(JSON.stringify(messages).length, 512);
 */
export function estimateTokens(promptCharacters: number, maxOutputTokens: number | undefined): number {
  return Math.ceil(promptCharacters / 4) + (maxOutputTokens ?? 0);
}

/**
 * What the limiter's table says of a model key right now (database clock, ms).
 *
 * @example
 * const usage: LimitUsage = { now: 1_000, active: 2, requests: 10, tokens: 4_000, oldestRequestAt: 100, oldestTokenAt: 100, nextExpiryAt: 5_000 };
 */
export interface LimitUsage {
  now: number;
  /** Permits neither released nor lapsed. */
  active: number;
  /** Permits granted within the requests period. */
  requests: number;
  /** Tokens of the permits granted within the tokens period. */
  tokens: number;
  oldestRequestAt: number | null;
  oldestTokenAt: number | null;
  /** When the first active permit lapses. */
  nextExpiryAt: number | null;
}

/** How often a call waiting for a concurrency slot asks again (a release frees one at any moment). */
export const CONCURRENCY_RECHECK_MS = 50;

/**
 * Grant or wait (pure): a call fits when a concurrency slot is free, the requests period holds one more, and the tokens
 * period holds its estimate (an estimate above the whole budget waits for an empty period, then goes alone).
 *
 * @example
 * decidePermit({ concurrency: 2 }, usage, 900); // { grant: true } or { grant: false, waitMs, reason }
 */
export function decidePermit(limit: ModelLimit, usage: LimitUsage, estimatedTokens: number): { grant: true } | { grant: false; waitMs: number; reason: 'concurrency' | 'requests' | 'tokens' } {
  if (limit.concurrency !== undefined && usage.active >= limit.concurrency) {
    const untilExpiry = usage.nextExpiryAt === null ? CONCURRENCY_RECHECK_MS : usage.nextExpiryAt - usage.now;
    return { grant: false, waitMs: Math.max(1, Math.min(CONCURRENCY_RECHECK_MS, untilExpiry)), reason: 'concurrency' };
  }
  if (limit.requests !== undefined && usage.requests >= limit.requests.limit) {
    return { grant: false, waitMs: untilOldestLeaves(usage.oldestRequestAt, limit.requests.periodMs, usage.now), reason: 'requests' };
  }
  if (limit.tokens !== undefined && usage.tokens > 0 && usage.tokens + Math.min(estimatedTokens, limit.tokens.limit) > limit.tokens.limit) {
    return { grant: false, waitMs: untilOldestLeaves(usage.oldestTokenAt, limit.tokens.periodMs, usage.now), reason: 'tokens' };
  }
  return { grant: true };
}

function untilOldestLeaves(oldestAt: number | null, periodMs: number, now: number): number {
  return oldestAt === null ? CONCURRENCY_RECHECK_MS : Math.max(1, oldestAt + periodMs - now + 1);
}
