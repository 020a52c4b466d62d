/**
 * The turn-latency benchmark's arithmetic (bench/turn-latency/): turn marks, p50/p95 summaries, ratios to
 * LangGraph, issue 25's targets and their PASS/MISS lines, and the sizes read from the environment. No database.
 */
import { describe, expect, it, vi } from 'vitest';
import { summarizeSystemTurns, summarizeTurns, p50Ratio, targetPasses, turnTargets, type TurnComparison, type TurnTarget } from '../../../bench/turn-latency/turn-figures.js';
import { turnLatencyScale } from '../../../bench/turn-latency/turn-latency-scale.js';
import type { TurnSample } from '../../../bench/turn-latency/turn-protocol.js';
import { TurnMarks } from '../../../bench/turn-latency/turn-system.js';
import { formatTurnTable, formatTurnTargetsTable, formatTurnVerdict, latencyCell, ratioCell, TURN_TABLE_HEADER } from '../../../bench/turn-latency/turn-tables.js';

/** `count` samples whose figures are `base` × 1..count (so p50 and p95 are easy to read off). */
function samples(count: number, base: Omit<TurnSample, 'writeTransactions'> & { writeTransactions?: number }): TurnSample[] {
  return Array.from({ length: count }, (_, index) => ({
    returnedMs: base.returnedMs * (index + 1),
    modelCalledMs: base.modelCalledMs * (index + 1),
    ...(base.firstTokenMs === undefined ? {} : { firstTokenMs: base.firstTokenMs * (index + 1) }),
    resultMs: base.resultMs * (index + 1),
    writeTransactions: base.writeTransactions ?? 5,
  }));
}

/** A comparison where each system's every figure is `scale` × LangGraph's (20 sessions, figures 1..20 × base). */
function comparison(scales: { fused: number; publicJournal: number }, writes: { fused: [number, number]; publicJournal: number }): TurnComparison {
  const system = (scale: number, writeTransactions: [number, number], streams = true) => {
    const turn = (writes: number) => samples(20, { returnedMs: scale, modelCalledMs: 2 * scale, ...(streams ? { firstTokenMs: 3 * scale } : {}), resultMs: 4 * scale, writeTransactions: writes });
    const first = turn(writeTransactions[0]);
    const second = turn(writeTransactions[1]);
    const burst = { modelCallMs: Array.from({ length: 20 }, (_, index) => 10 * scale * (index + 1)), resultMs: Array.from({ length: 20 }, (_, index) => 20 * scale * (index + 1)) };
    return summarizeSystemTurns(first.map((sample, index) => [sample, second[index] as TurnSample] as const), burst);
  };
  return {
    sessions: 20,
    burst: 20,
    systems: {
      helix: system(scales.fused, writes.fused),
      'helix-public-journal': system(scales.publicJournal, [writes.publicJournal, writes.publicJournal]),
      langgraph: system(1, [5, 5]),
      'naive-dbos': system(0.5, [5, 5], false),
    },
  };
}

