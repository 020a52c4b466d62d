import { describe, expect, it } from 'vitest';
import type { JsonPatchOperation } from '../../../types/json-patch.js';
import { type ContractContext } from './context.js';

type GrowingState = {
  items: Array<{ step: number; text: string }>;
  count: number;
  note?: string;
};

const meta = (runId: string, step: number) => ({ checkpointId: `${runId}:${step}`, runId, stepCount: step });

/** A deterministic ~300-character item for step `step` (distinct per step, so a wrong replay shows). */
const item = (step: number) => ({ step, text: `item-${step}-`.padEnd(300, String.fromCharCode(97 + (step % 26))) });

/**
 * Commit one step that appends an item and sets the counter (two tools), and apply the same change to
 * `expected` by hand (not through the store), so a read that merely echoes the store cannot pass.
 */
async function commitStep(context: ContractContext, id: string, runId: string, step: number, expected: GrowingState): Promise<void> {
  const stepId = `${runId}:${step}`;
  const append: JsonPatchOperation[] = [{ op: 'add', path: '/items/-', value: item(step) }];
  await context.store.stageChanges(id, { stepId, stagingKey: 'append', patches: append });
  await context.store.stageChanges(id, { stepId, stagingKey: 'count', patches: [{ op: 'replace', path: '/count', value: step }] });
  const result = await context.store.saveStateAndPromoteStaging(id, { stepCount: step }, [], meta(runId, step));
  expected.items.push(item(step));
  expected.count = step;
  // A store that reports the state after the commit reports this one.
  if (result.report !== undefined) expect(result.report.state.customState).toEqual(expected);
}

const copy = (state: GrowingState): GrowingState => JSON.parse(JSON.stringify(state)) as GrowingState;

/**
 * Contract: the session's customState (loadState) across many step commits of a growing state, mixed with
 * writes that are not step commits, rewinds and branches. A store may keep the committed state outside
 * the session record (in its checkpoints); every read must still give exactly the state as written.
 *
 * @example
 * defineStateHistoryContract(context);
 */
export function defineStateHistoryContract(context: ContractContext): void {
  describe('session state across commits of a growing state', () => {
    it('90 commits of a growing state: loadState reads back exactly after every one', async () => {
      const { sessionId: id } = await context.createSession('state-growing', { customState: { items: [], count: 0 } });
      const expected: GrowingState = { items: [], count: 0 };
      for (let step = 1; step <= 90; step += 1) {
        await commitStep(context, id, 'r1', step, expected);
        const state = await context.store.loadState(id);
        expect(state?.customState, `after step ${step}`).toEqual(expected);
        expect(state).toMatchObject({ stepCount: step, checkpointId: `r1:${step}` });
      }
      expect((await context.store.getLatestCheckpoint(id))?.customState).toEqual(expected);
    });

    it('writes that are not step commits, then commits: each read gives what was written', async () => {
      const { sessionId: id } = await context.createSession('state-mixed', { customState: { items: [], count: 0 } });
      const expected: GrowingState = { items: [], count: 0 };
      for (let step = 1; step <= 5; step += 1) await commitStep(context, id, 'r1', step, expected);
      // Writes that leave customState alone.
      await context.store.updateStatus(id, 'paused');
      await context.store.saveState(id, { output: { partial: true } });
      await context.store.patchMetadata(id, { note: 'kept' });
      expect((await context.store.loadState(id))?.customState).toEqual(expected);
      await commitStep(context, id, 'r1', 6, expected);
      expect((await context.store.loadState(id))?.customState).toEqual(expected);
      // A merge and a full replacement outside a commit, each followed by commits.
      await context.store.mergeCustomState(id, [{ op: 'add', path: '/note', value: 'merged' }]);
      expected.note = 'merged';
      expect((await context.store.loadState(id))?.customState).toEqual(expected);
      await commitStep(context, id, 'r1', 7, expected);
      expect((await context.store.loadState(id))?.customState).toEqual(expected);
      expect((await context.store.getCheckpoint(id, 'r1:7'))?.customState).toEqual(expected);
      const replaced: GrowingState = { items: [item(-1)], count: -1 };
      await context.store.saveState(id, { customState: replaced });
      expect((await context.store.loadState(id))?.customState).toEqual(replaced);
      await commitStep(context, id, 'r1', 8, replaced);
      expect((await context.store.loadState(id))?.customState).toEqual(replaced);
      // Moving the pointer without writing customState keeps the session's own state, not the checkpoint's.
      await context.store.saveState(id, { checkpointId: 'r1:3' });
      expect(await context.store.loadState(id)).toMatchObject({ checkpointId: 'r1:3', customState: replaced });
      await commitStep(context, id, 'r1', 9, replaced);
      expect((await context.store.loadState(id))?.customState).toEqual(replaced);
      // A manual checkpoint, then commits on top of it.
      const manual = await context.store.createCheckpoint(id, meta('manual', 9));
      expect(manual.customState).toEqual(replaced);
      expect((await context.store.loadState(id))?.customState).toEqual(replaced);
      await commitStep(context, id, 'r1', 10, replaced);
      expect((await context.store.loadState(id))?.customState).toEqual(replaced);
      expect((await context.store.getCheckpoint(id, 'manual:9'))?.customState).toEqual({ items: [item(-1), item(8), item(9)], count: 9 });
    });

    it('a rewind and a branch from an older checkpoint read back, and commits continue from there', async () => {
      const { sessionId: id } = await context.createSession('state-rewind', { customState: { items: [], count: 0 } });
      const expected: GrowingState = { items: [], count: 0 };
      const states = new Map<number, GrowingState>();
      for (let step = 1; step <= 12; step += 1) {
        await commitStep(context, id, 'r1', step, expected);
        states.set(step, copy(expected));
      }
      // Branches: from an old checkpoint, and without one (the current state) of a session that only committed.
      const branch = await context.store.cloneSession(id, context.sessionId('state-branch'), { checkpointId: 'r1:4' });
      expect((await context.store.loadState(branch.sessionId))?.customState).toEqual(states.get(4));
      const current = await context.store.cloneSession(id, context.sessionId('state-copy'));
      expect((await context.store.loadState(current.sessionId))?.customState).toEqual(expected);
      const branchExpected = copy(states.get(4) as GrowingState);
      for (let step = 5; step <= 8; step += 1) await commitStep(context, branch.sessionId, 'b1', step, branchExpected);
      expect((await context.store.loadState(branch.sessionId))?.customState).toEqual(branchExpected);
      // Rewind: back to r1:6's state and pointer, then new commits.
      const target = await context.store.getCheckpoint(id, 'r1:6');
      await context.store.saveState(id, { customState: target?.customState, checkpointId: 'r1:6' });
      expect((await context.store.loadState(id))?.customState).toEqual(states.get(6));
      const rewound = copy(states.get(6) as GrowingState);
      for (let step = 7; step <= 10; step += 1) {
        await commitStep(context, id, 'r2', step, rewound);
        expect((await context.store.loadState(id))?.customState).toEqual(rewound);
      }
      expect((await context.store.getCheckpoint(id, 'r1:12'))?.customState).toEqual(states.get(12));
      expect((await context.store.getLatestCheckpoint(id))?.customState).toEqual(rewound);
      // The source is untouched by its branches.
      expect((await context.store.getCheckpoint(id, 'r1:4'))?.customState).toEqual(states.get(4));
    });
  });
}
