import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { StepRecordsContractCheck } from './check.js';
import { stateStoreOf } from './subject.js';

/**
 * Checks of the read a run's start plans from (`StateStoreStepRecords.loadStateForStart`, optional): what `loadState`
 * and `getCurrentRun` answer, for no session, a session without runs and one with two. Skipped for a store without it.
 *
 * @example
 * const checks = startReadChecks();
 */
export function startReadChecks(): StepRecordsContractCheck[] {
  return [
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords.loadStateForStart: the session and its latest run, as loadState and getCurrentRun answer them',
      run: async (subject) => {
        const { store, stepRecords } = stateStoreOf(subject);
        if (stepRecords.loadStateForStart === undefined) return;
        const sessionId = `records-start-read-${randomUUID()}`;
        expect(await stepRecords.loadStateForStart(sessionId), 'no session').toEqual({ state: null, run: null });
        await store.createSession(sessionId, { agentType: 'contract-agent', status: 'completed', customState: { turn: 1 } });
        expect(await stepRecords.loadStateForStart(sessionId), 'no run').toEqual({ state: await store.loadState(sessionId), run: null });
        const run = { status: 'completed' as const, stepCount: 1, startedAt: 1, metadata: { note: 'kept' } };
        await store.createRun(sessionId, { ...run, runId: 'r1', startSequence: 0 });
        await store.createRun(sessionId, { ...run, runId: 'r2', startSequence: 7, previousRunId: 'r1', endedAt: 2 });
        const read = await stepRecords.loadStateForStart(sessionId);
        expect(read.run).toMatchObject({ runId: 'r2', turn: 2, startSequence: 7, previousRunId: 'r1', metadata: { note: 'kept' } });
        expect(read).toEqual({ state: await store.loadState(sessionId), run: await store.getCurrentRun(sessionId) });
      },
    },
  ];
}
