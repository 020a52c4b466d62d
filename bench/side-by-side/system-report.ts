import type { SystemName } from './bench-system.js';
import type { RelationSizes } from './database-probe.js';

/**
 * What one measured session of a system cost.
 *
 * @example
 * const session: SessionFigures = { earlyMs: 8.1, lateMs: 15.9, meanMs: 12.2, diskBytes: 5.3e6, diskBytesByRelation: {}, rowBytesEarly: 4e5, rowBytesLate: 6e6, writeTransactions: 800, toolCalls: 200, wallMs: 2500 };
 */
export interface SessionFigures {
  /** Mean ms per step over steps 1..window (model call to model call, snapshots excluded). */
  earlyMs: number;
  /** Mean ms per step over the last `window` steps. */
  lateMs: number;
  /** Mean ms per step over all steps. */
  meanMs: number;
  /** Growth of sum(pg_total_relation_size) of the user tables over the whole session. */
  diskBytes: number;
  /** Growth of each user table's size (table and indexes) over the whole session; tables that did not grow are left out. */
  diskBytesByRelation: RelationSizes;
  /** Stored row bytes (sum of pg_column_size) added by steps 1..window. */
  rowBytesEarly: number;
  /** Stored row bytes added by the last `window` steps. */
  rowBytesLate: number;
  /** Transaction ids assigned over the session (write transactions). */
  writeTransactions: number;
  /** Tool executions the system ran (must equal `steps`). */
  toolCalls: number;
  /** From the start call until the result. */
  wallMs: number;
}

/**
 * What a system child process measured over all its sessions.
 *
 * @example
 * const report: SystemReport = { system: 'langgraph', steps: 200, window: 20, sessions: [], transactions: 2400, transactionSeconds: 30, idleTransactionsPerSecond: 0 };
 */
export interface SystemReport {
  system: SystemName;
  steps: number;
  window: number;
  sessions: SessionFigures[];
  /**
   * Δ sum(xact_commit + xact_rollback) of the system's database over all measured sessions, read after a
   * settle on both sides, the probe's own queries taken out (idle load still in).
   */
  transactions: number;
  /** Seconds between the two reads of `transactions`. */
  transactionSeconds: number;
  /** The database's transactions per second with the system idle (pollers), read over a window after the sessions. */
  idleTransactionsPerSecond: number;
}
