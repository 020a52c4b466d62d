import { describe, expect, it } from 'vitest';
import { expectCode, type ContractContext } from './context.js';

/**
 * Contract: staged tool writes (upsert, read, promote, discard, cleanup).
 *
 * @example
 * defineStagingContract(context);
 */
export function defineStagingContract(context: ContractContext): void {
  describe('staging', () => {
    it('upserts by (stepId, stagingKey), keeping the original order on retry', async () => {
      const { sessionId: id } = await context.createSession('stage');
      await context.store.stageChanges(id, { stepId: 's1', stagingKey: 'a', patches: [{ op: 'add', path: '/a', value: 1 }] });
      await context.store.stageChanges(id, { stepId: 's1', stagingKey: 'b', patches: [{ op: 'add', path: '/b', value: 1 }] });
      await context.store.stageChanges(id, { stepId: 's2', stagingKey: 'c', patches: [] });
      await context.store.stageChanges(id, { stepId: 's1', stagingKey: 'a', patches: [{ op: 'add', path: '/a', value: 2 }] });
      const staged = await context.store.getStagedChanges(id, 's1');
      expect(staged.map((row) => [row.stagingKey, row.order, row.patches])).toEqual([
        ['a', 1, [{ op: 'add', path: '/a', value: 2 }]],
        ['b', 2, [{ op: 'add', path: '/b', value: 1 }]],
      ]);
      expect((await context.store.getStagedChanges(id)).map((row) => `${row.stepId}/${row.stagingKey}`)).toEqual(['s1/a', 's1/b', 's2/c']);
      expect(await context.store.hasStagedChanges(id, 's2')).toBe(true);
      expect(await context.store.hasStagedChanges(id, 's3')).toBe(false);
      await expectCode(context.store.stageChanges(context.sessionId('missing'), { stepId: 's', stagingKey: 'k', patches: [] }), 'SESSION_NOT_FOUND');
    });

    it('promoteStaging merges parallel tools: both appends survive, the last replace wins', async () => {
      const { sessionId: id } = await context.createSession('promote', { customState: { log: ['start'], winner: 'none' } });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'tool-1', patches: [{ op: 'add', path: '/log/1', value: 'one' }, { op: 'replace', path: '/winner', value: 'one' }] });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'tool-2', patches: [{ op: 'add', path: '/log/1', value: 'two' }, { op: 'replace', path: '/winner', value: 'two' }] });
      await context.store.stageChanges(id, { stepId: 'r1:2', stagingKey: 'tool-3', patches: [{ op: 'add', path: '/other', value: 1 }] });
      const { newVersion } = await context.store.promoteStaging(id, 'r1:1');
      expect(newVersion).toBe(2);
      const state = await context.store.loadState<{ log: string[]; winner: string }>(id);
      expect([...(state?.customState.log ?? [])].sort()).toEqual(['one', 'start', 'two']);
      expect(state?.customState.winner).toBe('two');
      expect(await context.store.hasStagedChanges(id, 'r1:1')).toBe(false);
      expect(await context.store.hasStagedChanges(id, 'r1:2')).toBe(true);
      expect(await context.store.promoteStaging(id, 'r1:1')).toEqual({ newVersion: 2 });
    });

    it('discardStaging and cleanupOrphanedStaging delete the right rows', async () => {
      const { sessionId: id } = await context.createSession('discard');
      for (const [stepId, stagingKey] of [['s1', 'a'], ['s1', 'b'], ['s2', 'a'], ['s3', 'a']] as const) {
        await context.store.stageChanges(id, { stepId, stagingKey, patches: [] });
      }
      await context.store.discardStaging(id, 's1');
      expect((await context.store.getStagedChanges(id)).map((row) => row.stepId)).toEqual(['s2', 's3']);
      expect(await context.store.cleanupOrphanedStaging(id, 's3')).toBe(1);
      expect((await context.store.getStagedChanges(id)).map((row) => row.stepId)).toEqual(['s3']);
      await context.store.stageChanges(id, { stepId: 's4', stagingKey: 'a', patches: [] });
      expect(await context.store.cleanupOrphanedStaging(id)).toBe(2);
      await context.store.stageChanges(id, { stepId: 's5', stagingKey: 'a', patches: [] });
      await context.store.discardStaging(id);
      expect(await context.store.hasStagedChanges(id)).toBe(false);
    });

    it('a commit applies direct patches after the staged rows; a direct entry replaces the staged row with its key', async () => {
      const { sessionId: id } = await context.createSession('direct-patches', { customState: { log: ['start'] } });
      // `b` staged by an attempt that crashed; the re-run hands its patches to the commit directly.
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'a', patches: [{ op: 'add', path: '/log/-', value: 'a' }] });
      await context.store.stageChanges(id, { stepId: 'r1:1', stagingKey: 'b', patches: [{ op: 'add', path: '/log/-', value: 'b-first-attempt' }] });
      await context.store.saveStateAndPromoteStaging(id, { stepCount: 1 }, [], { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 }, {
        patches: [
          { stagingKey: 'b', patches: [{ op: 'add', path: '/log/-', value: 'b' }] },
          { stagingKey: 'c', patches: [{ op: 'add', path: '/log/-', value: 'c' }] },
        ],
      });
      expect((await context.store.loadState<{ log: string[] }>(id))?.customState.log).toEqual(['start', 'a', 'b', 'c']);
      expect((await context.store.getLatestCheckpoint(id))?.customState).toEqual({ log: ['start', 'a', 'b', 'c'] });
      expect(await context.store.hasStagedChanges(id, 'r1:1')).toBe(false);
    });
  });
}
