import type { BenchDatabase } from '../bench-database.js';
import { SYSTEM_NAMES, type SystemName } from './bench-system.js';
import { measureSystem } from './run-system.js';
import { sideBySideScale } from './side-by-side-scale.js';
import { formatFiguresTable, formatRatiosTable, formatTargetsTable, type Comparison } from './side-by-side-tables.js';
import { summarizeSystem, type SystemFigures } from './system-figures.js';

/**
 * Issue 11's side-by-side comparison: ours, LangGraph.js + PostgresSaver (durability "sync") and a naive
 * DBOS loop, plus ours with a custom state that gains 1 KB per step, each in its own child process and
 * database on the benchmark's server, one after the other. Prints the figures, our ratios to each peer and
 * the issue's targets with PASS/MISS; resolves with the comparison.
 *
 * @throws Error when a system fails or ran other than one tool call per step.
 * @example
 * const comparison = await measureSideBySide(database);
 */
export async function measureSideBySide(database: BenchDatabase): Promise<Comparison> {
  const { steps, sessions, window, settleMs, idleWindowMs } = sideBySideScale();
  process.stdout.write(
    `Side by side (issue 11): ${sessions} measured sessions of ${steps} tool steps per system after a warm-up session, each system in its own child process and database; ${settleMs / 1000} s settle before each pg_stat_database read, ${idleWindowMs / 1000} s idle window…\n`,
  );
  const systems: Partial<Record<SystemName, SystemFigures>> = {};
  for (const system of SYSTEM_NAMES) {
    const startedAt = performance.now();
    systems[system] = summarizeSystem(await measureSystem(database, system));
    process.stdout.write(`  ${system}: ${((performance.now() - startedAt) / 1000).toFixed(0)} s\n`);
  }
  const comparison: Comparison = { steps, window, sessions, systems: systems as Record<SystemName, SystemFigures> };
  process.stdout.write(`\n${formatFiguresTable(comparison)}\n\n${formatRatiosTable(comparison)}\n\n${formatTargetsTable(comparison)}\n`);
  process.stdout.write(
    [
      '',
      'Every system: one no-op tool call per step from a scripted model costing ~0 ms, then a text answer; every session is checked to have run exactly one tool call per step.',
      'ms/step: start of model call n to start of call n + 1 (size snapshots excluded), median of the sessions.',
      'disk: growth of sum(pg_total_relation_size) of the user tables (heap, indexes, TOAST; 8 KiB pages) over a session. Row bytes: sum(pg_column_size(row)) over every user table, snapshotted at the window edges.',
      "Write transactions: transaction ids assigned during a session (pg_snapshot_xmax(pg_current_snapshot()) before and after; only writing transactions get one, server-wide, nothing else writes meanwhile). Transactions: Δ sum(xact_commit + xact_rollback) of the system's database over all its sessions, read after a settle, minus the probe's own queries and the idle rate × elapsed time.",
      '',
    ].join('\n'),
  );
  return comparison;
}
