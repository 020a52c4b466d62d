import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../errors/index.js';
import type { SessionStateStore } from '../../../store/state-store.js';
import type { SubSessionRef } from '../../../types/session.js';
import { runInput, type ContractContext } from './context.js';
import { badIds } from '../bad-ids.js';

/** The id kinds a store method takes. */
type IdKind = 'sessionId' | 'linkedSessionId' | 'runId' | 'checkpointId' | 'messageId';

/** The ids one call uses; one of them is the bad id under test. */
type Ids = Record<IdKind, string>;

/** The longest id (UTF-8 bytes) a store accepts: twice a caller's session id, room for the ids the runtime derives. */
const MAX_STORED_ID_BYTES = 2_048;

const ref = (subSessionId: string): SubSessionRef => ({ subSessionId, agentType: 'child', parentToolCallId: 't1', mode: 'ephemeral', status: 'running', startedAt: 1 });

/** Every SessionStateStore method that takes an id, with the kinds of id it takes. */
const CALLS: ReadonlyArray<[string, readonly IdKind[], (store: SessionStateStore, ids: Ids) => Promise<unknown>]> = [
  ['createSession', ['sessionId'], (store, ids) => store.createSession(ids.sessionId, { agentType: 'a' })],
  ['createSession (links)', ['linkedSessionId'], (store, ids) => store.createSession(`${ids.sessionId}-fresh`, { agentType: 'a', streamId: ids.linkedSessionId, parentSessionId: ids.linkedSessionId, rootSessionId: ids.linkedSessionId })],
  ['sessionExists', ['sessionId'], (store, ids) => store.sessionExists(ids.sessionId)],
  ['deleteSession', ['sessionId'], (store, ids) => store.deleteSession(ids.sessionId)],
  ['cloneSession', ['sessionId', 'linkedSessionId', 'checkpointId'], (store, ids) => store.cloneSession(ids.sessionId, ids.linkedSessionId, { checkpointId: ids.checkpointId })],
  ['loadState', ['sessionId'], (store, ids) => store.loadState(ids.sessionId)],
  ['saveState', ['sessionId', 'linkedSessionId', 'checkpointId'], (store, ids) => store.saveState(ids.sessionId, { streamId: ids.linkedSessionId, checkpointId: ids.checkpointId })],
  ['mergeCustomState', ['sessionId'], (store, ids) => store.mergeCustomState(ids.sessionId, [{ op: 'add', path: '/x', value: 1 }])],
  ['updateStatus', ['sessionId'], (store, ids) => store.updateStatus(ids.sessionId, 'failed')],
  ['compareAndSetStatus', ['sessionId'], (store, ids) => store.compareAndSetStatus(ids.sessionId, ['active'], 'failed')],
  [
    'saveStateAndPromoteStaging',
    ['sessionId', 'runId', 'checkpointId', 'messageId'],
    (store, ids) =>
      store.saveStateAndPromoteStaging(ids.sessionId, { stepCount: 1 }, [{ id: ids.messageId, role: 'user', content: 'x' }], { checkpointId: ids.checkpointId, runId: ids.runId, stepCount: 1 }, { stepId: ids.checkpointId }),
  ],
  ['incrementStepCount', ['sessionId'], (store, ids) => store.incrementStepCount(ids.sessionId)],
  ['incrementResumeCount', ['sessionId'], (store, ids) => store.incrementResumeCount(ids.sessionId)],
  ['patchMetadata', ['sessionId'], (store, ids) => store.patchMetadata(ids.sessionId, { key: 'value' })],
  ['setInterruptFlag', ['sessionId'], (store, ids) => store.setInterruptFlag(ids.sessionId, 'stop')],
  ['checkInterruptFlag', ['sessionId'], (store, ids) => store.checkInterruptFlag(ids.sessionId)],
  ['isInterruptRequested', ['sessionId'], (store, ids) => store.isInterruptRequested(ids.sessionId)],
  ['clearInterruptFlag', ['sessionId'], (store, ids) => store.clearInterruptFlag(ids.sessionId)],
  ['appendMessages', ['sessionId', 'messageId'], (store, ids) => store.appendMessages(ids.sessionId, [{ id: ids.messageId, role: 'user', content: 'x' }])],
  ['getMessages', ['sessionId'], (store, ids) => store.getMessages(ids.sessionId)],
  ['getMessageCount', ['sessionId'], (store, ids) => store.getMessageCount(ids.sessionId)],
  ['truncateMessages', ['sessionId'], (store, ids) => store.truncateMessages(ids.sessionId, 0)],
  ['createRun', ['sessionId', 'runId'], (store, ids) => store.createRun(ids.sessionId, runInput(ids.runId, { previousRunId: ids.runId }))],
  ['updateRunStatus', ['sessionId', 'runId'], (store, ids) => store.updateRunStatus(ids.sessionId, ids.runId, 'failed')],
  ['getCurrentRun', ['sessionId'], (store, ids) => store.getCurrentRun(ids.sessionId)],
  ['listRuns', ['sessionId'], (store, ids) => store.listRuns(ids.sessionId)],
  ['getRun', ['sessionId', 'runId'], (store, ids) => store.getRun(ids.sessionId, ids.runId)],
  ['createCheckpoint', ['sessionId', 'runId', 'checkpointId'], (store, ids) => store.createCheckpoint(ids.sessionId, { checkpointId: ids.checkpointId, runId: ids.runId, stepCount: 1 })],
  ['getLatestCheckpoint', ['sessionId'], (store, ids) => store.getLatestCheckpoint(ids.sessionId)],
  ['getCheckpoint', ['sessionId', 'checkpointId'], (store, ids) => store.getCheckpoint(ids.sessionId, ids.checkpointId)],
  ['listCheckpoints', ['sessionId'], (store, ids) => store.listCheckpoints(ids.sessionId)],
  ['addSubSessionRefs', ['sessionId', 'linkedSessionId'], (store, ids) => store.addSubSessionRefs(ids.sessionId, [ref(ids.linkedSessionId)])],
  ['updateSubSessionRef', ['sessionId', 'linkedSessionId'], (store, ids) => store.updateSubSessionRef(ids.sessionId, ids.linkedSessionId, { status: 'failed' })],
  ['getSubSessionRefs', ['sessionId'], (store, ids) => store.getSubSessionRefs(ids.sessionId)],
  ['stageChanges', ['sessionId', 'checkpointId'], (store, ids) => store.stageChanges(ids.sessionId, { stepId: ids.checkpointId, stagingKey: 'k', patches: [] })],
  ['getStagedChanges', ['sessionId', 'checkpointId'], (store, ids) => store.getStagedChanges(ids.sessionId, ids.checkpointId)],
  ['promoteStaging', ['sessionId', 'checkpointId'], (store, ids) => store.promoteStaging(ids.sessionId, ids.checkpointId)],
  ['discardStaging', ['sessionId', 'checkpointId'], (store, ids) => store.discardStaging(ids.sessionId, ids.checkpointId)],
  ['hasStagedChanges', ['sessionId', 'checkpointId'], (store, ids) => store.hasStagedChanges(ids.sessionId, ids.checkpointId)],
  ['cleanupOrphanedStaging', ['sessionId', 'checkpointId'], (store, ids) => store.cleanupOrphanedStaging(ids.sessionId, ids.checkpointId)],
];

