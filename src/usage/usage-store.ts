import type { StepRecordConnection, StepRecordParticipant } from '../types/step-records.js';
import type { UsageRecord, UsageSummary } from '../types/usage.js';

/**
 * What a `UsageStore` offers the fused journal when it can record inside a step record's transaction
 * (`UsageStore.stepRecords`; `PostgresUsageStore` has it, the in-memory store does not). Proven by
 * `describeStepRecordsContract` (`helix-agents-dbos/testing/contracts`).
 *
 * @example
 * if (usageStore.stepRecords !== undefined && (await record.joins(usageStore.stepRecords))) {
 *   record.defer({ within: (connection) => usageStore.stepRecords!.recordOn(connection, records) });
 * }
 */
export interface UsageStoreStepRecords extends StepRecordParticipant {
  /**
   * `record` on `connection`, inside the caller's transaction on the store's database: idempotent by record id like
   * `record`; nothing is visible before the caller commits, nothing remains after it rolls back.
   */
  recordOn(connection: StepRecordConnection, records: UsageRecord[]): Promise<void>;
}

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
  /**
   * Declared by a store that can record inside a caller's Postgres transaction (`PostgresUsageStore`): the fused
   * journal then records a step's usage in the step's record transaction when the store is on DBOS's system
   * database. A store without it (in-memory) records on its own. One object for the store's lifetime.
   */
  readonly stepRecords?: UsageStoreStepRecords;
}
