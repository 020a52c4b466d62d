/**
 * What a footprint child process holds: no sessions (the baseline), sessions waiting warm in `DBOS.recv`,
 * or sessions parked durably; `persistent-*`: idle persistent sessions waiting warm or parked (persistent-child.ts).
 *
 * @example
 * const scenario: FootprintScenario = 'parked';
 */
export type FootprintScenario = 'none' | 'warm' | 'parked' | 'persistent-warm' | 'persistent-parked';

/**
 * Every scenario, for validating a child's argument.
 *
 * @example
 * FOOTPRINT_SCENARIOS.includes('warm'); // true
 */
export const FOOTPRINT_SCENARIOS: readonly FootprintScenario[] = ['none', 'warm', 'parked'];

/**
 * What a footprint child measured, sent to the parent as one JSON line.
 *
 * @example
 * const report: FootprintReport = { scenario: 'warm', sessions: 2000, startMs: 21000, rssBytes: 3e8, heapUsedBytes: 1e8, transactionsPerSecond: 210, cpuMsPerSecond: 30, pendingWorkflows: 2000, quietWindowMs: 20000 };
 */
export interface FootprintReport {
  scenario: FootprintScenario;
  sessions: number;
  /** From the first start until every session waited (warm) or had parked, ms. */
  startMs: number;
  /** `process.memoryUsage().rss` after a forced GC at the end of the quiet window. */
  rssBytes: number;
  heapUsedBytes: number;
  /** Δ sum(xact_commit + xact_rollback) of the child's database in pg_stat_database over the quiet window, per second. */
  transactionsPerSecond: number;
  /** Process CPU time (user + system) during the quiet window, ms per second. */
  cpuMsPerSecond: number;
  /** DBOS workflows still PENDING at the end of the window (warm: all sessions; parked: 0). */
  pendingWorkflows: number;
  quietWindowMs: number;
}

const LINE_PREFIX = 'FOOTPRINT_REPORT ';

/**
 * The stdout line that carries a report.
 *
 * @example
 * process.stdout.write(formatFootprintLine(report));
 */
export function formatFootprintLine(report: FootprintReport): string {
  return `${LINE_PREFIX}${JSON.stringify(report)}\n`;
}

/**
 * The report in a child's stdout, `undefined` when there is none.
 *
 * @example
 * const report = parseFootprintLine(stdout);
 */
export function parseFootprintLine(output: string): FootprintReport | undefined {
  const line = output.split('\n').find((candidate) => candidate.startsWith(LINE_PREFIX));
  return line === undefined ? undefined : (JSON.parse(line.slice(LINE_PREFIX.length)) as FootprintReport);
}
