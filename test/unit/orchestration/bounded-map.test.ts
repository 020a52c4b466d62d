import { describe, expect, it } from 'vitest';
import { rememberNewest } from '../../../src/orchestration/bounded-map.js';

describe('rememberNewest', () => {
  const cases: Array<[string, Array<[string, number]>, number, Array<[string, number]>]> = [
    ['below the bound keeps every entry in write order', [['a', 1], ['b', 2]], 3, [['a', 1], ['b', 2]]],
    ['beyond the bound drops the oldest', [['a', 1], ['b', 2], ['c', 3]], 2, [['b', 2], ['c', 3]]],
    ['a key written again becomes the newest', [['a', 1], ['b', 2], ['a', 3], ['c', 4]], 2, [['a', 3], ['c', 4]]],
    ['a bound of one keeps the last write', [['a', 1], ['b', 2]], 1, [['b', 2]]],
  ];
  it.each(cases)('%s', (_name, writes, max, expected) => {
    const map = new Map<string, number>();
    for (const [key, value] of writes) rememberNewest(map, key, value, max);
    expect([...map.entries()]).toEqual(expected);
  });
});
