import type { UsageRecord, UsageSummary } from '../types/usage.js';

/**
 * Durable meter for LLM tokens and tool durations, summed per session and per run. `record` is idempotent
 * by record id, so a retried or recovered step never double-counts.
 *
 * Implementations: `PostgresUsageStore`, `InMemoryUsageStore`.
 *
 * @example
 * const usage = await usageStore.getSessionUsage('s1');
 * console.log(usage.totalTokens, usage.toolDurationMs);
 */
export interface UsageStore {
  record(records: UsageRecord[]): Promise<void>;
  getSessionUsage(sessionId: string): Promise<UsageSummary>;
  getRunUsage(sessionId: string, runId: string): Promise<UsageSummary>;
  /**
   * The usage of a whole session tree: the root session and every sub-agent session below it (records carry their
   * tree's `rootSessionId`; a record without one counts for its own session only).
   */
  getTreeUsage(rootSessionId: string): Promise<UsageSummary>;
  listRecords(sessionId: string, options?: { runId?: string }): Promise<UsageRecord[]>;
  close(): Promise<void>;
}
