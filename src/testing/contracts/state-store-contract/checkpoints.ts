import { describe, expect, it } from 'vitest';
import { type ContractContext } from './context.js';

/**
 * Contract: checkpoints and the "latest = most recently written" rule.
 *
 * @example
 * defineCheckpointContract(context);
 */
export function defineCheckpointContract(context: ContractContext): void {
  describe('checkpoints', () => {
    it('createCheckpoint snapshots customState and message count, moves the pointer, and is idempotent by id', async () => {
      const { sessionId: id } = await context.createSession('checkpoint', { customState: { n: 1 } });
      await context.store.appendMessages(id, [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]);
      const checkpoint = await context.store.createCheckpoint(id, { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 });
      expect(checkpoint).toMatchObject({ id: 'r1:1', sessionId: id, runId: 'r1', stepCount: 1, messageCount: 2, customState: { n: 1 } });
      expect(typeof checkpoint.createdAt).toBe('number');
      expect((await context.store.loadState(id))?.checkpointId).toBe('r1:1');
      await context.store.saveState(id, { customState: { n: 2 } });
      expect(await context.store.createCheckpoint(id, { checkpointId: 'r1:1', runId: 'r1', stepCount: 9 })).toEqual(checkpoint);
      expect(await context.store.getCheckpoint(id, 'r1:1')).toEqual(checkpoint);
      expect(await context.store.getCheckpoint(id, 'unknown')).toBeNull();
    });

    it('getLatestCheckpoint returns the most recently written checkpoint, even with a lower stepCount', async () => {
      const { sessionId: id } = await context.createSession('latest');
      await context.store.saveStateAndPromoteStaging(id, { stepCount: 5 }, [], { checkpointId: 'r1:5', runId: 'r1', stepCount: 5 });
      await context.store.saveStateAndPromoteStaging(id, { stepCount: 1 }, [], { checkpointId: 'r2:1', runId: 'r2', stepCount: 1 });
      expect((await context.store.getLatestCheckpoint(id))?.id).toBe('r2:1');
      await context.store.createCheckpoint(id, { checkpointId: 'r2:0', runId: 'r2', stepCount: 0 });
      expect((await context.store.getLatestCheckpoint(id))?.id).toBe('r2:0');
      expect((await context.store.listCheckpoints(id)).map((checkpoint) => checkpoint.id)).toEqual(['r1:5', 'r2:1', 'r2:0']);
    });

    it('the session pointer wins; without a pointer the most recently written checkpoint is returned', async () => {
      const { sessionId: id } = await context.createSession('pointer');
      await context.store.createCheckpoint(id, { checkpointId: 'a', runId: 'r1', stepCount: 3 });
      await context.store.createCheckpoint(id, { checkpointId: 'b', runId: 'r1', stepCount: 1 });
      await context.store.saveState(id, { checkpointId: 'a' });
      expect((await context.store.getLatestCheckpoint(id))?.id).toBe('a');
      await context.store.saveState(id, { checkpointId: undefined });
      expect((await context.store.getLatestCheckpoint(id))?.id).toBe('b');
      await context.store.saveState(id, { checkpointId: 'dangling' });
      expect((await context.store.getLatestCheckpoint(id))?.id).toBe('b');
      expect(await context.store.getLatestCheckpoint(context.sessionId('missing'))).toBeNull();
    });
  });
}