/**
 * Contract: ids. Every method refuses an empty, NUL- or control-character, not well-formed or over-long session,
 * run, checkpoint (step), message or linked session id with InvalidArgumentError (`INVALID_ARGUMENT`) that does not
 * echo it, before anything is read or written; ids of up to 2,048 bytes of UTF-8 work.
 *
 * @example
 * defineIdContract(context);
 */
export function defineIdContract(context: ContractContext): void {
  describe('ids', () => {
    it('every method refuses a bad id of every kind with INVALID_ARGUMENT, and what is stored stays as it was', async () => {
      const { sessionId } = await context.createSession('ids');
      const good: Ids = { sessionId, linkedSessionId: `${sessionId}-sub-t1`, runId: 'run-1', checkpointId: 'run-1:1', messageId: 'run-1:0:0' };
      await context.store.appendMessages(sessionId, [{ id: good.messageId, role: 'user', content: 'kept' }]);
      await context.store.createRun(sessionId, runInput(good.runId));
      await context.store.createCheckpoint(sessionId, { checkpointId: good.checkpointId, runId: good.runId, stepCount: 1 });
      await context.store.addSubSessionRefs(sessionId, [ref(good.linkedSessionId)]);
      await context.store.stageChanges(sessionId, { stepId: 'run-1:2', stagingKey: 'k', patches: [{ op: 'add', path: '/kept', value: true }] });
      const before = await context.snapshot(sessionId);
      const accepted: string[] = [];
      for (const kind of ['sessionId', 'linkedSessionId', 'runId', 'checkpointId', 'messageId'] as const) {
        for (const [label, bad] of badIds(good[kind], MAX_STORED_ID_BYTES)) {
          for (const [name, uses, call] of CALLS.filter(([, uses]) => uses.includes(kind))) {
            const failure = await call(context.store, { ...good, [kind]: bad }).then(
              () => undefined,
              (error: unknown) => error,
            );
            if (!InvalidArgumentError.isInstance(failure) || failure.code !== 'INVALID_ARGUMENT') accepted.push(`${name} (${uses.join(', ')}) with a ${label} ${kind}`);
            else if (bad.length > 0) expect(JSON.stringify({ message: failure.message, data: failure.data })).not.toContain(bad);
          }
        }
      }
      expect(accepted).toEqual([]);
      expect(await context.snapshot(sessionId)).toEqual(before);
      expect(await context.store.sessionExists(`${sessionId}-sub-t1`)).toBe(false);
    });

    it('works with ids of up to 2,048 bytes of UTF-8', async () => {
      const prefix = `${context.sessionId('long-id')}-${'é'.repeat(300)}`; // multi-byte: bytes count, not characters
      const sessionId = prefix + 'x'.repeat(MAX_STORED_ID_BYTES - Buffer.byteLength(prefix));
      expect(Buffer.byteLength(sessionId)).toBe(MAX_STORED_ID_BYTES);
      await context.store.createSession(sessionId, { agentType: 'a', streamId: sessionId });
      await context.store.appendMessages(sessionId, [{ id: 'run-1:0:0', role: 'user', content: 'hi' }]);
      await context.store.createRun(sessionId, runInput('run-1'));
      await context.store.createCheckpoint(sessionId, { checkpointId: 'run-1:1', runId: 'run-1', stepCount: 1 });
      expect(await context.store.loadState(sessionId)).toMatchObject({ sessionId, streamId: sessionId, checkpointId: 'run-1:1' });
      expect((await context.store.getMessages(sessionId)).total).toBe(1);
      await context.store.deleteSession(sessionId);
      expect(await context.store.sessionExists(sessionId)).toBe(false);
    });
  });
}
