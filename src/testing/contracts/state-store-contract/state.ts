import { describe, expect, it } from 'vitest';
import { StaleStateError } from '../../../errors/index.js';
import { expectCode, race, type ContractContext } from './context.js';

/**
 * Contract: state writes, versions, CAS races, counters, metadata and the interrupt flag.
 *
 * @example
 * defineStateContract(context);
 */
export function defineStateContract(context: ContractContext): void {
  describe('state', () => {
    it('saveState writes fields, bumps the version and clears fields set to undefined', async () => {
      const { sessionId: id } = await context.createSession('save');
      const pending = { toolCallId: 'c1', toolName: 't', kind: 'client' as const, input: {}, ownerSessionId: id, agentType: 'a', runId: 'r', createdAt: 1 };
      const first = await context.store.saveState(id, {
        status: 'paused',
        output: { answer: 42 },
        error: 'boom',
        pendingClientToolCalls: { c1: pending },
        interruptContext: { reason: 'wait', interruptedAt: 5 },
        suspendedStepId: 'r:1',
        streamId: 'stream-1',
      });
      expect(first.newVersion).toBe(2);
      expect(await context.store.loadState(id)).toMatchObject({
        status: 'paused',
        output: { answer: 42 },
        error: 'boom',
        pendingClientToolCalls: { c1: pending },
        interruptContext: { reason: 'wait', interruptedAt: 5 },
        suspendedStepId: 'r:1',
        streamId: 'stream-1',
        version: 2,
      });
      await context.store.saveState(id, { error: undefined, suspendedStepId: undefined, status: 'active' });
      const loaded = await context.store.loadState(id);
      expect(loaded?.error).toBeUndefined();
      expect(loaded?.suspendedStepId).toBeUndefined();
      expect(loaded).toMatchObject({ status: 'active', output: { answer: 42 }, version: 3 });
      await context.store.saveState(id, { output: null });
      expect((await context.store.loadState(id))?.output).toBeNull();
    });

    it('failureReason round-trips through saveState and updateStatus', async () => {
      const { sessionId: id } = await context.createSession('failure-reason');
      await context.store.updateStatus(id, 'failed', { error: 'parent suspended', failureReason: 'parent_suspended' });
      expect(await context.store.loadState(id)).toMatchObject({ status: 'failed', error: 'parent suspended', failureReason: 'parent_suspended' });
      await context.store.saveState(id, { failureReason: 'other' });
      expect((await context.store.loadState(id))?.failureReason).toBe('other');
    });

    it('saveState with a stale expectedVersion throws StaleStateError and writes nothing', async () => {
      const { sessionId: id } = await context.createSession('stale-save');
      await context.store.saveState(id, { stepCount: 1 });
      const before = await context.snapshot(id);
      const error = await context.store.saveState(id, { stepCount: 9 }, { expectedVersion: 1 }).catch((caught: unknown) => caught);
      expect(StaleStateError.isInstance(error)).toBe(true);
      expect(await context.snapshot(id)).toEqual(before);
      await expectCode(context.store.saveState(context.sessionId('missing'), { stepCount: 1 }), 'SESSION_NOT_FOUND');
    });

    it('mode is written once', async () => {
      const { sessionId: id } = await context.createSession('mode', { mode: 'persistent' });
      await context.store.saveState(id, { mode: 'standard' });
      expect((await context.store.loadState(id))?.mode).toBe('persistent');
    });

    it('mergeCustomState applies patches atomically (a failing patch writes nothing)', async () => {
      const { sessionId: id } = await context.createSession('merge', { customState: { items: ['a'], count: 1 } });
      const { newVersion } = await context.store.mergeCustomState(id, [
        { op: 'add', path: '/items/-', value: 'b' },
        { op: 'replace', path: '/count', value: 2 },
      ]);
      expect(newVersion).toBe(2);
      expect((await context.store.loadState(id))?.customState).toEqual({ items: ['a', 'b'], count: 2 });
      const before = await context.snapshot(id);
      await expect(
        context.store.mergeCustomState(id, [
          { op: 'replace', path: '/count', value: 3 },
          { op: 'remove', path: '/missing/deep' },
        ]),
      ).rejects.toThrow();
      expect(await context.snapshot(id)).toEqual(before);
    });

    it('compareAndSetStatus succeeds only from an expected status (and version)', async () => {
      const { sessionId: id } = await context.createSession('cas');
      expect(await context.store.compareAndSetStatus(id, ['completed'], 'active')).toEqual({ ok: false, currentStatus: 'active', currentVersion: 1 });
      const interruptContext = { reason: 'user', interruptedAt: 10 };
      expect(await context.store.compareAndSetStatus(id, ['active', 'paused'], 'interrupted', { interruptContext, error: 'stopped' })).toEqual({
        ok: true,
        newVersion: 2,
      });
      expect(await context.store.loadState(id)).toMatchObject({ status: 'interrupted', interruptContext, error: 'stopped', version: 2 });
      expect(await context.store.compareAndSetStatus(id, ['interrupted'], 'active', { expectedVersion: 1 })).toEqual({
        ok: false,
        currentStatus: 'interrupted',
        currentVersion: 2,
      });
      expect(await context.store.compareAndSetStatus(id, ['interrupted'], 'active', { expectedVersion: 2 })).toEqual({ ok: true, newVersion: 3 });
      expect(await context.store.compareAndSetStatus(context.sessionId('missing'), ['active'], 'paused')).toMatchObject({
        ok: false,
        currentStatus: null,
      });
    });

    it('lets exactly one of 20 concurrent CAS active→interrupted calls win', async () => {
      const { sessionId: id } = await context.createSession('cas-race');
      const { fulfilled, rejected } = await race(20, () => context.store.compareAndSetStatus(id, ['active'], 'interrupted'));
      expect(rejected).toEqual([]);
      expect(fulfilled.filter((result) => result.ok)).toEqual([{ ok: true, newVersion: 2 }]);
      expect(fulfilled.filter((result) => !result.ok)).toHaveLength(19);
      expect((await context.store.loadState(id))?.version).toBe(2);
    });

    it('increments step and resume counters atomically', async () => {
      const { sessionId: id } = await context.createSession('counters');
      const { fulfilled } = await race(10, () => context.store.incrementStepCount(id));
      expect([...fulfilled].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await context.store.incrementResumeCount(id)).toBe(1);
      expect(await context.store.loadState(id)).toMatchObject({ stepCount: 10, resumeCount: 1, version: 12 });
      await expectCode(context.store.incrementStepCount(context.sessionId('missing')), 'SESSION_NOT_FOUND');
    });

    it('patchMetadata merges keys, deletes null ones, and keeps concurrent patches', async () => {
      const { sessionId: id } = await context.createSession('metadata', { metadata: { keep: '1', drop: '2' } });
      await context.store.patchMetadata(id, { drop: null, added: '3' });
      expect((await context.store.loadState(id))?.metadata).toEqual({ keep: '1', added: '3' });
      await Promise.all(Array.from({ length: 10 }, (_, index) => context.store.patchMetadata(id, { [`k${index}`]: String(index) })));
      const metadata = (await context.store.loadState(id))?.metadata ?? {};
      expect(Object.keys(metadata).sort()).toEqual(['added', 'k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'keep']);
      await expectCode(context.store.patchMetadata(id, { bad: 5 as unknown as string }), 'INVALID_ARGUMENT');
    });

    it('interrupt flag: set, read, atomic check-and-clear (one winner), clear; the version is untouched', async () => {
      const { sessionId: id } = await context.createSession('interrupt');
      expect(await context.store.checkInterruptFlag(id)).toEqual({ interrupted: false });
      expect(await context.store.isInterruptRequested(id)).toBe(false);
      await context.store.setInterruptFlag(id, 'user clicked Stop');
      expect(await context.store.isInterruptRequested(id)).toBe(true);
      expect(await context.store.isInterruptRequested(id)).toBe(true); // a read leaves the flag set
      expect(await context.store.readInterruptFlag(id)).toEqual({ interrupted: true, reason: 'user clicked Stop' });
      expect(await context.store.readInterruptFlag(id)).toEqual({ interrupted: true, reason: 'user clicked Stop' });
      const { fulfilled } = await race(10, () => context.store.checkInterruptFlag(id));
      expect(fulfilled.filter((result) => result.interrupted)).toEqual([{ interrupted: true, reason: 'user clicked Stop' }]);
      expect(await context.store.isInterruptRequested(id)).toBe(false);
      expect(await context.store.checkInterruptFlag(id)).toEqual({ interrupted: false });
      expect(await context.store.readInterruptFlag(id)).toEqual({ interrupted: false });
      await context.store.setInterruptFlag(id);
      expect(await context.store.readInterruptFlag(id)).toEqual({ interrupted: true });
      await context.store.clearInterruptFlag(id);
      expect(await context.store.checkInterruptFlag(id)).toEqual({ interrupted: false });
      await context.store.setInterruptFlag(id);
      expect(await context.store.checkInterruptFlag(id)).toEqual({ interrupted: true });
      expect((await context.store.loadState(id))?.version).toBe(1);
      await expectCode(context.store.setInterruptFlag(context.sessionId('missing')), 'SESSION_NOT_FOUND');
    });
  });
}
