import { formatTable } from '../../examples/demo/format-table.js';
import { fixed, ratio, windowLabels, type Comparison } from './side-by-side-tables.js';
import { LINEAR_GROWTH_LIMIT } from './system-figures.js';

/** A ratio a verdict is on, with three decimals (so a MISS never prints as equal to its limit). */
const preciseRatio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(3)}x` : 'n/a');

/**
 * One target: the measured figure, the peer's figure and their ratio where one is compared, the value the
 * verdict is on, its limit and the verdict.
 *
 * @example
 * const verdict: TargetVerdict = { label: 'write transactions/step, fused journal', value: 2.08, limit: 2.2, pass: true, cells: ['2.08', '4.03', '0.52x', '<= 2.20'] };
 */
export interface TargetVerdict {
  label: string;
  value: number;
  limit: number;
  pass: boolean;
  /** The printed cells between the label and the verdict. */
  cells: string[];
}

/**
 * The step-journal targets, measured in this run: the fused journal at most 0.5× LangGraph sync's ms/step
 * over the early window and 0.3× over the late one, at most 2.2 write transactions and 2 KiB of disk (every
 * table of its database, DBOS's step rows included) per step; the public journal at most 1.0× LangGraph
 * sync's ms/step over the early window.
 *
 * @example
 * const missed = journalTargets(comparison).filter((target) => !target.pass);
 */
export function journalTargets(comparison: Comparison): TargetVerdict[] {
  const { early, late } = windowLabels(comparison);
  const { helix: fused, 'helix-public-journal': publicJournal, langgraph } = comparison.systems;
  const ms = (value: number): string => `${fixed(2)(value)} ms`;
  const againstLangGraph = (label: string, ours: number, peer: number, limit: number): TargetVerdict => {
    const value = ours / peer;
    return { label, value, limit, pass: value <= limit, cells: [ms(ours), ms(peer), preciseRatio(value), `ratio <= ${ratio(limit)}`] };
  };
  const absolute = (label: string, ours: number, peer: number, limit: number, unit: string): TargetVerdict => ({
    label,
    value: ours,
    limit,
    pass: ours <= limit,
    cells: [`${fixed(3)(ours)}${unit}`, `${fixed(2)(peer)}${unit}`, ratio(ours / peer), `<= ${fixed(2)(limit)}${unit}`],
  });
  return [
    againstLangGraph(`ms/step, ${early}, fused journal / LangGraph sync`, fused.earlyMs, langgraph.earlyMs, 0.5),
    againstLangGraph(`ms/step, ${late}, fused journal / LangGraph sync`, fused.lateMs, langgraph.lateMs, 0.3),
    absolute('write transactions/step, fused journal', fused.writeTransactionsPerStep, langgraph.writeTransactionsPerStep, 2.2, ''),
    absolute('disk KiB/step, fused journal (all tables, dbos.* included)', fused.diskBytesPerStep / 1024, langgraph.diskBytesPerStep / 1024, 2, ' KiB'),
    againstLangGraph(`ms/step, ${early}, public journal / LangGraph sync`, publicJournal.earlyMs, langgraph.earlyMs, 1),
  ];
}

/**
 * The step-journal targets as PASS/MISS lines: measured figure, LangGraph sync's, the ratio, the limit.
 *
 * @example
 * process.stdout.write(`${formatJournalTargetsTable(comparison)}\n`);
 */
export function formatJournalTargetsTable(comparison: Comparison): string {
  return formatTable(
    ['step-journal target', 'ours', 'LangGraph sync', 'ours / LangGraph', 'limit', 'verdict'],
    journalTargets(comparison).map((target) => [target.label, ...target.cells, target.pass ? 'PASS' : 'MISS']),
  );
}

/**
 * Issue 11's other targets, on the fused journal (the default): against the naive DBOS loop, all
 * transactions, storage growth, and the state growing 1 KB a step.
 *
 * @example
 * process.stdout.write(`${formatOtherTargetsTable(comparison)}\n`);
 */
export function formatOtherTargetsTable(comparison: Comparison): string {
  const { early, late } = windowLabels(comparison);
  const { helix: fused, 'naive-dbos': naive, 'helix-growing-state': growing } = comparison.systems;
  const target = (label: string, value: number, limit: number, show: (value: number) => string): string[] => [label, show(value), `<= ${show(limit)}`, value <= limit ? 'PASS' : 'MISS'];
  return formatTable(
    ['issue 11 target (fused journal)', 'measured', 'limit', 'verdict'],
    [
      target(`ms/step fused / naive DBOS loop, ${early}`, fused.earlyMs / naive.earlyMs, 0.75, preciseRatio),
      target(`ms/step fused / naive DBOS loop, ${late}`, fused.lateMs / naive.lateMs, 0.75, preciseRatio),
      target('transactions/step, fused journal', fused.transactionsPerStep, 8, fixed(3)),
      target('storage growth, fused journal (O(n))', fused.growth, LINEAR_GROWTH_LIMIT, preciseRatio),
      target('disk KiB/step beyond the 1 KiB item, state +1 KB/step', growing.diskBytesPerStep / 1024 - 1, 2, fixed(3)),
      target('storage growth, state +1 KB/step (O(n))', growing.growth, LINEAR_GROWTH_LIMIT, preciseRatio),
    ],
  );
}