describe('turn-latency benchmark figures', () => {
  it('marks each moment once, in ms since the start', () => {
    const times = [100, 104, 110, 130];
    const now = vi.spyOn(performance, 'now').mockImplementation(() => times.shift() ?? Number.NaN);
    try {
      const marks = new TurnMarks(); // 100
      marks.returned(); // 104
      marks.firstToken(); // 110
      marks.firstToken(); // ignored (the clock is not even read): the first token was at 110
      marks.finished(); // 130
      expect([marks.at('returned'), marks.at('firstToken'), marks.at('finished'), marks.at('modelCalled')]).toEqual([4, 10, 30, undefined]);
    } finally {
      now.mockRestore();
    }
  });

  it.each([
    { name: 'streaming system', count: 20, firstTokenMs: 3, expected: { returned: [10, 19], firstToken: [30, 57], result: [40, 76] } },
    { name: 'system without a stream', count: 20, firstTokenMs: undefined, expected: { returned: [10, 19], firstToken: undefined, result: [40, 76] } },
    { name: 'single session', count: 1, firstTokenMs: 3, expected: { returned: [1, 1], firstToken: [3, 3], result: [4, 4] } },
  ])('summarizes turns as nearest-rank p50 / p95: $name', ({ count, firstTokenMs, expected }) => {
    const summary = summarizeTurns(samples(count, { returnedMs: 1, modelCalledMs: 2, ...(firstTokenMs === undefined ? {} : { firstTokenMs }), resultMs: 4 }));
    const pair = (value: { p50: number; p95: number } | undefined) => (value === undefined ? undefined : [value.p50, value.p95]);
    expect(pair(summary.returned)).toEqual(expected.returned);
    expect(pair(summary.firstToken)).toEqual(expected.firstToken);
    expect(pair(summary.result)).toEqual(expected.result);
    expect(summary.writeTransactions.p50).toBe(5);
  });

  it('refuses turns of which only some streamed a first token, and no turns at all', () => {
    const [streamed, silent] = [samples(1, { returnedMs: 1, modelCalledMs: 2, firstTokenMs: 3, resultMs: 4 }), samples(1, { returnedMs: 1, modelCalledMs: 2, resultMs: 4 })];
    expect(() => summarizeTurns([...streamed, ...silent])).toThrow('Only some turns');
    expect(() => summarizeTurns([])).toThrow();
  });

  it.each([
    { ours: 3, langgraph: 6, expected: 0.5 },
    { ours: 6, langgraph: 6, expected: 1 },
    { ours: undefined, langgraph: 6, expected: undefined },
    { ours: 3, langgraph: undefined, expected: undefined },
  ])('takes the p50 ratio $ours / $langgraph', ({ ours, langgraph, expected }) => {
    const summary = (p50: number | undefined) => (p50 === undefined ? undefined : { p50, p95: 2 * p50, count: 1 });
    expect(p50Ratio(summary(ours), summary(langgraph))).toBe(expected);
  });

  it.each<{ target: TurnTarget; pass: boolean }>([
    { target: { label: 'ratio under', kind: 'ratio', fused: 4, publicJournal: 9, langgraph: 5, limit: 1 }, pass: true },
    { target: { label: 'ratio at the limit', kind: 'ratio', fused: 5, publicJournal: 9, langgraph: 5, limit: 1 }, pass: true },
    { target: { label: 'ratio over', kind: 'ratio', fused: 5.01, publicJournal: 1, langgraph: 5, limit: 1 }, pass: false },
    { target: { label: 'absolute under', kind: 'absolute', fused: 6, publicJournal: 17, langgraph: 5, limit: 6 }, pass: true },
    { target: { label: 'absolute over', kind: 'absolute', fused: 7, publicJournal: 1, langgraph: 5, limit: 6 }, pass: false },
  ])('judges a target on the fused journal only: $target.label', ({ target, pass }) => {
    expect(targetPasses(target)).toBe(pass);
  });

  it.each([
    { name: 'fused faster than LangGraph, 6 writes', scales: { fused: 0.9, publicJournal: 2 }, writes: { fused: [6, 5] as [number, number], publicJournal: 15 }, passes: 5 },
    { name: 'fused as fast as LangGraph, 7 writes on turn 2', scales: { fused: 1, publicJournal: 0.5 }, writes: { fused: [5, 7] as [number, number], publicJournal: 5 }, passes: 4 },
    { name: 'fused slower, 16 writes', scales: { fused: 2.5, publicJournal: 3 }, writes: { fused: [15, 16] as [number, number], publicJournal: 17 }, passes: 0 },
  ])('computes issue 25 targets and prints one PASS/MISS line each: $name', ({ scales, writes, passes }) => {
    const measured = comparison(scales, writes);
    const targets = turnTargets(measured);
    expect(targets.map((target) => target.label)).toEqual([
      'first token p50, turn 1',
      'first token p50, turn 2',
      'final result p50, turn 1',
      'write transactions per one-step turn (worse turn, p50)',
      '20 sessions at once: start → first model call p50',
    ]);
    expect(targets[3]?.fused).toBe(Math.max(...writes.fused));
    expect(targets.filter(targetPasses)).toHaveLength(passes);
    const lines = formatTurnTargetsTable(measured).split('\n');
    expect(lines.filter((line) => / PASS$/.test(line))).toHaveLength(passes);
    expect(lines.filter((line) => / MISS$/.test(line))).toHaveLength(5 - passes);
    expect(formatTurnVerdict(measured)).toMatch(new RegExp(`^Turn-latency targets \\(fused journal\\): ${passes} of 5 PASS`));
  });

  it('prints p50 / p95 cells, a dash where a system has no stream, and ratios', () => {
    expect(latencyCell({ p50: 4.71, p95: 9.02, count: 50 }, 1)).toBe('4.7 / 9.0');
    expect(latencyCell({ p50: 15, p95: 16, count: 50 }, 0)).toBe('15 / 16');
    expect(latencyCell(undefined, 1)).toBe('—');
    expect(ratioCell(0.5)).toBe('0.50x');
    expect(ratioCell(undefined)).toBe('—');
    const table = formatTurnTable(comparison({ fused: 2, publicJournal: 3 }, { fused: [15, 16], publicJournal: 17 })).split('\n');
    expect(table[0]).toMatch(new RegExp(`^${TURN_TABLE_HEADER}\\s+ours, fused journal\\s+ours, public journal\\s+LangGraph sync\\s+naive DBOS loop$`));
    // First token p50 / p95: 3 × scale × 10 and × 19; the naive loop streams nothing.
    expect(table.find((line) => line.startsWith("first token reaches the caller's stream"))?.split(/\s{2,}/).slice(1)).toEqual(['60.0 / 114.0', '90.0 / 171.0', '30.0 / 57.0', '—']);
    expect(table.find((line) => line.startsWith('write transactions, turn 2'))?.split(/\s{2,}/).slice(1)).toEqual(['16 / 16', '17 / 17', '5 / 5', '5 / 5']);
  });

  it.each([
    { environment: {}, expected: { sessions: 50, burst: 128, warmUpSessions: 5 } },
    { environment: { BENCH_SCALE: 'small' }, expected: { sessions: 5, burst: 8, warmUpSessions: 1 } },
    { environment: { HELIX_BENCH_TURN_SESSIONS: '20', HELIX_BENCH_TURN_BURST: '64' }, expected: { sessions: 20, burst: 64, warmUpSessions: 5 } },
  ])('reads its sizes from the environment: $environment', ({ environment, expected }) => {
    expect(turnLatencyScale(environment)).toEqual(expected);
  });

  it.each(['0', '-1', '2.5', 'many'])('refuses HELIX_BENCH_TURN_SESSIONS=%s', (value) => {
    expect(() => turnLatencyScale({ HELIX_BENCH_TURN_SESSIONS: value })).toThrow('positive integer');
  });
});
