import { formatTable } from '../examples/demo/format-table.js';
import type { FootprintReport } from './footprint-report.js';
import type { LatencySummary } from './latency-summary.js';
import type { ResumeLatencies } from './resume-latency.js';
import type { WakeLatencies } from './wake-latency.js';

const MB = 1024 * 1024;
const fixed = (value: number, digits = 2): string => value.toFixed(digits);
const ratio = (numerator: number, denominator: number): string => (denominator > 0 ? `${(numerator / denominator).toFixed(2)}x` : 'n/a');

/**
 * The latency table: warm wake against bare DBOS send→recv, parked resume against a fresh one-step run.
 *
 * @example
 * process.stdout.write(`${formatLatencyTable(wake, resume)}\n`);
 */
export function formatLatencyTable(wake: WakeLatencies, resume: ResumeLatencies): string {
  const row = (label: string, summary: LatencySummary): string[] => [`${label}, ms`, fixed(summary.p50), fixed(summary.p95)];
  const ratios = (label: string, numerator: LatencySummary, denominator: LatencySummary): string[] => [
    label,
    ratio(numerator.p50, denominator.p50),
    ratio(numerator.p95, denominator.p95),
  ];
  return formatTable(
    ['measure', 'p50', 'p95'],
    [
      row('warm wake: submitToolResult() called -> the waiting run\'s DBOS.recv returned', wake.submitToWake),
      row('bare DBOS wake: DBOS.send() called -> a trivial workflow\'s DBOS.recv returned', wake.sendToWake),
      ratios('ratio warm wake / bare DBOS wake', wake.submitToWake, wake.sendToWake),
      row('warm continuation: submitToolResult() called -> the same run completed', wake.submitToCompleted),
      row('parked resume: resume() called -> the new run completed', resume.resumeToCompleted),
      row('fresh 1-step run: execute() called -> completed', resume.freshToCompleted),
      ratios('ratio parked resume / fresh 1-step run', resume.resumeToCompleted, resume.freshToCompleted),
    ],
  );
}

/**
 * The footprint table: the 0-session baseline, sessions waiting warm and sessions parked, side by side.
 *
 * @example
 * process.stdout.write(`${formatFootprintTable({ none, warm, parked })}\n`);
 */
export function formatFootprintTable(reports: { none: FootprintReport; warm: FootprintReport; parked: FootprintReport }): string {
  const { none, warm, parked } = reports;
  const seconds = fixed(warm.quietWindowMs / 1000, 0);
  const rssPerSession = (report: FootprintReport): number => (report.rssBytes - none.rssBytes) / 1024 / Math.max(1, report.sessions);
  const heapPerSession = (report: FootprintReport): number => (report.heapUsedBytes - none.heapUsedBytes) / 1024 / Math.max(1, report.sessions);
  const abovePerThousand = (report: FootprintReport): number => ((report.transactionsPerSecond - none.transactionsPerSecond) * 1000) / Math.max(1, report.sessions);
  return formatTable(
    ['measure', '0 sessions', `${warm.sessions} warm`, `${parked.sessions} parked`, 'warm / parked'],
    [
      ['RSS after GC, MB', fixed(none.rssBytes / MB, 1), fixed(warm.rssBytes / MB, 1), fixed(parked.rssBytes / MB, 1), ratio(warm.rssBytes, parked.rssBytes)],
      ['RSS above the 0-session process, KB per session', '-', fixed(rssPerSession(warm), 1), fixed(rssPerSession(parked), 1), ratio(rssPerSession(warm), rssPerSession(parked))],
      ['V8 heap used after GC, MB', fixed(none.heapUsedBytes / MB, 1), fixed(warm.heapUsedBytes / MB, 1), fixed(parked.heapUsedBytes / MB, 1), ratio(warm.heapUsedBytes, parked.heapUsedBytes)],
      ['V8 heap above the 0-session process, KB per session', '-', fixed(heapPerSession(warm), 1), fixed(heapPerSession(parked), 1), ratio(heapPerSession(warm), heapPerSession(parked))],
      [
        `idle Postgres transactions/s (${seconds} s quiet window)`,
        fixed(none.transactionsPerSecond),
        fixed(warm.transactionsPerSecond),
        fixed(parked.transactionsPerSecond),
        ratio(warm.transactionsPerSecond, parked.transactionsPerSecond),
      ],
      [
        'idle transactions/s above the 0-session process, per 1,000 sessions',
        '-',
        fixed(abovePerThousand(warm)),
        fixed(abovePerThousand(parked)),
        ratio(abovePerThousand(warm), abovePerThousand(parked)),
      ],
      [
        'idle transactions/s / the 0-session baseline',
        '1.00x',
        ratio(warm.transactionsPerSecond, none.transactionsPerSecond),
        ratio(parked.transactionsPerSecond, none.transactionsPerSecond),
        '',
      ],
      ['idle process CPU, ms per s', fixed(none.cpuMsPerSecond), fixed(warm.cpuMsPerSecond), fixed(parked.cpuMsPerSecond), ratio(warm.cpuMsPerSecond, parked.cpuMsPerSecond)],
      ['DBOS workflows still pending after the window', String(none.pendingWorkflows), String(warm.pendingWorkflows), String(parked.pendingWorkflows), ''],
      ['time to start them until all wait / all parked, s', '-', fixed(warm.startMs / 1000, 1), fixed(parked.startMs / 1000, 1), ''],
    ],
  );
}
