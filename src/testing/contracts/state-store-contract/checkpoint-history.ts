import { describe, expect, it } from 'vitest';
import type { JsonPatchOperation } from '../../../types/json-patch.js';
import type { Checkpoint } from '../../../types/session.js';
import { type ContractContext } from './context.js';

const meta = (runId: string, step: number) => ({ checkpointId: `${runId}:${step}`, runId, stepCount: step });

/** A deterministic ~200-character item for step `step` (distinct per step, so a wrong replay shows). */
function item(step: number): { step: number; text: string; tags: string[] } {
  return { step, text: `item-${step}-`.padEnd(200, String.fromCharCode(97 + (step % 26))), tags: [`t${step % 3}`] };
}

/** The staged writes of step `step`: always an append; sometimes a nested replace, a remove or nothing. */
function stepPatches(step: number): JsonPatchOperation[][] {
  if (step % 11 === 0) return [];
  const sets: JsonPatchOperation[][] = [[{ op: 'add', path: '/items/-', value: item(step) }, { op: 'replace', path: '/count', value: step }]];
  if (step % 5 === 0) sets.push([{ op: 'add', path: `/byStep/s${step}`, value: { squared: step * step } }]);
  if (step % 7 === 0) sets.push([{ op: 'remove', path: '/items/0' }]);
  // A replace of a member that is not there yet: the commit's merge creates it.
  if (step % 13 === 0) sets.push([{ op: 'replace', path: `/late${step}`, value: true }]);
  return sets;
}

/**
 * Run `steps` committed steps on session `id` (run `runId`, from step `first`), staging each step's
 * patches (several tools per step). Step `replaceAt` replaces customState through the commit's write
 * (a non-patch change). Returns the session's customState after each step, keyed by checkpoint id.
 */
async function runSteps(context: ContractContext, id: string, runId: string, first: number, steps: number, replaceAt?: number): Promise<Map<string, unknown>> {
  const expected = new Map<string, unknown>();
  for (let step = first; step < first + steps; step += 1) {
    const stepId = `${runId}:${step}`;
    for (const [index, patches] of stepPatches(step).entries()) {
      await context.store.stageChanges(id, { stepId, stagingKey: `tool-${index}`, patches });
    }
    const write = step === replaceAt ? { stepCount: step, customState: { items: [item(-step)], count: -step, byStep: {} } } : { stepCount: step };
    await context.store.saveStateAndPromoteStaging(id, write, [{ id: `${stepId}:0`, role: 'assistant', content: `step ${step}` }], meta(runId, step));
    expected.set(stepId, (await context.store.loadState(id))?.customState);
  }
  return expected;
}

function statesOf(checkpoints: readonly Checkpoint[]): Map<string, unknown> {
  return new Map(checkpoints.map((checkpoint) => [checkpoint.id, checkpoint.customState]));
}

/**
 * Contract: checkpoint history of a long session whose state grows every step (a store may keep deltas;
 * every checkpoint must still read back exactly as the state was at its step), branching from an old
 * checkpoint, rewinding and the latest checkpoint.
 *
 * @example
 * defineCheckpointHistoryContract(context);
 */
export function defineCheckpointHistoryContract(context: ContractContext): void {
  describe('checkpoint history with growing state', () => {
    it('60 steps: every checkpoint reads back as the state at its step; latest and list agree', async () => {
      const { sessionId: id } = await context.createSession('history', { customState: { items: [], count: 0, byStep: {} } });
      const expected = await runSteps(context, id, 'r1', 1, 30, 17);
      await context.store.saveState(id, { customState: { ...((await context.store.loadState(id))?.customState ?? {}), note: 'saved' } });
      await context.store.createCheckpoint(id, meta('manual', 0));
      expected.set('manual:0', (await context.store.loadState(id))?.customState);
      for (const [key, value] of await runSteps(context, id, 'r1', 31, 30)) expected.set(key, value);
      expect(expected.size).toBe(61);
      expect((expected.get('r1:60') as { items: unknown[] }).items.length).toBeGreaterThan(30);
      for (const [checkpointId, state] of expected) {
        expect((await context.store.getCheckpoint(id, checkpointId))?.customState, checkpointId).toEqual(state);
      }
      const listed = await context.store.listCheckpoints(id);
      expect(listed.map((checkpoint) => checkpoint.id)).toEqual([...expected.keys()]);
      expect(statesOf(listed)).toEqual(expected);
      expect(await context.store.getLatestCheckpoint(id)).toMatchObject({ id: 'r1:60', stepCount: 60, messageCount: 60, customState: expected.get('r1:60') });
      // Returned states are independent copies.
      (listed[40]?.customState as { items: unknown[] }).items.push('mutated');
      expect((await context.store.getCheckpoint(id, listed[40]?.id ?? ''))?.customState).toEqual(expected.get(listed[40]?.id ?? ''));
      expect((await context.store.getCheckpoint(id, 'r1:41'))?.customState).toEqual(expected.get('r1:41'));
    });

    it('a branch from an old checkpoint starts from that state, grows on its own, and leaves the source intact', async () => {
      const { sessionId: source } = await context.createSession('history-branch', { customState: { items: [], count: 0, byStep: {} } });
      const expected = await runSteps(context, source, 'r1', 1, 25);
      const target = context.sessionId('history-branch-target');
      const branch = await context.store.cloneSession(source, target, { checkpointId: 'r1:12' });
      expect(branch.customState).toEqual(expected.get('r1:12'));
      expect((await context.store.getLatestCheckpoint(target))?.customState).toEqual(expected.get('r1:12'));
      const branchSteps = await runSteps(context, target, 'b1', 13, 15);
      for (const [checkpointId, state] of branchSteps) {
        expect((await context.store.getCheckpoint(target, checkpointId))?.customState, checkpointId).toEqual(state);
      }
      expect((await context.store.listCheckpoints(target)).map((checkpoint) => checkpoint.id)).toEqual(['r1:12', ...branchSteps.keys()]);
      expect(statesOf(await context.store.listCheckpoints(source))).toEqual(expected);
      // A branch of the branch, from one of its own later checkpoints.
      const twig = await context.store.cloneSession(target, context.sessionId('history-twig'), { checkpointId: 'b1:20' });
      expect(twig.customState).toEqual(branchSteps.get('b1:20'));
      await context.store.deleteSession(target);
      expect(await context.store.getCheckpoint(twig.sessionId, 'b1:20')).toMatchObject({ customState: branchSteps.get('b1:20') });
    });

    it('after a rewind to an old checkpoint, new steps and the abandoned ones both read back', async () => {
      const { sessionId: id } = await context.createSession('history-rewind', { customState: { items: [], count: 0, byStep: {} } });
      const expected = await runSteps(context, id, 'r1', 1, 20);
      const target = await context.store.getCheckpoint(id, 'r1:8');
      await context.store.truncateMessages(id, target?.messageCount ?? 0);
      await context.store.saveState(id, { customState: target?.customState, checkpointId: 'r1:8' });
      for (const [key, value] of await runSteps(context, id, 'r2', 9, 15)) expected.set(key, value);
      for (const [checkpointId, state] of expected) {
        expect((await context.store.getCheckpoint(id, checkpointId))?.customState, checkpointId).toEqual(state);
      }
      expect(statesOf(await context.store.listCheckpoints(id))).toEqual(expected);
      expect((await context.store.getLatestCheckpoint(id))?.customState).toEqual(expected.get('r2:23'));
      await context.store.deleteSession(id);
      expect(await context.store.listCheckpoints(id)).toEqual([]);
    });
  });
}
