import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { InternalError } from '../../../errors/index.js';
import { MAX_STORED_ID_BYTES } from '../../../store/validation.js';
import type { StepCommitOnConnection } from '../../../store/step-records.js';
import type { Message } from '../../../types/message.js';
import type { StepRecordConnection } from '../../../types/step-records.js';
import { badIds } from '../bad-ids.js';
import { createContractContext } from '../state-store-contract/context.js';
import type { StepRecordsContractCheck } from './check.js';
import { inTransaction, stateStoreOf, untouchableConnection, type StepRecordsContractSubject } from './subject.js';

const meta = (runId: string, step: number) => ({ checkpointId: `${runId}:${step}`, runId, stepCount: step });

/** An agent step's messages: the assistant's tool call and its result. */
function stepMessages(runId: string, step: number): Message[] {
  return [
    { id: `${runId}:${step}:0`, role: 'assistant', content: '', toolCalls: [{ id: `c${step}`, name: 'tool', arguments: {} }] },
    { id: `${runId}:${step}:1`, role: 'tool', toolCallId: `c${step}`, toolName: 'tool', content: { ok: true } },
  ];
}

/** A session with one staged write for step `r1:1` (`items` += 'a'); returns its id. */
async function sessionWithStagedStep(subject: StepRecordsContractSubject, label: string): Promise<string> {
  const { store } = stateStoreOf(subject);
  const sessionId = `${label}-${randomUUID()}`;
  await store.createSession(sessionId, { agentType: 'contract-agent', customState: { items: [] } });
  await store.stageChanges(sessionId, { stepId: 'r1:1', stagingKey: 'tool-a', patches: [{ op: 'add', path: '/items/-', value: 'a' }] });
  return sessionId;
}

/** Commit step r1:1 of `sessionId` through `stepRecords.commitStepOn` on `connection`. */
function commitStep(subject: StepRecordsContractSubject, connection: StepRecordConnection, sessionId: string): Promise<StepCommitOnConnection> {
  return stateStoreOf(subject).stepRecords.commitStepOn(connection, sessionId, { stepCount: 1 }, stepMessages('r1', 1), meta('r1', 1));
}

/**
 * Checks of `SessionStateStore.stepRecords`: the step commit on a caller's connection (nothing after ROLLBACK, once
 * after COMMIT, idempotent), the read for a step, and the store's id rules.
 *
 * @example
 * const checks = stateStoreChecks();
 */
