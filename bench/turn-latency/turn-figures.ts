import { summarizeLatencies, type LatencySummary } from '../latency-summary.js';
import type { BurstSample, TurnSample } from './turn-protocol.js';
import type { TurnSystemName } from './turn-system.js';

/**
 * p50/p95 of each moment of one kind of turn (first or second) over a system's sessions, and of its write
 * transactions; `firstToken` absent for a system that streams nothing.
 *
 * @example
 * const first: TurnSummary = summarizeTurns(samples);
 */
export interface TurnSummary {
  returned: LatencySummary;
  modelCalled: LatencySummary;
  firstToken?: LatencySummary;
  result: LatencySummary;
  writeTransactions: LatencySummary;
}

/**
 * One system's figures: its first turns, its second turns and its burst of new sessions.
 *
 * @example
 * const figures: TurnFigures = summarizeSystemTurns(sessions, burst);
 */
export interface TurnFigures {
  first: TurnSummary;
  second: TurnSummary;
  burst: { modelCall: LatencySummary; result: LatencySummary };
}

/**
 * Every system's figures and the sizes they were measured at.
 *
 * @example
 * const comparison: TurnComparison = { sessions: 50, burst: 128, systems };
 */
export interface TurnComparison {
  sessions: number;
  burst: number;
  systems: Record<TurnSystemName, TurnFigures>;
}

/**
 * Summarize turns of one kind.
 *
 * @throws Error when there is no sample, or only some samples have a first token.
 * @example
 * summarizeTurns([{ returnedMs: 1, modelCalledMs: 2, resultMs: 5, writeTransactions: 5 }]).result.p50; // 5
 */
export function summarizeTurns(samples: readonly TurnSample[]): TurnSummary {
  const tokens = samples.flatMap((sample) => (sample.firstTokenMs === undefined ? [] : [sample.firstTokenMs]));
  if (tokens.length !== 0 && tokens.length !== samples.length) throw new Error('Only some turns streamed a first token.');
  return {
    returned: summarizeLatencies(samples.map((sample) => sample.returnedMs)),
    modelCalled: summarizeLatencies(samples.map((sample) => sample.modelCalledMs)),
    ...(tokens.length === 0 ? {} : { firstToken: summarizeLatencies(tokens) }),
    result: summarizeLatencies(samples.map((sample) => sample.resultMs)),
    writeTransactions: summarizeLatencies(samples.map((sample) => sample.writeTransactions)),
  };
}

/**
 * A system's figures from its measured sessions (first and second turn each) and its burst.
 *
 * @example
 * const figures = summarizeSystemTurns([[turn1, turn2]], { modelCallMs: [60], resultMs: [90] });
 */
export function summarizeSystemTurns(sessions: ReadonlyArray<readonly [TurnSample, TurnSample]>, burst: BurstSample): TurnFigures {
  return {
    first: summarizeTurns(sessions.map(([first]) => first)),
    second: summarizeTurns(sessions.map(([, second]) => second)),
    burst: { modelCall: summarizeLatencies(burst.modelCallMs), result: summarizeLatencies(burst.resultMs) },
  };
}

/**
 * The p50 of a figure over p50 of LangGraph's, `undefined` where either system lacks the figure.
 *
 * @example
 * p50Ratio({ p50: 3, p95: 4, count: 50 }, { p50: 6, p95: 8, count: 50 }); // 0.5
 */
export function p50Ratio(ours: LatencySummary | undefined, langgraph: LatencySummary | undefined): number | undefined {
  if (ours === undefined || langgraph === undefined) return undefined;
  return ours.p50 / langgraph.p50;
}

/**
 * One of issue 25's targets, measured: ours on each journal and LangGraph's figure, the value the verdict is
 * on (the fused journal's ratio to LangGraph, or its absolute figure) and the limit.
 *
 * @example
 * const target: TurnTarget = { label: 'first token p50, turn 1', kind: 'ratio', fused: 4, publicJournal: 9, langgraph: 5, limit: 1 };
 */
export interface TurnTarget {
  label: string;
  /** `ratio`: the fused journal's figure over LangGraph's must stay within `limit`; `absolute`: the figure itself. */
  kind: 'ratio' | 'absolute';
  fused: number;
  publicJournal: number;
  langgraph: number;
  limit: number;
}

/**
 * Issue 25's targets: first token p50 ≤ 1.0× LangGraph's on turn 1 and turn 2, final result p50 ≤ 1.0×
 * LangGraph's, ≤ 6 write transactions per one-step turn (the worse of the two turns' p50), and the burst's
 * start → first model call p50 ≤ LangGraph's.
 *
 * @throws Error when one of our systems or LangGraph streamed no first token.
 * @example
 * const missed = turnTargets(comparison).filter((target) => !targetPasses(target));
 */
export function turnTargets(comparison: TurnComparison): TurnTarget[] {
  const { helix: fused, 'helix-public-journal': publicJournal, langgraph } = comparison.systems;
  const p50 = (pick: (figures: TurnFigures) => LatencySummary | undefined) => (figures: TurnFigures): number => {
    const summary = pick(figures);
    if (summary === undefined) throw new Error('A system compared with LangGraph streamed no first token.');
    return summary.p50;
  };
  const target = (label: string, kind: TurnTarget['kind'], limit: number, value: (figures: TurnFigures) => number): TurnTarget => ({
    label,
    kind,
    fused: value(fused),
    publicJournal: value(publicJournal),
    langgraph: value(langgraph),
    limit,
  });
  const worseTurnWrites = (figures: TurnFigures): number => Math.max(figures.first.writeTransactions.p50, figures.second.writeTransactions.p50);
  return [
    target('first token p50, turn 1', 'ratio', 1, p50((figures) => figures.first.firstToken)),
    target('first token p50, turn 2', 'ratio', 1, p50((figures) => figures.second.firstToken)),
    target('final result p50, turn 1', 'ratio', 1, p50((figures) => figures.first.result)),
    target('write transactions per one-step turn (worse turn, p50)', 'absolute', 6, worseTurnWrites),
    target(`${comparison.burst} sessions at once: start → first model call p50`, 'ratio', 1, p50((figures) => figures.burst.modelCall)),
  ];
}

/**
 * Whether the fused journal meets `target`.
 *
 * @example
 * targetPasses({ label: 'x', kind: 'absolute', fused: 5, publicJournal: 9, langgraph: 5, limit: 6 }); // true
 */
export function targetPasses(target: TurnTarget): boolean {
  const value = target.kind === 'ratio' ? target.fused / target.langgraph : target.fused;
  return value <= target.limit;
}
