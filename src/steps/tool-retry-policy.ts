/**
 * How a failing server tool is retried inside its durable step. Defaults match runtime-temporal:
 * 3 attempts, 1 s initial interval, ×2 backoff, at most 60 s between attempts.
 *
 * @example
 * new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, toolRetryPolicy: { maxAttempts: 5, initialIntervalSeconds: 0.5 } });
 */
export interface ToolRetryPolicy {
  /** Default true. */
  retriesAllowed?: boolean;
  /** Total attempts, including the first. Default 3. */
  maxAttempts?: number;
  /** Default 1.0. */
  initialIntervalSeconds?: number;
  /** Default 2.0. */
  backoffCoefficient?: number;
  /** Default 60.0. */
  maximumIntervalSeconds?: number;
}

/**
 * The default tool retry policy.
 *
 * @example
 * new DBOSAgentExecutor({ …, toolRetryPolicy: { ...DEFAULT_TOOL_RETRY_POLICY, maxAttempts: 5 } });
 */
export const DEFAULT_TOOL_RETRY_POLICY: Readonly<Required<ToolRetryPolicy>> = Object.freeze({
  retriesAllowed: true,
  maxAttempts: 3,
  initialIntervalSeconds: 1.0,
  backoffCoefficient: 2.0,
  maximumIntervalSeconds: 60.0,
});

/** Fill a partial policy with defaults. */
export function resolveToolRetryPolicy(policy?: ToolRetryPolicy): Required<ToolRetryPolicy> {
  return { ...DEFAULT_TOOL_RETRY_POLICY, ...stripUndefined(policy ?? {}) };
}

/**
 * Delay in ms before retry `attempt` (1 = the first retry): initial × coefficient^(attempt-1), capped.
 *
 * @example
 * retryDelayMs(resolveToolRetryPolicy(), 2) // 2000
 */
export function retryDelayMs(policy: Required<ToolRetryPolicy>, attempt: number): number {
  const seconds = policy.initialIntervalSeconds * policy.backoffCoefficient ** Math.max(0, attempt - 1);
  return Math.round(Math.min(seconds, policy.maximumIntervalSeconds) * 1000);
}

/** Total attempts the policy allows (1 when retries are off). */
export function attemptsAllowed(policy: Required<ToolRetryPolicy>): number {
  return policy.retriesAllowed ? Math.max(1, Math.floor(policy.maxAttempts)) : 1;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
