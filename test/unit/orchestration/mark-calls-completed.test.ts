import { describe, expect, it } from 'vitest';
import { markCallsCompleted } from '../../../src/orchestration/hitl-decisions.js';

describe('markCallsCompleted', () => {
  const cases: Array<[string, Record<string, number> | undefined, string[], Record<string, number>]> = [
    ['no map yet: the listed ids only', undefined, ['a', 'b'], { a: 9, b: 9 }],
    ['nothing listed: the map as it was', { a: 1 }, [], { a: 1 }],
    ['nothing listed and no map: empty', undefined, [], {}],
    ['earlier entries are kept beside new ones', { a: 1 }, ['b'], { a: 1, b: 9 }],
    ['a listed id already completed takes the new time', { a: 1, b: 2 }, ['a'], { a: 9, b: 2 }],
    ['a repeated id is recorded once', {}, ['a', 'a'], { a: 9 }],
  ];
  it.each(cases)('%s', (_label, completed, ids, expected) => {
    expect(markCallsCompleted(completed, ids, 9)).toEqual(expected);
  });

  it('never mutates the map it is given', () => {
    const completed = Object.freeze({ a: 1 });
    const merged = markCallsCompleted(completed, ['b'], 9);
    expect(completed).toEqual({ a: 1 });
    expect(merged).not.toBe(completed);
  });
});
