import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { canSendAhead } from '../../../database/send-ahead.js';
import { transactionOnLent } from '../../../journal/pipelined-transaction.js';
import { lendsConnections } from '../../../journal/step-record.js';
import type { StateStoreStepRecords } from '../../../store/step-records.js';
import type { SessionStateStore } from '../../../store/state-store.js';
import type { StepRecordConnection, StepRecordConnections } from '../../../types/step-records.js';
import type { CreateRunInput } from '../../../types/session.js';
import type { StepRecordsContractCheck } from './check.js';
import { stateStoreOf } from './subject.js';

const run = (runId: string, previousRunId: string): CreateRunInput => ({
  runId,
  status: 'running',
  stepCount: 0,
  startSequence: 0,
  startedAt: 1,
  previousRunId,
});

/** A completed session with run `r1` (turn 1) and two messages, `m1` and `m2`. */
async function completedSession(store: SessionStateStore, name: string): Promise<string> {
  const sessionId = `records-hints-${name}-${randomUUID()}`;
  await store.createSession(sessionId, { agentType: 'contract-agent', status: 'completed' });
  await store.createRun(sessionId, { runId: 'r1', status: 'completed', stepCount: 1, startSequence: 0, startedAt: 1 });
  await store.appendMessages(sessionId, [
    { id: 'm1', role: 'user', content: 'first' },
    { id: 'm2', role: 'assistant', content: 'answer' },
  ]);
  return sessionId;
}

/**
 * Whether `write` resolved before a statement sent ahead of it was answered: a write sent ahead does not wait for the
 * transaction's earlier answers, a write that reads does. True when the transaction is not pipelined (a node-postgres
 * without pipeline mode): nothing is sent ahead there.
 */
async function resolvesUnanswered(connection: StepRecordConnection, write: () => Promise<unknown>): Promise<boolean> {
  if (!canSendAhead(connection)) {
    await write();
    return true;
  }
  let answered = false;
  await connection.sendAhead('SELECT pg_sleep(0.05)', [], () => {
    answered = true;
  });
  await write();
  return !answered;
}

function lentStepRecords(subject: Parameters<StepRecordsContractCheck['run']>[0]): (StateStoreStepRecords & StepRecordConnections) | undefined {
  const stepRecords = subject.components.stateStore?.stepRecords;
  return stepRecords !== undefined && lendsConnections(stepRecords) ? stepRecords : undefined;
}

/**
 * Checks of a later turn's start with the write hints of `StartWriteOptions` (`expectedTurn`, `totalUnread`) in a
 * pipelined transaction on a lent connection: the run and the messages are sent ahead (neither waits for an answer),
 * numbered as without the hints, and commit whole; a stale expected turn and an unknown session's append fail the
 * transaction with their own errors and leave nothing. Skipped for a store that lends no connections.
 *
 * @example
 * const checks = startHintChecks();
 */