export function stateStoreChecks(): StepRecordsContractCheck[] {
  return [
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords.commitStepOn inside BEGIN … ROLLBACK leaves nothing',
      run: async (subject) => {
        const context = createContractContext(() => stateStoreOf(subject).store);
        const snapshot = (sessionId: string): Promise<unknown> => context.snapshot(sessionId);
        const sessionId = await sessionWithStagedStep(subject, 'records-rollback');
        const before = await snapshot(sessionId);
        const result = await inTransaction(subject, 'ROLLBACK', (connection) => commitStep(subject, connection, sessionId));
        expect(result).toMatchObject({ newVersion: 2, checkpointId: 'r1:1' });
        expect(await snapshot(sessionId)).toEqual(before);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords.commitStepOn inside BEGIN … COMMIT is visible once, at COMMIT; repeated, it changes nothing',
      run: async (subject) => {
        const { store } = stateStoreOf(subject);
        const context = createContractContext(() => store);
        const snapshot = (sessionId: string): Promise<unknown> => context.snapshot(sessionId);
        const sessionId = await sessionWithStagedStep(subject, 'records-commit');
        const before = await snapshot(sessionId);
        const result = await inTransaction(subject, 'COMMIT', async (connection) => {
          const committed = await commitStep(subject, connection, sessionId);
          expect(await snapshot(sessionId), 'before COMMIT').toEqual(before);
          return committed;
        });
        result.onCommitted?.({});
        const state = await store.loadState(sessionId);
        expect(state).toMatchObject({ version: 2, stepCount: 1, checkpointId: 'r1:1', customState: { items: ['a'] } });
        expect(result).toMatchObject({ newVersion: 2, checkpointId: 'r1:1', report: { messageCount: 2, interruptRequested: false } });
        expect(result.report.state).toEqual(state);
        expect((await store.getMessages(sessionId)).messages.map((message) => [message.id, message.sequence])).toEqual([
          ['r1:1:0', 1],
          ['r1:1:1', 2],
        ]);
        expect((await store.listCheckpoints(sessionId)).map((checkpoint) => checkpoint.id)).toEqual(['r1:1']);
        expect(await store.getStagedChanges(sessionId)).toEqual([]);
        const after = await snapshot(sessionId);
        const again = await inTransaction(subject, 'COMMIT', (connection) => commitStep(subject, connection, sessionId));
        expect(again).toMatchObject({ newVersion: 2, checkpointId: 'r1:1' });
        expect(await snapshot(sessionId)).toEqual(after);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords.loadStateForStep returns what loadState returns',
      run: async (subject) => {
        const { store, stepRecords } = stateStoreOf(subject);
        const sessionId = await sessionWithStagedStep(subject, 'records-load');
        expect(await stepRecords.loadStateForStep(sessionId)).toEqual(await store.loadState(sessionId));
        await store.appendMessages(sessionId, [{ id: 'u1', role: 'user', content: 'go' }]);
        await store.saveState(sessionId, { customState: { items: ['replaced'] }, status: 'active' });
        expect(await stepRecords.loadStateForStep(sessionId)).toEqual(await store.loadState(sessionId));
        await inTransaction(subject, 'COMMIT', (connection) => commitStep(subject, connection, sessionId));
        expect(await stepRecords.loadStateForStep(sessionId)).toEqual(await store.loadState(sessionId));
        expect(await stepRecords.loadStateForStep(`records-unknown-${randomUUID()}`)).toBeNull();
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords.saveStateOn and updateRunStatusOn: nothing after ROLLBACK; at COMMIT what saveState and updateRunStatus write',
      run: async (subject) => {
        const { store, stepRecords } = stateStoreOf(subject);
        const sessionId = await sessionWithStagedStep(subject, 'records-finish');
        await store.createRun(sessionId, { runId: 'r1', status: 'running', stepCount: 0, startSequence: 0, startedAt: 1 });
        const finish = async (connection: StepRecordConnection): Promise<void> => {
          await stepRecords.saveStateOn(connection, sessionId, { status: 'completed', output: { done: true }, stepCount: 3 });
          await stepRecords.updateRunStatusOn(connection, sessionId, 'r1', 'completed', { stepCount: 3, completionReason: 'text_response', endedAt: 1 });
        };
        const before = { state: await store.loadState(sessionId), run: await store.getRun(sessionId, 'r1') };
        await inTransaction(subject, 'ROLLBACK', finish);
        expect({ state: await store.loadState(sessionId), run: await store.getRun(sessionId, 'r1') }, 'after ROLLBACK').toEqual(before);
        await inTransaction(subject, 'COMMIT', async (connection) => {
          await finish(connection);
          expect(await store.loadState(sessionId), 'before COMMIT').toEqual(before.state);
        });
        expect(await store.loadState(sessionId)).toMatchObject({ status: 'completed', output: { done: true }, stepCount: 3, version: 2 });
        expect(await store.getRun(sessionId, 'r1')).toMatchObject({ status: 'completed', stepCount: 3, completionReason: 'text_response', endedAt: 1 });
        const missing = inTransaction(subject, 'ROLLBACK', (connection) => stepRecords.updateRunStatusOn(connection, sessionId, 'r-unknown', 'completed'));
        await expect(missing, 'an unknown run').rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords.appendMessagesOn: nothing after ROLLBACK; at COMMIT the messages once, in order; again, nothing more',
      run: async (subject) => {
        const { store, stepRecords } = stateStoreOf(subject);
        const sessionId = await sessionWithStagedStep(subject, 'records-append');
        const messages: Message[] = [{ id: 'r1:0:0', role: 'user', content: 'go' }, ...stepMessages('r1', 1)];
        const ids = async (): Promise<string[]> => (await store.getMessages(sessionId)).messages.map((message) => message.id);
        await inTransaction(subject, 'ROLLBACK', (connection) => stepRecords.appendMessagesOn(connection, sessionId, messages));
        expect(await ids(), 'after ROLLBACK').toEqual([]);
        const total = await inTransaction(subject, 'COMMIT', async (connection) => {
          const appended = await stepRecords.appendMessagesOn(connection, sessionId, messages);
          expect(await ids(), 'before COMMIT').toEqual([]);
          return appended;
        });
        expect(total).toBe(3);
        expect(await ids()).toEqual(['r1:0:0', 'r1:1:0', 'r1:1:1']);
        expect(await inTransaction(subject, 'COMMIT', (connection) => stepRecords.appendMessagesOn(connection, sessionId, messages))).toBe(3);
        expect(await store.getMessageCount(sessionId)).toBe(3);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords.transaction: a run’s start (createSessionOn, compareAndSetStatusOn, clearInterruptFlagOn, createRunOn) commits when it resolves, nothing when it throws',
      run: async (subject) => {
        const { store, stepRecords } = stateStoreOf(subject);
        const sessionId = `records-start-${randomUUID()}`;
        const run = (runId: string) => ({ runId, status: 'running' as const, stepCount: 0, startSequence: 0, startedAt: 1 });
        const failed = stepRecords.transaction(async (connection) => {
          await stepRecords.createSessionOn(connection, sessionId, { agentType: 'contract-agent', status: 'active' });
          await stepRecords.createRunOn(connection, sessionId, run('r1'));
          throw new InternalError('the start fails');
        });
        await expect(failed).rejects.toThrow('the start fails');
        expect(await store.loadState(sessionId), 'after a throw').toBeNull();
        await stepRecords.transaction(async (connection) => {
          await stepRecords.createSessionOn(connection, sessionId, { agentType: 'contract-agent', status: 'active' });
          await stepRecords.createRunOn(connection, sessionId, run('r1'));
          expect(await store.loadState(sessionId), 'before it resolves').toBeNull();
        });
        expect(await store.getCurrentRun(sessionId)).toMatchObject({ runId: 'r1', turn: 1 });
        await store.saveState(sessionId, { status: 'completed' });
        await store.setInterruptFlag(sessionId, 'stop');
        const version = (await store.loadState(sessionId))?.version;
        const stale = await stepRecords.transaction((connection) => stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active', { expectedVersion: 0 }));
        expect(stale, 'a stale version').toMatchObject({ ok: false, currentStatus: 'completed' });
        await stepRecords.transaction(async (connection) => {
          expect(await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active', { expectedVersion: version })).toMatchObject({ ok: true });
          await stepRecords.clearInterruptFlagOn(connection, sessionId);
          await stepRecords.createRunOn(connection, sessionId, { ...run('r2'), previousRunId: 'r1' });
        });
        expect(await store.loadState(sessionId)).toMatchObject({ status: 'active' });
        expect(await store.isInterruptRequested(sessionId)).toBe(false);
        expect(await store.getCurrentRun(sessionId)).toMatchObject({ runId: 'r2', turn: 2, previousRunId: 'r1' });
        const again = stepRecords.transaction((connection) => stepRecords.createSessionOn(connection, sessionId, { agentType: 'contract-agent' }));
        await expect(again, 'a session that exists').rejects.toMatchObject({ code: 'SESSION_ALREADY_EXISTS' });
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords: a start in the transaction that created its session (sessionCreatedHere) records turn 1 and each message id once, from sequence 1',
      run: async (subject) => {
        const { store, stepRecords } = stateStoreOf(subject);
        const sessionId = `records-created-${randomUUID()}`;
        const here = { sessionCreatedHere: true };
        await stepRecords.transaction(async (connection) => {
          await stepRecords.createSessionOn(connection, sessionId, { agentType: 'contract-agent', status: 'active' });
          await stepRecords.createRunOn(connection, sessionId, { runId: 'r1', status: 'running', stepCount: 0, startSequence: 0, startedAt: 1 }, here);
          const messages: Message[] = [{ id: 'r1:0:0', role: 'user', content: 'go' }, { id: 'r1:0:0', role: 'user', content: 'twice' }, { role: 'user', content: 'no id' }];
          expect(await stepRecords.appendMessagesOn(connection, sessionId, messages, here)).toBe(2);
        });
        expect(await store.getCurrentRun(sessionId)).toMatchObject({ runId: 'r1', turn: 1, status: 'running' });
        const stored = (await store.getMessages(sessionId)).messages;
        expect(stored.map((message) => [message.sequence, message.content])).toEqual([
          [1, 'go'],
          [2, 'no id'],
        ]);
        expect(await store.getMessageCount(sessionId)).toBe(2);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords: a start whose transaction holds the session row (sessionLocked) records the next turn and skips the ids the session has',
      run: async (subject) => {
        const { store, stepRecords } = stateStoreOf(subject);
        const sessionId = `records-locked-${randomUUID()}`;
        await store.createSession(sessionId, { agentType: 'contract-agent', status: 'completed' });
        await store.createRun(sessionId, { runId: 'r1', status: 'completed', stepCount: 1, startSequence: 0, startedAt: 1 });
        await store.appendMessages(sessionId, [{ id: 'r1:0:0', role: 'user', content: 'first' }]);
        const locked = { sessionLocked: true };
        await stepRecords.transaction(async (connection) => {
          expect(await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active')).toMatchObject({ ok: true });
          await stepRecords.createRunOn(connection, sessionId, { runId: 'r2', status: 'running', stepCount: 0, startSequence: 0, startedAt: 2 }, locked);
          const messages: Message[] = [{ id: 'r1:0:0', role: 'user', content: 'again' }, { id: 'r2:0:0', role: 'user', content: 'second' }];
          expect(await stepRecords.appendMessagesOn(connection, sessionId, messages, locked)).toBe(2);
        });
        expect(await store.getCurrentRun(sessionId)).toMatchObject({ runId: 'r2', turn: 2 });
        const stored = (await store.getMessages(sessionId)).messages;
        expect(stored.map((message) => [message.sequence, message.id, message.content])).toEqual([
          [1, 'r1:0:0', 'first'],
          [2, 'r2:0:0', 'second'],
        ]);
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords refuses bad ids with INVALID_ARGUMENT before using the connection',
      run: async (subject) => {
        const { stepRecords } = stateStoreOf(subject);
        const connection = untouchableConnection();
        const good = `records-ids-${randomUUID()}`;
        for (const [label, bad] of badIds(good, MAX_STORED_ID_BYTES)) {
          const refuse = async (promise: Promise<unknown>, what: string): Promise<void> => {
            const outcome = await promise.then(
              () => 'accepted',
              (error: unknown) => error,
            );
            expect(outcome, `${what} with the ${label} id`).toMatchObject({ code: 'INVALID_ARGUMENT' });
          };
          await refuse(stepRecords.loadStateForStep(bad), 'loadStateForStep');
          await refuse(stepRecords.commitStepOn(connection, bad, { stepCount: 1 }, [], meta('r1', 1)), 'commitStepOn (session id)');
          await refuse(stepRecords.commitStepOn(connection, good, { stepCount: 1 }, [], { checkpointId: bad, runId: 'r1', stepCount: 1 }), 'commitStepOn (checkpoint id)');
          await refuse(stepRecords.commitStepOn(connection, good, { stepCount: 1 }, [{ id: bad, role: 'user', content: 'x' }], meta('r1', 1)), 'commitStepOn (message id)');
          await refuse(stepRecords.saveStateOn(connection, bad, { status: 'completed' }), 'saveStateOn');
          await refuse(stepRecords.createSessionOn(connection, bad, { agentType: 'contract-agent' }), 'createSessionOn');
          await refuse(stepRecords.compareAndSetStatusOn(connection, bad, ['completed'], 'active'), 'compareAndSetStatusOn');
          await refuse(stepRecords.clearInterruptFlagOn(connection, bad), 'clearInterruptFlagOn');
          await refuse(stepRecords.createRunOn(connection, good, { runId: bad, status: 'running', stepCount: 0, startSequence: 0, startedAt: 1 }), 'createRunOn (run id)');
          await refuse(stepRecords.appendMessagesOn(connection, good, [{ id: bad, role: 'user', content: 'x' }]), 'appendMessagesOn (message id)');
          await refuse(stepRecords.updateRunStatusOn(connection, good, bad, 'completed'), 'updateRunStatusOn (run id)');
        }
        expect(connection.queries, 'statements on the connection').toBe(0);
      },
    },
  ];
}
