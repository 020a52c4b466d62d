import { formatTable } from '../../examples/demo/format-table.js';
import type { SystemName } from './bench-system.js';
import { growthClass, LINEAR_GROWTH_LIMIT, type SystemFigures } from './system-figures.js';

/**
 * The figures of every system, keyed by name, with the session shape they were measured on.
 *
 * @example
 * const comparison: Comparison = { steps: 200, window: 20, sessions: 3, systems: { helix, langgraph, 'naive-dbos': naive, 'helix-growing-state': growing } };
 */
export interface Comparison {
  steps: number;
  window: number;
  sessions: number;
  systems: Record<SystemName, SystemFigures>;
}

const COLUMNS: ReadonlyArray<[SystemName, string]> = [
  ['helix', 'ours'],
  ['langgraph', 'LangGraph sync'],
  ['naive-dbos', 'naive DBOS loop'],
  ['helix-growing-state', 'ours, state +1 KB/step'],
];

const fixed = (digits: number) => (value: number): string => value.toFixed(digits);
const kib = (bytes: number): string => (bytes / 1024).toFixed(2);
const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a');

/** Labels of the early and late windows, e.g. "steps 1-20" and "steps 181-200". */
function windows({ steps, window }: Pick<Comparison, 'steps' | 'window'>): { early: string; late: string } {
  return { early: `steps 1-${window}`, late: `steps ${steps - window + 1}-${steps}` };
}

/**
 * One row per measure, one column per system.
 *
 * @example
 * process.stdout.write(`${formatFiguresTable(comparison)}\n`);
 */
export function formatFiguresTable(comparison: Comparison): string {
  const { early, late } = windows(comparison);
  const row = (label: string, cell: (figures: SystemFigures) => string): string[] => [label, ...COLUMNS.map(([name]) => cell(comparison.systems[name]))];
  return formatTable(
    ['measure (per agent step unless said)', ...COLUMNS.map(([, header]) => header)],
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
 * Our figures divided by each peer's.
 *
 * @example
 * process.stdout.write(`${formatRatiosTable(comparison)}\n`);
 */
export function formatRatiosTable(comparison: Comparison): string {
  const { early, late } = windows(comparison);
  const { helix: ours, langgraph, 'naive-dbos': naive } = comparison.systems;
  const row = (label: string, pick: (figures: SystemFigures) => number): string[] => [label, ratio(pick(ours) / pick(langgraph)), ratio(pick(ours) / pick(naive))];
  return formatTable(
    ['ours / peer', 'LangGraph sync', 'naive DBOS loop'],
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
 * The targets of issue 11, each with our measured value and PASS or MISS.
 *
 * @example
 * process.stdout.write(`${formatTargetsTable(comparison)}\n`);
 */
export function formatTargetsTable(comparison: Comparison): string {
  const { early, late } = windows(comparison);
  const { helix: ours, langgraph, 'naive-dbos': naive, 'helix-growing-state': growing } = comparison.systems;
  const target = (label: string, value: number, limit: number, show: (value: number) => string): string[] => [label, show(value), `<= ${show(limit)}`, value <= limit ? 'PASS' : 'MISS'];
  return formatTable(
    ['target', 'measured', 'limit', 'verdict'],
    [
      target(`ms/step ours / LangGraph sync, ${early}`, ours.earlyMs / langgraph.earlyMs, 0.5, ratio),
      target(`ms/step ours / LangGraph sync, ${late}`, ours.lateMs / langgraph.lateMs, 0.3, ratio),
      target(`ms/step ours / naive DBOS loop, ${early}`, ours.earlyMs / naive.earlyMs, 0.75, ratio),
      target(`ms/step ours / naive DBOS loop, ${late}`, ours.lateMs / naive.lateMs, 0.75, ratio),
      target('write transactions/step, ours', ours.writeTransactionsPerStep, 2.5, fixed(2)),
      target('transactions/step, ours', ours.transactionsPerStep, 8, fixed(2)),
      target('disk KiB/step, ours', ours.diskBytesPerStep / 1024, 2, fixed(2)),
      target('storage growth, ours (O(n))', ours.growth, LINEAR_GROWTH_LIMIT, ratio),
      target('disk KiB/step beyond the 1 KiB item, ours with state +1 KB/step', growing.diskBytesPerStep / 1024 - 1, 2, fixed(2)),
      target('storage growth, ours with state +1 KB/step (O(n))', growing.growth, LINEAR_GROWTH_LIMIT, ratio),
    ],
  );
}

/**
 * Where each of our systems' disk bytes per step go: one row per user table that grew, its table (heap,
 * TOAST, maps) and index KiB per step, for ours and ours with a growing state.
 *
 * @example
 * process.stdout.write(`${formatRelationsTable(comparison)}\n`);
 */
export function formatRelationsTable(comparison: Comparison): string {
  const systems: ReadonlyArray<[SystemName, string]> = [
    ['helix', 'ours'],
    ['helix-growing-state', 'ours, state +1 KB/step'],
  ];
  const names = [...new Set(systems.flatMap(([name]) => Object.keys(comparison.systems[name].diskBytesPerStepByRelation)))].sort();
  const cells = (name: string) => systems.flatMap(([system]) => {
    const sizes = comparison.systems[system].diskBytesPerStepByRelation[name];
    return [kib(sizes?.table ?? 0), kib(sizes?.indexes ?? 0)];
  });
  return formatTable(
    ['disk KiB/step by relation', ...systems.flatMap(([, header]) => [`${header}: table`, `${header}: indexes`])],
    names.map((name) => [name, ...cells(name)]),
  );
}
