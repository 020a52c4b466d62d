import type { UsageRecord, UsageSummary } from '../../types/usage.js';
import { summarizeUsage } from '../summarize.js';
import type { UsageStore } from '../usage-store.js';

/**
 * Process-local UsageStore for tests and single-process demos.
 *
 * @example
 * const usageStore = new InMemoryUsageStore();
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, usageStore });
 */
export class InMemoryUsageStore implements UsageStore {
  private readonly records = new Map<string, UsageRecord>();

  /** Idempotent per session and record id (ids are unique within a session, as in `PostgresUsageStore`). */
  async record(records: UsageRecord[]): Promise<void> {
    for (const record of records) {
      const key = JSON.stringify([record.sessionId, record.id]);
      if (!this.records.has(key)) this.records.set(key, { ...record });
    }
  }

  async getSessionUsage(sessionId: string): Promise<UsageSummary> {
    return summarizeUsage(this.select(sessionId));
  }

  async getRunUsage(sessionId: string, runId: string): Promise<UsageSummary> {
    return summarizeUsage(this.select(sessionId, runId));
  }

  async getTreeUsage(rootSessionId: string): Promise<UsageSummary> {
    return summarizeUsage(
      [...this.records.values()].filter(
        (record) => record.rootSessionId === rootSessionId || (record.rootSessionId === undefined && record.sessionId === rootSessionId),
      ),
    );
  }

  async listRecords(sessionId: string, options?: { runId?: string }): Promise<UsageRecord[]> {
    return this.select(sessionId, options?.runId).map((record) => ({ ...record }));
  }

  async close(): Promise<void> {}

  private select(sessionId: string, runId?: string): UsageRecord[] {
    return [...this.records.values()].filter((record) => record.sessionId === sessionId && (runId === undefined || record.runId === runId));
  }
}
