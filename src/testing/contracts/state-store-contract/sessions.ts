import { describe, expect, it } from 'vitest';
import { SessionAlreadyExistsError } from '../../../errors/index.js';
import { expectCode, pendingCall, race, runInput, type ContractContext } from './context.js';

/**
 * Contract: session lifecycle (create, exists, delete, clone), exactly-one-wins creation, unusual ids.
 *
 * @example
 * defineSessionContract(context);
 */
export function defineSessionContract(context: ContractContext): void {
  describe('sessions', () => {
    it('lists root sessions finished before a time, oldest first (retention)', async () => {
      const before = Date.now() - 1;
      const done = await context.createSession('finished-done', { status: 'completed' });
      const failed = await context.createSession('finished-failed', { status: 'failed' });
      const live = await context.createSession('finished-live', { status: 'active' });
      const child = await context.createSession('finished-child', { status: 'completed', parentSessionId: done.sessionId, rootSessionId: done.sessionId });
      const mine = new Set([done.sessionId, failed.sessionId, live.sessionId, child.sessionId]);
      const listed = (await context.store.listFinishedSessions(Date.now() + 1_000, { limit: 1_000 })).filter((entry) => mine.has(entry.sessionId));
      expect(listed).toEqual([
        { sessionId: done.sessionId, streamId: done.streamId ?? done.sessionId },
        { sessionId: failed.sessionId, streamId: failed.streamId ?? failed.sessionId },
      ]);
      expect((await context.store.listFinishedSessions(before, { limit: 1_000 })).filter((entry) => mine.has(entry.sessionId))).toEqual([]);
      await expectCode(context.store.listFinishedSessions(Date.now(), { limit: 0 }), 'INVALID_ARGUMENT');
    });

    it('counts the active sessions that wait for a human answer (observability gauge)', async () => {
      const count = context.store.countSessionsAwaitingHumans?.bind(context.store);
      expect(count).toBeTypeOf('function'); // both shipped stores report it
      const before = await count!();
      const waiting = await context.createSession('awaiting-open', { status: 'active' });
      await context.store.saveState(waiting.sessionId, { pendingClientToolCalls: { a: pendingCall('a', 5), b: pendingCall('b') } });
      const answered = await context.createSession('awaiting-answered', { status: 'active' });
      await context.store.saveState(answered.sessionId, { pendingClientToolCalls: { a: pendingCall('a', 5) } });
      const ended = await context.createSession('awaiting-ended', { status: 'completed' });
      await context.store.saveState(ended.sessionId, { pendingClientToolCalls: { a: pendingCall('a') } });
      expect(await count!()).toBe(before + 1);
      await context.store.saveState(waiting.sessionId, { pendingClientToolCalls: { a: pendingCall('a', 5), b: pendingCall('b', 6) } });
      expect(await count!()).toBe(before);
    });

    it('creates a session at version 1 and loads it back', async () => {
      const id = context.sessionId('create');
      const created = await context.store.createSession(id, {
        agentType: 'assistant',
        customState: { notes: ['a'] },
        mode: 'standard',
        tags: ['t1'],
        metadata: { tenant: 'acme' },
        parentSessionId: 'parent-1',
        rootSessionId: 'root-1',
      });
      expect(created).toMatchObject({ sessionId: id, agentType: 'assistant', status: 'active', stepCount: 0, version: 1, resumeCount: 0 });
      expect(await context.store.loadState(id)).toEqual(created);
      expect(await context.store.sessionExists(id)).toBe(true);
      expect(await context.store.sessionExists(context.sessionId('absent'))).toBe(false);
      expect(await context.store.loadState(context.sessionId('absent'))).toBeNull();
    });

    it('copies values in and out: mutating inputs or results never changes the store', async () => {
      const id = context.sessionId('copies');
      const customState = { items: [1] };
      const created = await context.store.createSession(id, { agentType: 'a', customState });
      customState.items.push(2);
      created.customState.items.push(3);
      const loaded = await context.store.loadState<{ items: number[] }>(id);
      loaded?.customState.items.push(4);
      expect((await context.store.loadState(id))?.customState).toEqual({ items: [1] });
    });

    it('rejects a second createSession with SessionAlreadyExistsError', async () => {
      const state = await context.createSession('duplicate');
      const error = await context.store.createSession(state.sessionId, { agentType: 'other' }).catch((caught: unknown) => caught);
      expect(SessionAlreadyExistsError.isInstance(error)).toBe(true);
      expect((await context.store.loadState(state.sessionId))?.agentType).toBe('contract-agent');
    });

    it('lets exactly one of 20 concurrent createSession calls win', async () => {
      const id = context.sessionId('race');
      const { fulfilled, rejected } = await race(20, (index) => context.store.createSession(id, { agentType: `agent-${index}` }));
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(19);
      expect(rejected.every((error) => SessionAlreadyExistsError.isInstance(error))).toBe(true);
      expect((await context.store.loadState(id))?.agentType).toBe(fulfilled[0]?.agentType);
    });

    it('accepts a 1 KB session id with quotes, backslashes and unicode', async () => {
      const base = `it's "quoted" \\ ünïcødé 🚀 ; DROP TABLE x; -- `;
      const id = (base + 'x'.repeat(1024)).slice(0, 1024);
      await context.store.deleteSession(id);
      await context.store.createSession(id, { agentType: 'a', customState: { label: base } });
      await context.store.appendMessages(id, [{ role: 'user', content: base }]);
      await context.store.createCheckpoint(id, { checkpointId: `${id}:1`, runId: 'r1', stepCount: 1 });
      expect((await context.store.loadState(id))?.sessionId).toBe(id);
      expect((await context.store.getMessages(id)).messages[0]?.content).toBe(base);
      expect((await context.store.getLatestCheckpoint(id))?.id).toBe(`${id}:1`);
      await context.store.deleteSession(id);
      expect(await context.store.sessionExists(id)).toBe(false);
    });

    it('deleteSession removes the session and everything it owns; deleting again is a no-op', async () => {
      const { sessionId: id } = await context.createSession('delete');
      await context.store.appendMessages(id, [{ role: 'user', content: 'hi' }]);
      await context.store.createRun(id, runInput('r1'));
      await context.store.createCheckpoint(id, { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 });
      await context.store.stageChanges(id, { stepId: 'r1:2', stagingKey: 'k', patches: [{ op: 'add', path: '/a', value: 1 }] });
      await context.store.addSubSessionRefs(id, [
        { subSessionId: `${id}-sub`, agentType: 'c', parentToolCallId: 't', mode: 'ephemeral', status: 'running', startedAt: 1 },
      ]);
      await context.store.setInterruptFlag(id, 'stop');
      await context.store.deleteSession(id);
      expect(await context.snapshot(id)).toEqual({
        state: null,
        messages: { messages: [], total: 0, hasMore: false },
        checkpoints: [],
        latest: null,
        staging: [],
        runs: { runs: [] },
        refs: [],
      });
      expect(await context.store.checkInterruptFlag(id)).toEqual({ interrupted: false });
      await context.store.deleteSession(id);
      // The id is free again, with nothing left over.
      await context.store.createSession(id, { agentType: 'a' });
      expect(await context.store.getMessageCount(id)).toBe(0);
    });

    it('cloneSession copies state and messages up to a checkpoint, plus that checkpoint', async () => {
      const { sessionId: source } = await context.createSession('clone-source', { customState: { n: 0 } });
      await context.store.appendMessages(source, [
        { id: 'm1', role: 'user', content: 'one' },
        { id: 'm2', role: 'assistant', content: 'two' },
      ]);
      await context.store.saveState(source, { customState: { n: 1 }, stepCount: 1 });
      await context.store.createCheckpoint(source, { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 });
      await context.store.appendMessages(source, [{ id: 'm3', role: 'user', content: 'three' }]);
      await context.store.saveState(source, { customState: { n: 2 }, stepCount: 2 });
      const target = context.sessionId('clone-target');
      const branch = await context.store.cloneSession(source, target, { checkpointId: 'r1:1', agentType: 'brancher' });
      expect(branch).toMatchObject({ sessionId: target, agentType: 'brancher', customState: { n: 1 }, stepCount: 1, version: 1, checkpointId: 'r1:1' });
      expect(await context.store.loadState(target)).toEqual(branch);
      const { messages, total } = await context.store.getMessages(target);
      expect(total).toBe(2);
      expect(messages.map((message) => [message.id, message.sequence])).toEqual([['m1', 1], ['m2', 2]]);
      expect((await context.store.getLatestCheckpoint(target))?.id).toBe('r1:1');
      // Branch and source evolve independently.
      expect(await context.store.appendMessages(target, [{ id: 'b3', role: 'user', content: 'branch' }])).toBe(3);
      expect(await context.store.getMessageCount(source)).toBe(3);
      expect((await context.store.loadState(source))?.customState).toEqual({ n: 2 });
    });

    it('cloneSession without a checkpoint copies every message; it rejects a taken or unknown id', async () => {
      const { sessionId: source } = await context.createSession('clone-all', { customState: { k: 'v' } });
      await context.store.appendMessages(source, [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]);
      const target = context.sessionId('clone-all-target');
      const branch = await context.store.cloneSession(source, target);
      expect(branch.customState).toEqual({ k: 'v' });
      expect(await context.store.getMessageCount(target)).toBe(2);
      await expectCode(context.store.cloneSession(source, target), 'SESSION_ALREADY_EXISTS');
      await expectCode(context.store.cloneSession(context.sessionId('missing'), context.sessionId('t')), 'SESSION_NOT_FOUND');
      await expectCode(context.store.cloneSession(source, context.sessionId('t'), { checkpointId: 'nope' }), 'INVALID_ARGUMENT');
    });
  });
}
