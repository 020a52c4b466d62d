import { describe, expect, it } from 'vitest';
import { isDeadMember, type LivenessMemory } from '../../../src/orchestration/fleet-liveness.js';

const DEAD_AFTER = 5_000;

/** Replay observations of one member (free or held, at a time) through one memory; the verdict of each. */
function verdicts(observations: Array<[free: boolean, at: number]>, connectedSince = 0): boolean[] {
  const memory: LivenessMemory = new Map();
  return observations.map(([free, at]) => isDeadMember(memory, { executorId: 'worker-2', free, at }, { connectedSince }, DEAD_AFTER));
}

describe('isDeadMember', () => {
  const cases: Array<[string, Array<[boolean, number]>, number, boolean[]]> = [
    ['a held lease is alive', [[false, 0], [false, 10_000]], 0, [false, false]],
    ['a lease free for less than deadAfterMs is not dead yet', [[true, 1_000], [true, 5_999]], 0, [false, false]],
    ['a lease free on every sweep for deadAfterMs is dead', [[true, 1_000], [true, 3_000], [true, 6_000]], 0, [false, false, true]],
    ['a held sighting restarts the streak', [[true, 0], [false, 4_000], [true, 5_000], [true, 9_999], [true, 10_000]], 0, [false, false, false, false, true]],
    ['a streak counts only from when the sweeper connected', [[true, 0], [true, 6_000], [true, 11_999], [true, 12_000]], 7_000, [false, false, false, true]],
  ];
  it.each(cases)('%s', (_label, observations, connectedSince, expected) => {
    expect(verdicts(observations, connectedSince)).toEqual(expected);
  });

  it('keeps one streak per member', () => {
    const memory: LivenessMemory = new Map();
    const standing = { connectedSince: 0 };
    expect(isDeadMember(memory, { executorId: 'a', free: true, at: 0 }, standing, DEAD_AFTER)).toBe(false);
    expect(isDeadMember(memory, { executorId: 'b', free: true, at: 4_000 }, standing, DEAD_AFTER)).toBe(false);
    expect(isDeadMember(memory, { executorId: 'a', free: true, at: 5_000 }, standing, DEAD_AFTER)).toBe(true);
    expect(isDeadMember(memory, { executorId: 'b', free: true, at: 5_000 }, standing, DEAD_AFTER)).toBe(false);
  });
});
