import { formatTable } from '../../examples/demo/format-table.js';
import type { LatencySummary } from '../latency-summary.js';
import { ratio, SYSTEM_COLUMNS } from '../side-by-side/side-by-side-tables.js';
import { p50Ratio, targetPasses, turnTargets, type TurnComparison, type TurnFigures } from './turn-figures.js';
import { TURN_SYSTEMS, type TurnSystemName } from './turn-system.js';

/**
 * The first header cell of the figures table (the smoke test looks for it).
 *
 * @example
 * output.includes(TURN_TABLE_HEADER); // true once the table is printed
 */
export const TURN_TABLE_HEADER = 'one-step turn, p50 / p95 ms';

/** What a system lacks (it streams nothing, so it has no first token). */
const NONE = '—';

/** A row of the tables: its label and how to read the figure from a system's figures. */
type Row = [label: string, pick: (figures: TurnFigures) => LatencySummary | undefined, digits: number];

/**
 * A figure as "p50 / p95" with `digits` decimals, `—` when the system lacks it.
 *
 * @example
 * latencyCell({ p50: 4.71, p95: 9.02, count: 50 }, 1); // '4.7 / 9.0'
 */
export function latencyCell(summary: LatencySummary | undefined, digits: number): string {
  if (summary === undefined) return NONE;
  return `${summary.p50.toFixed(digits)} / ${summary.p95.toFixed(digits)}`;
}

/**
 * A ratio of p50s as "0.52x", `—` when there is none.
 *
 * @example
 * ratioCell(0.5); // '0.50x'
 */
export function ratioCell(value: number | undefined): string {
  return value === undefined ? NONE : ratio(value);
}

function rows(comparison: TurnComparison): Row[] {
  const burst = `${comparison.burst} sessions at once: start →`;
  return [
    ['execute() returns', (figures) => figures.first.returned, 1],
    ['the model is called', (figures) => figures.first.modelCalled, 1],
    ["first token reaches the caller's stream", (figures) => figures.first.firstToken, 1],
    ['final result', (figures) => figures.first.result, 1],
    ['second turn: execute() returns', (figures) => figures.second.returned, 1],
    ['second turn: the model is called', (figures) => figures.second.modelCalled, 1],
    ['second turn: first token', (figures) => figures.second.firstToken, 1],
    ['second turn: final result', (figures) => figures.second.result, 1],
    ['write transactions, turn 1', (figures) => figures.first.writeTransactions, 0],
    ['write transactions, turn 2', (figures) => figures.second.writeTransactions, 0],
    [`${burst} first model call`, (figures) => figures.burst.modelCall, 1],
    [`${burst} final result`, (figures) => figures.burst.result, 1],
  ];
}

const label = (system: TurnSystemName): string => SYSTEM_COLUMNS.find(([name]) => name === system)?.[1] ?? system;

/**
 * Every system's figures, p50 / p95 (write transactions: per turn, as counted by transaction ids).
 *
 * @example
 * process.stdout.write(`${formatTurnTable(comparison)}\n`);
 */
export function formatTurnTable(comparison: TurnComparison): string {
  return formatTable(
    [TURN_TABLE_HEADER, ...TURN_SYSTEMS.map(label)],
    rows(comparison).map(([name, pick, digits]) => [name, ...TURN_SYSTEMS.map((system) => latencyCell(pick(comparison.systems[system]), digits))]),
  );
}

/**
 * Each other system's p50 over LangGraph's, per row of the figures table.
 *
 * @example
 * process.stdout.write(`${formatTurnRatiosTable(comparison)}\n`);
 */
export function formatTurnRatiosTable(comparison: TurnComparison): string {
  const others = TURN_SYSTEMS.filter((system) => system !== 'langgraph');
  const langgraph = comparison.systems.langgraph;
  return formatTable(
    ['p50 / LangGraph sync p50', ...others.map(label)],
    rows(comparison).map(([name, pick]) => [name, ...others.map((system) => ratioCell(p50Ratio(pick(comparison.systems[system]), pick(langgraph))))]),
  );
}

/**
 * Issue 25's targets as PASS/MISS lines on the fused journal, with the public journal's figure and ratio beside.
 *
 * @example
 * process.stdout.write(`${formatTurnTargetsTable(comparison)}\n`);
 */
export function formatTurnTargetsTable(comparison: TurnComparison): string {
  const figure = (value: number, kind: 'ratio' | 'absolute'): string => value.toFixed(kind === 'ratio' ? 1 : 0);
  // Three decimals on the ratio a verdict is on, so a MISS never prints as equal to its limit.
  const precise = (value: number): string => `${value.toFixed(3)}x`;
  return formatTable(
    ['issue 25 target', 'fused', 'LangGraph sync', 'fused / LangGraph', 'public', 'public / LangGraph', 'limit', 'verdict (fused)'],
    turnTargets(comparison).map((target) => [
      target.label,
      figure(target.fused, target.kind),
      figure(target.langgraph, target.kind),
      target.kind === 'ratio' ? precise(target.fused / target.langgraph) : ratio(target.fused / target.langgraph),
      figure(target.publicJournal, target.kind),
      ratio(target.publicJournal / target.langgraph),
      target.kind === 'ratio' ? `ratio <= ${ratio(target.limit)}` : `<= ${target.limit}`,
      targetPasses(target) ? 'PASS' : 'MISS',
    ]),
  );
}

/**
 * One line counting the targets met, naming the missed ones.
 *
 * @example
 * formatTurnVerdict(comparison); // 'Turn-latency targets (fused journal): 2 of 5 PASS; MISS: …'
 */
export function formatTurnVerdict(comparison: TurnComparison): string {
  const targets = turnTargets(comparison);
  const missed = targets.filter((target) => !targetPasses(target)).map((target) => target.label);
  return `Turn-latency targets (fused journal): ${targets.length - missed.length} of ${targets.length} PASS${missed.length === 0 ? '' : `; MISS: ${missed.join('; ')}`}.`;
}
