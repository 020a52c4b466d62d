import { describe, expect, it } from 'vitest';
import { StaleStateError } from '../../../errors/index.js';
import type { Message } from '../../../types/message.js';
import { race, type ContractContext } from './context.js';

const meta = (runId: string, step: number) => ({ checkpointId: `${runId}:${step}`, runId, stepCount: step });

/**
 * Contract: `saveStateAndPromoteStaging`, the all-or-nothing step commit.
 *
 * @example
 * defineCommitContract(context);
 */
export function defineCommitContract(context: ContractContext): void {
  describe('saveStateAndPromoteStaging', () => {
    it('writes state, promotes the step staging (appends compose), appends messages and checkpoints', async () => {
      const { sessionId: id } = await context.createSession('commit', { customState: { items: ['base'], title: 'old' } });
      await context.store.appendMessages(id, [{ id: 'u1', role: 'user', content: 'go' }]);
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'tool-a', patches: [{ op: 'add', path: '/items/-', value: 'a' }, { op: 'replace', path: '/title', value: 'A' }] });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'tool-b', patches: [{ op: 'add', path: '/items/-', value: 'b' }, { op: 'replace', path: '/title', value: 'B' }] });
      await context.store.stageChanges(id, { stepId: 'r1:2', stagingKey: 'later', patches: [{ op: 'add', path: '/later', value: true }] });
      const messages: Message[] = [
        { id: 'r1:1:0', role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'tool', arguments: {} }] },
        { id: 'r1:1:1', role: 'tool', toolCallId: 'c1', toolName: 'tool', content: { ok: true } },
      ];
      const result = await context.store.saveStateAndPromoteStaging(id, { stepCount: 1, status: 'active' }, messages, meta('r1', 1), { expectedVersion: 1 });
      expect(result).toMatchObject({ newVersion: 2, checkpointId: 'r1:1' });
      const state = await context.store.loadState(id);
      expect(state).toMatchObject({ stepCount: 1, version: 2, checkpointId: 'r1:1', customState: { items: ['base', 'a', 'b'], title: 'B' } });
      // A store that reports the commit reports what a read returns afterwards.
      if (result.report !== undefined) {
        expect(result.report.state).toEqual(state);
        expect(result.report).toMatchObject({ messageCount: 3, interruptRequested: false });
        expect(result.report.appended).toEqual((await context.store.getMessages(id, { offset: 1 })).messages);
      }
      expect((await context.store.getMessages(id)).messages.map((message) => [message.id, message.sequence])).toEqual([
        ['u1', 1],
        ['r1:1:0', 2],
        ['r1:1:1', 3],
      ]);
      expect(await context.store.getLatestCheckpoint(id)).toMatchObject({
        id: 'r1:1',
        runId: 'r1',
        stepCount: 1,
        messageCount: 3,
        customState: { items: ['base', 'a', 'b'], title: 'B' },
      });
      expect((await context.store.getStagedChanges(id)).map((row) => row.stepId)).toEqual(['r1:2']);
    });

    it('re-committing an existing checkpoint id is a no-op returning the current version', async () => {
      const { sessionId: id } = await context.createSession('recommit');
      const messages: Message[] = [{ id: 'r1:1:0', role: 'assistant', content: 'hi' }];
      await context.store.saveStateAndPromoteStaging(id, { stepCount: 1 }, messages, meta('r1', 1), { expectedVersion: 1 });
      await context.store.saveState(id, { stepCount: 1 });
      const before = await context.snapshot(id);
      const again = await context.store.saveStateAndPromoteStaging(id, { stepCount: 7 }, [...messages, { id: 'x', role: 'user', content: 'x' }], meta('r1', 1), {
        expectedVersion: 1,
      });
      expect(again).toMatchObject({ newVersion: 3, checkpointId: 'r1:1' });
      if (again.report !== undefined) expect(again.report).toMatchObject({ appended: [], messageCount: 1, state: { version: 3, stepCount: 1 } });
      expect(await context.snapshot(id)).toEqual(before);
    });

    it('a stale expectedVersion throws StaleStateError and writes nothing', async () => {
      const { sessionId: id } = await context.createSession('commit-stale', { customState: { n: 0 } });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'k', patches: [{ op: 'replace', path: '/n', value: 1 }] });
      await context.store.saveState(id, { stepCount: 0 });
      const before = await context.snapshot(id);
      const error = await context.store
        .saveStateAndPromoteStaging(id, { stepCount: 1 }, [{ role: 'assistant', content: 'x' }], meta('r1', 1), { expectedVersion: 1 })
        .catch((caught: unknown) => caught);
      expect(StaleStateError.isInstance(error)).toBe(true);
      expect(await context.snapshot(id)).toEqual(before);
    });

    it('a message that is not JSON (BigInt) rejects the whole commit: nothing is written', async () => {
      const { sessionId: id } = await context.createSession('commit-bigint', { customState: { n: 0 } });
      await context.store.appendMessages(id, [{ id: 'u1', role: 'user', content: 'go' }]);
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'k', patches: [{ op: 'replace', path: '/n', value: 1 }] });
      const before = await context.snapshot(id);
      const messages = [
        { id: 'ok', role: 'assistant', content: 'fine' },
        { id: 'bad', role: 'tool', toolCallId: 'c', toolName: 't', content: { big: 10n } },
      ] as Message[];
      await expect(context.store.saveStateAndPromoteStaging(id, { stepCount: 1 }, messages, meta('r1', 1), { expectedVersion: 1 })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
      expect(await context.snapshot(id)).toEqual(before);
      expect((before as { staging: unknown[] }).staging).toHaveLength(1);
    });

    it('a staged patch that fails (a failed test operation) rejects the whole commit: nothing is written', async () => {
      const { sessionId: id } = await context.createSession('commit-bad-patch', { customState: { n: 0 } });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'a', patches: [{ op: 'replace', path: '/n', value: 1 }] });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'b', patches: [{ op: 'test', path: '/n', value: 99 }] });
      const before = await context.snapshot(id);
      await expect(
        context.store.saveStateAndPromoteStaging(id, { stepCount: 1 }, [{ role: 'assistant', content: 'x' }], meta('r1', 1)),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await context.snapshot(id)).toEqual(before);
    });

    it('skips a staged operation whose target a parallel tool already removed', async () => {
      const { sessionId: id } = await context.createSession('commit-conflict', { customState: { draft: 'x', kept: 1 } });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'a', patches: [{ op: 'remove', path: '/draft' }] });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'b', patches: [{ op: 'remove', path: '/draft' }, { op: 'add', path: '/b', value: true }] });
      await context.store.saveStateAndPromoteStaging(id, {}, [], meta('r1', 1));
      expect((await context.store.loadState(id))?.customState).toEqual({ kept: 1, b: true });
    });

    it('promotes the staging of options.stepId when given', async () => {
      const { sessionId: id } = await context.createSession('commit-step-id', { customState: {} });
      await context.store.stageChanges(id, { stepId: 'tool-step', stagingKey: 'k', patches: [{ op: 'add', path: '/done', value: true }] });
      await context.store.saveStateAndPromoteStaging(id, {}, [], meta('r1', 1), { stepId: 'tool-step' });
      expect((await context.store.loadState(id))?.customState).toEqual({ done: true });
      expect(await context.store.hasStagedChanges(id)).toBe(false);
    });

    it('of concurrent commits at one expectedVersion exactly one wins; the others are stale', async () => {
      const { sessionId: id } = await context.createSession('commit-race');
      const { fulfilled, rejected } = await race(10, (index) =>
        context.store.saveStateAndPromoteStaging(id, { stepCount: 1 }, [{ id: `m${index}`, role: 'assistant', content: `${index}` }], meta(`r${index}`, 1), {
          expectedVersion: 1,
        }),
      );
      expect(fulfilled).toHaveLength(1);
      expect(rejected.every((error) => StaleStateError.isInstance(error))).toBe(true);
      expect(await context.store.getMessageCount(id)).toBe(1);
      expect(await context.store.listCheckpoints(id)).toHaveLength(1);
    });

    it('throws SessionNotFoundError for an unknown session', async () => {
      await expect(context.store.saveStateAndPromoteStaging(context.sessionId('missing'), {}, [], meta('r1', 1))).rejects.toMatchObject({
        code: 'SESSION_NOT_FOUND',
      });
    });
  });
}
