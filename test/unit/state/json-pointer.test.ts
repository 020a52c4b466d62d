import { describe, expect, it } from 'vitest';

import { InvalidArgumentError } from '../../../src/errors/index.js';
import { escapePointerSegment, parseJsonPointer, toJsonPointer } from '../../../src/state/index.js';

describe('JSON Pointer', () => {
  it.each<[readonly (string | number)[], string]>([
    [[], ''],
    [['a'], '/a'],
    [['items', 0, 'name'], '/items/0/name'],
    [['a/b'], '/a~1b'],
    [['m~n'], '/m~0n'],
    [['~1'], '/~01'],
    [[''], '/'],
  ])('%j ⇄ %s', (path, pointer) => {
    expect(toJsonPointer(path)).toBe(pointer);
    expect(parseJsonPointer(pointer)).toEqual(path.map(String));
  });

  it('escapes ~ before /', () => {
    expect(escapePointerSegment('~/')).toBe('~0~1');
  });

  it.each(['a', '/bad~2escape', '/trailing~'])('rejects %s', (pointer) => {
    expect(() => parseJsonPointer(pointer)).toThrow(InvalidArgumentError);
  });
});
