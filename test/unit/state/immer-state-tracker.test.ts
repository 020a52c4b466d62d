import { describe, expect, it } from 'vitest';

import { applyPatches, ImmerStateTracker, trackStateChange, type StateRecipe } from '../../../src/state/index.js';
import type { JsonPatchOperation } from '../../../src/types/json-patch.js';

interface State {
  items: unknown[];
  counter: number;
  nested: { tags: string[]; label?: string; [key: string]: unknown };
  matrix: number[][];
}

const base = (): State => ({ items: [1, 2, 3], counter: 0, nested: { tags: ['a'], label: 'x' }, matrix: [[1]] });

const cases: Array<[string, StateRecipe<State>, JsonPatchOperation[]]> = [
  ['replace a number', (draft) => { draft.counter = 5; }, [{ op: 'replace', path: '/counter', value: 5 }]],
  ['push becomes add /-', (draft) => { draft.items.push(4); }, [{ op: 'add', path: '/items/-', value: 4 }]],
  [
    'two pushes become two appends',
    (draft) => { draft.items.push(4, 5); },
    [{ op: 'add', path: '/items/-', value: 4 }, { op: 'add', path: '/items/-', value: 5 }],
  ],
  ['nested push', (draft) => { draft.nested.tags.push('b'); }, [{ op: 'add', path: '/nested/tags/-', value: 'b' }]],
  ['push into an inner array', (draft) => { draft.matrix[0]?.push(2); }, [{ op: 'add', path: '/matrix/0/-', value: 2 }]],
  ['new object key is add', (draft) => { draft.nested.extra = true; }, [{ op: 'add', path: '/nested/extra', value: true }]],
  ['delete is remove', (draft) => { delete draft.nested.label; }, [{ op: 'remove', path: '/nested/label' }]],
  ['~ and / in keys are escaped', (draft) => { draft.nested['a/b~c'] = 1; }, [{ op: 'add', path: '/nested/a~1b~0c', value: 1 }]],
  ['array element replace', (draft) => { draft.items[1] = 20; }, [{ op: 'replace', path: '/items/1', value: 20 }]],
  ['pop is remove of the last index', (draft) => { draft.items.pop(); }, [{ op: 'remove', path: '/items/2' }]],
  ['no change, no patches', () => undefined, []],
];

describe('ImmerStateTracker', () => {
  it.each(cases)('%s', (_label, recipe, expected) => {
    const before = base();
    const { state, patches } = trackStateChange(before, recipe);
    expect(patches).toEqual(expected);
    expect(applyPatches(before, patches)).toEqual(state);
    expect(before).toEqual(base());
  });

  it('accumulates patches over several updates and they replay onto the base', () => {
    const tracker = new ImmerStateTracker(base());
    tracker.update((draft) => { draft.items.push('x'); });
    tracker.update((draft) => { draft.counter += 1; draft.items.unshift(0); });
    tracker.update((draft) => { delete draft.nested.label; });
    expect(tracker.hasChanges()).toBe(true);
    expect(applyPatches(base(), tracker.getPatches())).toEqual(tracker.getState());
    expect(tracker.getState()).toMatchObject({ counter: 1, items: [0, 1, 2, 3, 'x'] });
  });

  it('returns frozen state and does not freeze or mutate the caller base', () => {
    const callerBase = base();
    const tracker = new ImmerStateTracker(callerBase);
    expect(Object.isFrozen(tracker.getState())).toBe(true);
    expect(Object.isFrozen(tracker.getState().items)).toBe(true);
    expect(Object.isFrozen(callerBase)).toBe(false);
    tracker.update((draft) => { draft.items.push(9); });
    expect(callerBase.items).toEqual([1, 2, 3]);
    expect(tracker.hasChanges()).toBe(true);
  });

  it('patches from two trackers on the same base compose when applied in turn', () => {
    const first = trackStateChange(base(), (draft) => { draft.items.push('a'); });
    const second = trackStateChange(base(), (draft) => { draft.items.push('b'); });
    expect(applyPatches(base(), [...first.patches, ...second.patches]).items).toEqual([1, 2, 3, 'a', 'b']);
  });
});
