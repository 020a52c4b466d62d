import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { transactionOnLent } from '../../../journal/pipelined-transaction.js';
import { lendsConnections } from '../../../journal/step-record.js';
import type { StepRecordConnection } from '../../../types/step-records.js';
import type { CreateRunInput } from '../../../types/session.js';
import type { StepRecordsContractCheck } from './check.js';
import { stateStoreOf } from './subject.js';
import { startHintChecks } from './pipelined-start-hints.js';
import { startReadChecks } from './start-reads.js';

const run = (runId: string, previousRunId?: string): CreateRunInput => ({
  runId,
  status: 'running',
  stepCount: 0,
  startSequence: 0,
  startedAt: 1,
  ...(previousRunId === undefined ? {} : { previousRunId }),
});

/**
 * Checks of a run's start in one pipelined transaction on a connection the state store lends (`withConnection`), as
 * the executor runs it: the `…On` writes may be sent ahead, so a refusal fails the transaction (the refusal's own error,
 * not the aborted transaction's) and leaves nothing; with the write hints too (`startHintChecks`). Skipped for a store
 * that lends no connections. Also the read a start plans from (`startReadChecks`).
 *
 * @example
 * const checks = pipelinedStartChecks();
 */
export function pipelinedStartChecks(): StepRecordsContractCheck[] {
  return [
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords in a pipelined transaction on a lent connection: a new session’s start commits whole; a taken id fails it with SESSION_ALREADY_EXISTS, leaving nothing',
      run: async (subject) => {
        const stepRecords = subject.components.stateStore?.stepRecords;
        if (stepRecords === undefined || !lendsConnections(stepRecords)) return;
        const { store } = stateStoreOf(subject);
        const sessionId = `records-pipelined-${randomUUID()}`;
        const here = { sessionCreatedHere: true };
        const start = (connection: StepRecordConnection, runId: string): Promise<number> =>
          stepRecords
            .createSessionOn(connection, sessionId, { agentType: 'contract-agent', status: 'active' })
            .then(() => stepRecords.createRunOn(connection, sessionId, run(runId), here))
            .then(() => stepRecords.appendMessagesOn(connection, sessionId, [{ id: `${runId}:0:0`, role: 'user', content: runId }], here));
        await transactionOnLent(stepRecords, (connection) => start(connection, 'r1'));
        expect(await store.getCurrentRun(sessionId)).toMatchObject({ runId: 'r1', turn: 1, status: 'running' });
        expect((await store.getMessages(sessionId)).messages.map((message) => message.content)).toEqual(['r1']);
        expect(await store.getMessageCount(sessionId)).toBe(1);
        const taken = transactionOnLent(stepRecords, (connection) => start(connection, 'r2'));
        await expect(taken, 'a start of a session that exists').rejects.toMatchObject({ code: 'SESSION_ALREADY_EXISTS' });
        expect(await store.getCurrentRun(sessionId), 'after the refused start').toMatchObject({ runId: 'r1' });
        expect((await store.getMessages(sessionId)).messages.map((message) => message.content), 'after the refused start').toEqual(['r1']);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords in a pipelined transaction on a lent connection: a later turn’s start (status swap, flag cleared, run, message, state) commits whole; an unknown run fails it with INVALID_ARGUMENT',
      run: async (subject) => {
        const stepRecords = subject.components.stateStore?.stepRecords;
        if (stepRecords === undefined || !lendsConnections(stepRecords)) return;
        const { store } = stateStoreOf(subject);
        const sessionId = `records-pipelined-turn-${randomUUID()}`;
        await store.createSession(sessionId, { agentType: 'contract-agent', status: 'completed' });
        await store.createRun(sessionId, { ...run('r1'), status: 'completed' });
        await store.setInterruptFlag(sessionId, 'stop');
        const locked = { sessionLocked: true };
        await transactionOnLent(stepRecords, async (connection) => {
          expect(await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active')).toMatchObject({ ok: true });
          await stepRecords.clearInterruptFlagOn(connection, sessionId);
          await stepRecords.createRunOn(connection, sessionId, run('r2', 'r1'), locked);
          await stepRecords.appendMessagesOn(connection, sessionId, [{ id: 'r2:0:0', role: 'user', content: 'second' }], locked);
          await stepRecords.saveStateOn(connection, sessionId, { stepCount: 0, customState: { turn: 2 } });
        });
        expect(await store.loadState(sessionId)).toMatchObject({ status: 'active', stepCount: 0, customState: { turn: 2 } });
        expect(await store.isInterruptRequested(sessionId)).toBe(false);
        expect(await store.getCurrentRun(sessionId)).toMatchObject({ runId: 'r2', turn: 2, previousRunId: 'r1' });
        // The refused write is sent ahead; the state write after it reads (its lock) and finds the transaction aborted.
        const unknown = transactionOnLent(stepRecords, async (connection) => {
          await stepRecords.updateRunStatusOn(connection, sessionId, 'r-unknown', 'completed');
          await stepRecords.saveStateOn(connection, sessionId, { customState: { turn: 3 } });
        });
        await expect(unknown, 'an unknown run').rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        expect(await store.loadState(sessionId), 'after the refused write').toMatchObject({ customState: { turn: 2 } });
      },
    },
    ...startHintChecks(),
    ...startReadChecks(),
  ];
}
