import { formatTable } from '../../examples/demo/format-table.js';
import type { SystemName } from './bench-system.js';
import { growthClass, type SystemFigures } from './system-figures.js';

/**
 * The figures of every system, keyed by name, with the session shape they were measured on.
 *
 * @example
 * const comparison: Comparison = { steps: 200, window: 20, sessions: 3, systems };
 */
export interface Comparison {
  steps: number;
  window: number;
  sessions: number;
  systems: Record<SystemName, SystemFigures>;
}

/**
 * Every system's column header, in report order.
 *
 * @example
 * SYSTEM_COLUMNS[0]; // ['helix', 'ours, fused journal']
 */
export const SYSTEM_COLUMNS: ReadonlyArray<[SystemName, string]> = [
  ['helix', 'ours, fused journal'],
  ['helix-public-journal', 'ours, public journal'],
  ['langgraph', 'LangGraph sync'],
  ['naive-dbos', 'naive DBOS loop'],
  ['helix-growing-state', 'ours (fused), state +1 KB/step'],
];

/**
 * `value` with `digits` decimals.
 *
 * @example
 * fixed(2)(1.234); // '1.23'
 */
export const fixed = (digits: number) => (value: number): string => value.toFixed(digits);

/**
 * Bytes as KiB with two decimals.
 *
 * @example
 * kib(1536); // '1.50'
 */
export const kib = (bytes: number): string => (bytes / 1024).toFixed(2);

/**
 * A ratio with two decimals and an "x", `n/a` when it is not finite.
 *
 * @example
 * ratio(0.5); // '0.50x'
 */
export const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a');

/**
 * Labels of the early and late windows, e.g. "steps 1-20" and "steps 181-200".
 *
 * @example
 * windowLabels({ steps: 200, window: 20 }).late; // 'steps 181-200'
 */
export function windowLabels({ steps, window }: Pick<Comparison, 'steps' | 'window'>): { early: string; late: string } {
  return { early: `steps 1-${window}`, late: `steps ${steps - window + 1}-${steps}` };
}

/**
 * One row per measure, one column per system.
 *
 * @example
 * process.stdout.write(`${formatFiguresTable(comparison)}\n`);
 */
export function formatFiguresTable(comparison: Comparison): string {
  const { early, late } = windowLabels(comparison);
  const row = (label: string, cell: (figures: SystemFigures) => string): string[] => [label, ...SYSTEM_COLUMNS.map(([name]) => cell(comparison.systems[name]))];
  return formatTable(
    ['measure (per agent step unless said)', ...SYSTEM_COLUMNS.map(([, header]) => header)],
    [
      row(`ms/step, ${early}`, (figures) => fixed(2)(figures.earlyMs)),
      row(`ms/step, ${late}`, (figures) => fixed(2)(figures.lateMs)),
      row(`ms/step, all ${comparison.steps} steps`, (figures) => fixed(2)(figures.meanMs)),
      row('disk KiB/step (relation sizes, whole session)', (figures) => kib(figures.diskBytesPerStep)),
      row(`row KiB/step, ${early}`, (figures) => kib(figures.rowBytesPerStepEarly)),
      row(`row KiB/step, ${late}`, (figures) => kib(figures.rowBytesPerStepLate)),
      row('storage growth (late/early row bytes)', (figures) => `${ratio(figures.growth)} ${growthClass(figures.growth)}`),
      row('write transactions/step (xid)', (figures) => fixed(2)(figures.writeTransactionsPerStep)),
      row('transactions/step (pg_stat_database)', (figures) => fixed(2)(figures.transactionsPerStep)),
      row('idle transactions/s (taken out)', (figures) => fixed(1)(figures.idleTransactionsPerSecond)),
      row('tool calls run / expected', (figures) => `${figures.toolCalls}/${figures.expectedToolCalls}`),
      row('wall ms per session', (figures) => fixed(0)(figures.wallMsPerSession)),
    ],
  );
}

/**
 * Each journal's figures divided by each peer's, and the public journal's by the fused one's.
 *
 * @example
 * process.stdout.write(`${formatRatiosTable(comparison)}\n`);
 */
export function formatRatiosTable(comparison: Comparison): string {
  const { early, late } = windowLabels(comparison);
  const { helix: fused, 'helix-public-journal': publicJournal, langgraph, 'naive-dbos': naive } = comparison.systems;
  const pairs: ReadonlyArray<[SystemFigures, SystemFigures]> = [
    [fused, langgraph],
    [fused, naive],
    [publicJournal, langgraph],
    [publicJournal, naive],
    [publicJournal, fused],
  ];
  const row = (label: string, pick: (figures: SystemFigures) => number): string[] => [label, ...pairs.map(([ours, peer]) => ratio(pick(ours) / pick(peer)))];
  return formatTable(
    ['ratio', 'fused / LangGraph sync', 'fused / naive DBOS loop', 'public / LangGraph sync', 'public / naive DBOS loop', 'public / fused'],
    [
      row(`ms/step, ${early}`, (figures) => figures.earlyMs),
      row(`ms/step, ${late}`, (figures) => figures.lateMs),
      row(`ms/step, all ${comparison.steps} steps`, (figures) => figures.meanMs),
      row('disk bytes/step', (figures) => figures.diskBytesPerStep),
      row(`row bytes/step, ${late}`, (figures) => figures.rowBytesPerStepLate),
      row('write transactions/step', (figures) => figures.writeTransactionsPerStep),
      row('transactions/step', (figures) => figures.transactionsPerStep),
    ],
  );
}

/**
 * Where each system's disk bytes per step go: one row per user table that grew (DBOS's tables, such as
 * `dbos.operation_outputs` with a row per step, included), each cell "table + indexes" KiB per step (table:
 * heap, TOAST, maps), medians over the sessions; the last row sums them.
 *
 * @example
 * process.stdout.write(`${formatRelationsTable(comparison)}\n`);
 */
export function formatRelationsTable(comparison: Comparison): string {
  const names = [...new Set(SYSTEM_COLUMNS.flatMap(([system]) => Object.keys(comparison.systems[system].diskBytesPerStepByRelation)))].sort();
  const cell = (system: SystemName, name: string): string => {
    const sizes = comparison.systems[system].diskBytesPerStepByRelation[name];
    return sizes === undefined ? '-' : `${kib(sizes.table)} + ${kib(sizes.indexes)}`;
  };
  const total = (system: SystemName): string => {
    const sizes = Object.values(comparison.systems[system].diskBytesPerStepByRelation);
    return kib(sizes.reduce((sum, { table, indexes }) => sum + table + indexes, 0));
  };
  return formatTable(
    ['disk KiB/step by relation (table + indexes)', ...SYSTEM_COLUMNS.map(([, header]) => header)],
    [
      ...names.map((name) => [name, ...SYSTEM_COLUMNS.map(([system]) => cell(system, name))]),
      ['all relations (sum of the rows)', ...SYSTEM_COLUMNS.map(([system]) => total(system))],
    ],
  );
}