export function startHintChecks(): StepRecordsContractCheck[] {
  return [
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords start hints: with expectedTurn and totalUnread a later turn’s run and messages are sent ahead, numbered after the stored ones (stored ids skipped), and commit whole',
      run: async (subject) => {
        const stepRecords = lentStepRecords(subject);
        if (stepRecords === undefined) return;
        const { store } = stateStoreOf(subject);
        const sessionId = await completedSession(store, 'turn');
        const hints = { sessionLocked: true, expectedTurn: 2, totalUnread: true };
        const messages = [
          { id: 'm2', role: 'assistant' as const, content: 'answer again' },
          { id: 'r2:0:0', role: 'user' as const, content: 'second' },
          { id: 'r2:0:0', role: 'user' as const, content: 'second again' },
          { id: 'r2:0:1', role: 'user' as const, content: 'third' },
        ];
        await transactionOnLent(stepRecords, async (connection) => {
          expect(await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active')).toMatchObject({ ok: true });
          const runAhead = await resolvesUnanswered(connection, () => stepRecords.createRunOn(connection, sessionId, run('r2', 'r1'), hints));
          expect(runAhead, 'createRunOn with expectedTurn waited for an answer').toBe(true);
          const messagesAhead = await resolvesUnanswered(connection, () => stepRecords.appendMessagesOn(connection, sessionId, messages, hints));
          expect(messagesAhead, 'appendMessagesOn with totalUnread waited for an answer').toBe(true);
          await stepRecords.saveStateOn(connection, sessionId, { stepCount: 0 });
        });
        expect(await store.getCurrentRun(sessionId)).toMatchObject({ runId: 'r2', turn: 2, previousRunId: 'r1', status: 'running' });
        const stored = (await store.getMessages(sessionId)).messages.map(({ id, sequence, content }) => ({ id, sequence, content }));
        expect(stored).toEqual([
          { id: 'm1', sequence: 1, content: 'first' },
          { id: 'm2', sequence: 2, content: 'answer' },
          { id: 'r2:0:0', sequence: 3, content: 'second' },
          { id: 'r2:0:1', sequence: 4, content: 'third' },
        ]);
        expect(await store.getMessageCount(sessionId)).toBe(4);
        // Repeated (the run stored at that turn, the messages stored): nothing changes.
        await transactionOnLent(stepRecords, async (connection) => {
          await stepRecords.createRunOn(connection, sessionId, { ...run('r2', 'r1'), startedAt: 2 }, hints);
          await stepRecords.appendMessagesOn(connection, sessionId, messages, hints);
        });
        expect(await store.getCurrentRun(sessionId), 'after a repeated start').toMatchObject({ runId: 'r2', turn: 2, startedAt: 1 });
        expect(await store.getMessageCount(sessionId), 'after a repeated start').toBe(4);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords start hints: a stale expectedTurn fails the start with INVALID_ARGUMENT, an unknown session’s append with totalUnread with SESSION_NOT_FOUND, leaving nothing',
      run: async (subject) => {
        const stepRecords = lentStepRecords(subject);
        if (stepRecords === undefined) return;
        const { store } = stateStoreOf(subject);
        const sessionId = await completedSession(store, 'refused');
        const hints = { sessionLocked: true, totalUnread: true };
        const stale = transactionOnLent(stepRecords, async (connection) => {
          await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active');
          await stepRecords.createRunOn(connection, sessionId, run('r2', 'r1'), { ...hints, expectedTurn: 3 });
          await stepRecords.appendMessagesOn(connection, sessionId, [{ id: 'r2:0:0', role: 'user', content: 'second' }], hints);
          await stepRecords.saveStateOn(connection, sessionId, { stepCount: 0 });
        });
        await expect(stale, 'a stale expected turn').rejects.toMatchObject({ code: 'INVALID_ARGUMENT', data: { field: 'expectedTurn' } });
        const unknown = transactionOnLent(stepRecords, async (connection) => {
          await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active');
          await stepRecords.appendMessagesOn(connection, `${sessionId}-unknown`, [{ id: 'x:0:0', role: 'user', content: 'lost' }], hints);
          await stepRecords.saveStateOn(connection, sessionId, { stepCount: 0 });
        });
        await expect(unknown, 'an unknown session’s append').rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
        expect(await store.loadState(sessionId), 'after the refused starts').toMatchObject({ status: 'completed' });
        expect(await store.getCurrentRun(sessionId), 'after the refused starts').toMatchObject({ runId: 'r1', turn: 1 });
        expect(await store.getMessageCount(sessionId), 'after the refused starts').toBe(2);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords start hints: a swap with answerUnread and a locked state write are sent ahead; the swap clears the interrupt flag with clearsInterrupt; all commit whole',
      run: async (subject) => {
        const stepRecords = lentStepRecords(subject);
        if (stepRecords === undefined) return;
        const { store } = stateStoreOf(subject);
        const sessionId = await completedSession(store, 'swap');
        await store.setInterruptFlag(sessionId, 'stop');
        const { version } = (await store.loadState(sessionId)) ?? { version: 0 };
        await transactionOnLent(stepRecords, async (connection) => {
          let swapped: unknown;
          const swap = () => stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active', { expectedVersion: version }, UNREAD_SWAP);
          const swapAhead = await resolvesUnanswered(connection, async () => (swapped = await swap()));
          expect(swapAhead, 'compareAndSetStatusOn with answerUnread waited for an answer').toBe(true);
          expect(swapped).toEqual({ ok: true, newVersion: version + 1 });
          const writeAhead = await resolvesUnanswered(connection, () =>
            stepRecords.saveStateOn(connection, sessionId, { stepCount: 0, customState: { turn: 2 } }, { sessionLocked: true }),
          );
          expect(writeAhead, 'saveStateOn with sessionLocked waited for an answer').toBe(true);
        });
        const state = await store.loadState(sessionId);
        expect(state).toMatchObject({ status: 'active', stepCount: 0, customState: { turn: 2 }, version: version + 2 });
        expect(await store.isInterruptRequested(sessionId), 'the flag, cleared with the swap').toBe(false);
        expect(await store.getMessageCount(sessionId), 'a locked state write keeps the message count').toBe(2);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords start hints: a lost swap sent ahead fails the start with STALE_STATE, a locked state write of an unknown session with SESSION_NOT_FOUND, leaving nothing',
      run: async (subject) => {
        const stepRecords = lentStepRecords(subject);
        if (stepRecords === undefined) return;
        const { store } = stateStoreOf(subject);
        const sessionId = await completedSession(store, 'lost-swap');
        await store.setInterruptFlag(sessionId, 'stop');
        const { version } = (await store.loadState(sessionId)) ?? { version: 0 };
        const lost = transactionOnLent(stepRecords, async (connection) => {
          await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active', { expectedVersion: version - 1 }, UNREAD_SWAP);
          await stepRecords.createRunOn(connection, sessionId, run('r2', 'r1'), { sessionLocked: true, expectedTurn: 2 });
          await stepRecords.saveStateOn(connection, sessionId, { stepCount: 0 }, { sessionLocked: true });
        });
        await expect(lost, 'a lost swap').rejects.toMatchObject({ code: 'STALE_STATE' });
        const unknown = transactionOnLent(stepRecords, async (connection) => {
          await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active', { expectedVersion: version }, UNREAD_SWAP);
          await stepRecords.saveStateOn(connection, `${sessionId}-unknown`, { stepCount: 0 }, { sessionLocked: true });
        });
        await expect(unknown, 'a locked state write of an unknown session').rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
        expect(await store.loadState(sessionId), 'after the refused starts').toMatchObject({ status: 'completed', version });
        expect(await store.isInterruptRequested(sessionId), 'after the refused starts').toBe(true);
        expect(await store.getCurrentRun(sessionId), 'after the refused starts').toMatchObject({ runId: 'r1', turn: 1 });
      },
    },
  ];
}

/** A start's swap that clears the interrupt flag and whose answer is read only at the transaction's end. */
const UNREAD_SWAP = { clearsInterrupt: true, answerUnread: true };
