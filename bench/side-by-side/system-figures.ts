import type { RelationSizes } from './database-probe.js';
import type { SystemReport } from './system-report.js';

/**
 * A system's figures per agent step: medians over its measured sessions (transactions: over all of them,
 * idle load taken out).
 *
 * @example
 * const figures: SystemFigures = summarizeSystem(report);
 */
export interface SystemFigures {
  earlyMs: number;
  lateMs: number;
  meanMs: number;
  /** Relation-size growth over a session per step, bytes. */
  diskBytesPerStep: number;
  /** The same per user table (table and indexes), bytes per step: medians over the sessions. */
  diskBytesPerStepByRelation: RelationSizes;
  rowBytesPerStepEarly: number;
  rowBytesPerStepLate: number;
  /** rowBytesPerStepLate / rowBytesPerStepEarly: near 1 when storage is O(n) in the session length. */
  growth: number;
  writeTransactionsPerStep: number;
  transactionsPerStep: number;
  idleTransactionsPerSecond: number;
  /** Tool executions over the measured sessions, and how many there should have been. */
  toolCalls: number;
  expectedToolCalls: number;
  wallMsPerSession: number;
}

/** Storage is called O(n) while the late steps store at most this many times what the early ones do. */
export const LINEAR_GROWTH_LIMIT = 1.5;

/**
 * The median (mean of the middle two for an even count).
 *
 * @throws Error for no values.
 * @example
 * median([3, 1, 2]); // 2
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('A median needs at least one value.');
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Per-step figures of one system's report.
 *
 * @example
 * summarizeSystem(report).earlyMs;
 */
export function summarizeSystem(report: SystemReport): SystemFigures {
  const { sessions, steps, window } = report;
  const of = (pick: (session: SystemReport['sessions'][number]) => number): number => median(sessions.map(pick));
  const rowBytesPerStepEarly = of((session) => session.rowBytesEarly) / window;
  const rowBytesPerStepLate = of((session) => session.rowBytesLate) / window;
  const measuredSteps = sessions.length * steps;
  const idleTransactions = report.idleTransactionsPerSecond * report.transactionSeconds;
  return {
    earlyMs: of((session) => session.earlyMs),
    lateMs: of((session) => session.lateMs),
    meanMs: of((session) => session.meanMs),
    diskBytesPerStep: of((session) => session.diskBytes) / steps,
    diskBytesPerStepByRelation: perStepByRelation(sessions, steps),
    rowBytesPerStepEarly,
    rowBytesPerStepLate,
    growth: rowBytesPerStepLate / rowBytesPerStepEarly,
    writeTransactionsPerStep: of((session) => session.writeTransactions) / steps,
    transactionsPerStep: Math.max(0, report.transactions - idleTransactions) / measuredSteps,
    idleTransactionsPerSecond: report.idleTransactionsPerSecond,
    toolCalls: sessions.reduce((total, session) => total + session.toolCalls, 0),
    expectedToolCalls: measuredSteps,
    wallMsPerSession: of((session) => session.wallMs),
  };
}

/** Per table over every session that grew it, the median growth (a session where it did not grow counts 0) per step. */
function perStepByRelation(sessions: SystemReport['sessions'], steps: number): RelationSizes {
  const names = new Set(sessions.flatMap((session) => Object.keys(session.diskBytesByRelation)));
  const result: RelationSizes = {};
  for (const name of [...names].sort()) {
    const pick = (part: 'table' | 'indexes'): number => median(sessions.map((session) => session.diskBytesByRelation[name]?.[part] ?? 0)) / steps;
    result[name] = { table: pick('table'), indexes: pick('indexes') };
  }
  return result;
}

/**
 * "O(n)" or "O(n²)" for a growth ratio.
 *
 * @example
 * growthClass(1.02); // 'O(n)'
 */
export function growthClass(growth: number): string {
  return growth <= LINEAR_GROWTH_LIMIT ? 'O(n)' : 'O(n²)';
}
