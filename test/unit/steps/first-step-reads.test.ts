import { describe, expect, it } from 'vitest';
import { dropFirstStepReads, startFirstStepReads, takeFirstStepReads } from '../../../src/steps/first-step-reads.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { MAX_CALLS_AHEAD } from '../../../src/steps/first-call-ahead.js';

/** A store answering the three reads from memory (only what the reads call). */
function store(): SessionStateStore {
  return {
    readInterruptFlag: async () => ({ interrupted: false }),
    loadState: async () => null,
    getMessages: async () => ({ messages: [], total: 0, hasMore: false }),
  } as unknown as SessionStateStore;
}

describe('first step reads', () => {
  it('are taken once, by the run they were started for, on the same store', async () => {
    const mine = store();
    startFirstStepReads(mine, { sessionId: 's1', runId: 'run-a' });
    expect(takeFirstStepReads(store(), 'run-a')).toBeUndefined();
    startFirstStepReads(mine, { sessionId: 's1', runId: 'run-a' });
    expect(takeFirstStepReads(mine, 'run-b')).toBeUndefined();
    const reads = takeFirstStepReads(mine, 'run-a');
    expect(await reads?.flag).toEqual({ interrupted: false });
    expect(await reads?.state).toBeNull();
    expect(await reads?.history).toEqual([]);
    expect(takeFirstStepReads(mine, 'run-a')).toBeUndefined();
  });

  it('are gone once dropped', () => {
    const mine = store();
    startFirstStepReads(mine, { sessionId: 's1', runId: 'run-c' });
    dropFirstStepReads('run-c');
    expect(takeFirstStepReads(mine, 'run-c')).toBeUndefined();
  });

  it(`keep at most ${MAX_CALLS_AHEAD} runs (as many as calls made ahead), the oldest dropped first`, () => {
    const mine = store();
    for (let index = 0; index <= MAX_CALLS_AHEAD; index += 1) startFirstStepReads(mine, { sessionId: 's1', runId: `run-many-${index}` });
    expect(takeFirstStepReads(mine, 'run-many-0')).toBeUndefined();
    expect(takeFirstStepReads(mine, 'run-many-1')).toBeDefined();
    expect(takeFirstStepReads(mine, `run-many-${MAX_CALLS_AHEAD}`)).toBeDefined();
  });

  it('a failed read is not an unhandled rejection until the step awaits it', async () => {
    const failing = { ...store(), readInterruptFlag: async () => Promise.reject(new Error('down')) } as unknown as SessionStateStore;
    startFirstStepReads(failing, { sessionId: 's1', runId: 'run-d' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(takeFirstStepReads(failing, 'run-d')?.flag).rejects.toThrow('down');
  });
});
