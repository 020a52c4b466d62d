/** What a usage record measures. */
export type UsageKind = 'llm' | 'tool' | 'client_tool_wait_ms';

/**
 * One metered event: an LLM call's tokens or a tool call's duration. `id` is an idempotency key
 * (`${runId}:${step}:llm`, `${runId}:${step}:tool:${toolCallId}`) so a retried step records once.
 *
 * @example
 * const records: UsageRecord[] = await usageStore.listRecords('s1');
 */
export interface UsageRecord {
  id: string;
  sessionId: string;
  runId: string;
  kind: UsageKind;
  /** Model id for LLM calls, tool name for tools. */
  name: string;
  step: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  durationMs?: number;
  success: boolean;
  createdAt: number;
  /** Root of the record's session tree (sub-agents); `getTreeUsage(root)` sums by it. */
  rootSessionId?: string;
}

/**
 * Totals over a session or a run.
 *
 * @example
 * const { totalTokens }: UsageSummary = await usageStore.getSessionUsage('s1');
 */
export interface UsageSummary {
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  toolCalls: number;
  toolFailures: number;
  toolDurationMs: number;
}

/** An all-zero summary. */
export const EMPTY_USAGE_SUMMARY: Readonly<UsageSummary> = Object.freeze({
  llmCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  toolCalls: 0,
  toolFailures: 0,
  toolDurationMs: 0,
});
