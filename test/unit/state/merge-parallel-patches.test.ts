import { describe, expect, it } from 'vitest';

import { mergeParallelPatches, trackStateChange, type PatchConflictReport } from '../../../src/state/index.js';
import type { JsonPatchOperation } from '../../../src/types/json-patch.js';

interface State {
  notes: string[];
  status: string;
  counts: Record<string, number>;
  temp?: string;
}

const base: State = { notes: ['n0'], status: 'new', counts: { a: 1 }, temp: 't' };

const cases: Array<[string, JsonPatchOperation[][], Partial<State>, PatchConflictReport[]]> = [
  [
    'appends from every set survive, in set order',
    [[{ op: 'add', path: '/notes/-', value: 'a' }], [{ op: 'add', path: '/notes/-', value: 'b' }], [{ op: 'add', path: '/notes/-', value: 'c' }]],
    { notes: ['n0', 'a', 'b', 'c'] },
    [],
  ],
  [
    'replace is last-write-wins in set order',
    [[{ op: 'replace', path: '/status', value: 'first' }], [{ op: 'replace', path: '/status', value: 'second' }]],
    { status: 'second' },
    [],
  ],
  [
    'appends compose while replaces resolve',
    [
      [{ op: 'add', path: '/notes/-', value: 'a' }, { op: 'replace', path: '/status', value: 'one' }],
      [{ op: 'replace', path: '/status', value: 'two' }, { op: 'add', path: '/notes/-', value: 'b' }],
    ],
    { notes: ['n0', 'a', 'b'], status: 'two' },
    [],
  ],
  [
    'different keys of one object both land',
    [[{ op: 'add', path: '/counts/b', value: 2 }], [{ op: 'add', path: '/counts/c', value: 3 }]],
    { counts: { a: 1, b: 2, c: 3 } },
    [],
  ],
  [
    'removing a member twice is a reported conflict, not a failure',
    [[{ op: 'remove', path: '/temp' }], [{ op: 'remove', path: '/temp' }]],
    { temp: undefined },
    [{ patchSetIndex: 1, operationIndex: 0, op: 'remove' }],
  ],
  [
    'replace after an earlier remove re-creates the member',
    [[{ op: 'remove', path: '/temp' }], [{ op: 'replace', path: '/temp', value: 'back' }]],
    { temp: 'back' },
    [],
  ],
  [
    'a write below a member another set replaced with a primitive is skipped',
    [[{ op: 'replace', path: '/counts', value: 0 }], [{ op: 'replace', path: '/counts/a', value: 9 }]],
    { counts: 0 as unknown as Record<string, number> },
    [{ patchSetIndex: 1, operationIndex: 0, op: 'replace' }],
  ],
  ['no sets leave the base', [], {}, []],
];

describe('mergeParallelPatches', () => {
  it.each(cases)('%s', (_label, patchSets, expectedChanges, expectedConflicts) => {
    const { state, conflicts, patches } = mergeParallelPatches(base, patchSets);
    const expected: Record<string, unknown> = { ...base, ...expectedChanges };
    for (const key of Object.keys(expected)) if (expected[key] === undefined) delete expected[key];
    expect(state).toEqual(expected);
    expect(conflicts).toEqual(expectedConflicts);
    expect(patches).toHaveLength(patchSets.flat().length - expectedConflicts.length);
  });

  it('append order does not matter for which appends survive', () => {
    const sets = [[{ op: 'add', path: '/notes/-', value: 'x' }], [{ op: 'add', path: '/notes/-', value: 'y' }]] as JsonPatchOperation[][];
    const forward = mergeParallelPatches(base, sets).state.notes;
    const backward = mergeParallelPatches(base, [...sets].reverse()).state.notes;
    expect([...forward].sort()).toEqual([...backward].sort());
    expect(forward).toHaveLength(3);
  });

  it('merges real tracker output of parallel tools seeded from the same base', () => {
    const toolA = trackStateChange(base, (draft) => { draft.notes.push('from A'); draft.status = 'A'; });
    const toolB = trackStateChange(base, (draft) => { draft.notes.push('from B'); draft.counts.b = 1; });
    const toolC = trackStateChange(base, (draft) => { draft.status = 'C'; });
    const merged = mergeParallelPatches(base, [toolA.patches, toolB.patches, toolC.patches]);
    expect(merged.state).toEqual({ notes: ['n0', 'from A', 'from B'], status: 'C', counts: { a: 1, b: 1 }, temp: 't' });
    expect(merged.conflicts).toEqual([]);
  });

  it('does not mutate the base', () => {
    const before = structuredClone(base);
    mergeParallelPatches(base, [[{ op: 'add', path: '/notes/-', value: 'z' }], [{ op: 'remove', path: '/temp' }]]);
    expect(base).toEqual(before);
  });
});
