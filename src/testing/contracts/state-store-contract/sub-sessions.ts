import { describe, expect, it } from 'vitest';
import type { SubSessionRef } from '../../../types/session.js';
import { expectCode, type ContractContext } from './context.js';

/**
 * Contract: sub-session refs with mode, name and completionDelivered.
 *
 * @example
 * defineSubSessionContract(context);
 */
export function defineSubSessionContract(context: ContractContext): void {
  describe('sub-session refs', () => {
    it('adds refs (existing ids are kept), updates them and lists them in insertion order', async () => {
      const { sessionId: id } = await context.createSession('refs');
      const ephemeral: SubSessionRef = { subSessionId: `${id}-sub-t1`, agentType: 'researcher', parentToolCallId: 't1', mode: 'ephemeral', status: 'running', startedAt: 100 };
      const companion: SubSessionRef = {
        subSessionId: `${id}-agent-helper`,
        agentType: 'helper',
        parentToolCallId: 't2',
        mode: 'persistent',
        name: 'helper',
        status: 'running',
        completionDelivered: false,
        startedAt: 200,
      };
      await context.store.addSubSessionRefs(id, [ephemeral, companion]);
      await context.store.addSubSessionRefs(id, [{ ...ephemeral, status: 'failed', agentType: 'changed' }]);
      expect(await context.store.getSubSessionRefs(id)).toEqual([ephemeral, companion]);
      await context.store.updateSubSessionRef(id, companion.subSessionId, { status: 'completed', completionDelivered: true, output: { summary: 'done' } });
      const [, updated] = await context.store.getSubSessionRefs(id);
      expect(updated).toMatchObject({ ...companion, status: 'completed', completionDelivered: true, output: { summary: 'done' } });
      expect(typeof updated?.completedAt).toBe('number');
      await context.store.updateSubSessionRef(id, ephemeral.subSessionId, { status: 'paused_awaiting_client' });
      expect((await context.store.getSubSessionRefs(id))[0]?.completedAt).toBeUndefined();
    });

    it('keeps remote metadata (stream id, last proxied sequence) and updates it; in-process refs have none', async () => {
      const { sessionId: id } = await context.createSession('refs-remote');
      const remote: SubSessionRef = {
        subSessionId: `${id}-remote-t1`,
        agentType: 'researcher',
        parentToolCallId: 't1',
        mode: 'ephemeral',
        status: 'running',
        startedAt: 100,
        remote: { streamId: `${id}-remote-t1`, lastSequence: 0 },
      };
      const local: SubSessionRef = { subSessionId: `${id}-sub-t2`, agentType: 'helper', parentToolCallId: 't2', mode: 'ephemeral', status: 'running', startedAt: 200 };
      await context.store.addSubSessionRefs(id, [remote, local]);
      expect(await context.store.getSubSessionRefs(id)).toEqual([remote, local]);
      await context.store.updateSubSessionRef(id, remote.subSessionId, { remote: { streamId: remote.subSessionId, lastSequence: 42 } });
      await context.store.updateSubSessionRef(id, remote.subSessionId, { status: 'completed', output: { answer: 1 } });
      const [updated, untouched] = await context.store.getSubSessionRefs(id);
      expect(updated).toMatchObject({ status: 'completed', output: { answer: 1 }, remote: { streamId: remote.subSessionId, lastSequence: 42 } });
      expect(untouched?.remote).toBeUndefined();
      await expectCode(context.store.updateSubSessionRef(id, remote.subSessionId, { remote: { streamId: '', lastSequence: 1 } }), 'INVALID_ARGUMENT');
      await expectCode(context.store.updateSubSessionRef(id, remote.subSessionId, { remote: { streamId: 's', lastSequence: -1 } }), 'INVALID_ARGUMENT');
      await expectCode(context.store.addSubSessionRefs(id, [{ ...local, subSessionId: `${id}-remote-t3`, remote: { streamId: 's', lastSequence: 1.5 } }]), 'INVALID_ARGUMENT');
      expect((await context.store.getSubSessionRefs(id))[0]?.remote).toEqual({ streamId: remote.subSessionId, lastSequence: 42 });
    });

    it('rejects unknown refs and sessions', async () => {
      const { sessionId: id } = await context.createSession('refs-errors');
      await expectCode(context.store.updateSubSessionRef(id, 'nope', { status: 'completed' }), 'INVALID_ARGUMENT');
      await expectCode(
        context.store.addSubSessionRefs(context.sessionId('missing'), [
          { subSessionId: 'x', agentType: 'a', parentToolCallId: 't', mode: 'ephemeral', status: 'running', startedAt: 1 },
        ]),
        'SESSION_NOT_FOUND',
      );
      expect(await context.store.getSubSessionRefs(context.sessionId('missing'))).toEqual([]);
    });
  });
}
