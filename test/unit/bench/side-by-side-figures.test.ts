/**
 * The side-by-side benchmark's arithmetic (bench/side-by-side/): step windows, medians, the per-step figures
 * and the sizes read from the environment. No database.
 */
import { describe, expect, it, vi } from 'vitest';
import { sideBySideScale } from '../../../bench/side-by-side/side-by-side-scale.js';
import { StepClock } from '../../../bench/side-by-side/step-clock.js';
import { growthClass, median, summarizeSystem } from '../../../bench/side-by-side/system-figures.js';
import type { SessionFigures, SystemReport } from '../../../bench/side-by-side/system-report.js';

describe('side-by-side benchmark figures', () => {
  it('times a step from the start of its model call to the start of the next, without snapshots', async () => {
    // performance.now() at: call 1 start, resumed; call 2 start, (30 ms snapshot) resumed; call 3 start, resumed.
    const times = [0, 0, 10, 40, 45, 45];
    const now = vi.spyOn(performance, 'now').mockImplementation(() => times.shift() ?? Number.NaN);
    try {
      const clock = new StepClock(new Map([[2, async () => 42]]));
      for (let call = 1; call <= 3; call += 1) await clock.onModelCall(call);
      expect(clock.calls).toBe(3);
      expect(clock.snapshot(2)).toBe(42);
      expect(clock.meanStepMs(1, 1)).toBe(10);
      expect(clock.meanStepMs(2, 2)).toBe(5); // the snapshot's 30 ms are in neither step
      expect(clock.meanStepMs(1, 2)).toBe(7.5);
      expect(() => clock.meanStepMs(3, 3)).toThrow('were not both seen');
      expect(() => clock.snapshot(1)).toThrow('No snapshot');
    } finally {
      now.mockRestore();
    }
  });

  it('takes medians and classifies growth', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
    expect(growthClass(1.02)).toBe('O(n)');
    expect(growthClass(7.1)).toBe('O(n²)');
  });

  it('turns sessions into per-step figures: medians per session, transactions over all minus the idle load', () => {
    const session = (earlyMs: number, writeTransactions: number, checkpointBytes = 3_000): SessionFigures => ({
      earlyMs, lateMs: 2 * earlyMs, meanMs: 1.5 * earlyMs, diskBytes: 4_000,
      diskBytesByRelation: { 'public.checkpoints': { table: checkpointBytes, indexes: 1_000 }, ...(earlyMs === 9 ? { 'dbos.extra': { table: 8_192, indexes: 0 } } : {}) },
      rowBytesEarly: 200, rowBytesLate: 600, writeTransactions, toolCalls: 10, wallMs: 100,
    });
    const report: SystemReport = {
      system: 'helix', steps: 10, window: 2, sessions: [session(5, 50), session(9, 70, 5_000), session(7, 60, 2_000)],
      transactions: 700, transactionSeconds: 20, idleTransactionsPerSecond: 5,
    };
    expect(summarizeSystem(report)).toEqual({
      earlyMs: 7, lateMs: 14, meanMs: 10.5, diskBytesPerStep: 400,
      // Per table: the median over the sessions (one that did not grow a table counts 0), per step.
      diskBytesPerStepByRelation: { 'dbos.extra': { table: 0, indexes: 0 }, 'public.checkpoints': { table: 300, indexes: 100 } },
      rowBytesPerStepEarly: 100, rowBytesPerStepLate: 300, growth: 3,
      writeTransactionsPerStep: 6, transactionsPerStep: 20, idleTransactionsPerSecond: 5, toolCalls: 30, expectedToolCalls: 30, wallMsPerSession: 100,
    });
  });

  it('reads its sizes from the environment', () => {
    expect(sideBySideScale({})).toEqual({ steps: 200, sessions: 3, warmUpSteps: 20, window: 20, settleMs: 11_000, idleWindowMs: 10_000 });
    expect(sideBySideScale({ BENCH_SCALE: 'small' })).toMatchObject({ steps: 8, sessions: 1, window: 4 });
    expect(sideBySideScale({ HELIX_BENCH_STEPS: '30', HELIX_BENCH_SESSIONS: '5' })).toMatchObject({ steps: 30, sessions: 5, window: 15 });
    expect(() => sideBySideScale({ HELIX_BENCH_STEPS: 'many' })).toThrow('HELIX_BENCH_STEPS');
    expect(() => sideBySideScale({ HELIX_BENCH_STEPS: '1' })).toThrow();
  });
});
