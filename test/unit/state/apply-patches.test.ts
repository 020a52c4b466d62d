import { describe, expect, it } from 'vitest';

import { InvalidArgumentError } from '../../../src/errors/index.js';
import { applyPatches, applyPatchesDetailed } from '../../../src/state/index.js';
import type { JsonPatchOperation } from '../../../src/types/json-patch.js';

// Cases adapted from RFC 6902 appendix A.
const valid: Array<[string, unknown, JsonPatchOperation[], unknown]> = [
  ['A.1 add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { foo: 'bar', baz: 'qux' }],
  ['A.2 add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
  ['A.3 remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  ['A.4 remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
  ['A.5 replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
  [
    'A.6 move a value',
    { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  ],
  ['A.7 move an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
  [
    'A.8 test success',
    { baz: 'qux', foo: ['a', 2, 'c'] },
    [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }],
    { baz: 'qux', foo: ['a', 2, 'c'] },
  ],
  ['A.10 add a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
  ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
  ['A.16 add to the end with -', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ['copy', { a: { b: [1] } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: [1] }, c: { b: [1] } }],
  ['replace the root', { a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }], { b: 2 }],
  ['add on an existing member replaces it', { a: 1 }, [{ op: 'add', path: '/a', value: 2 }], { a: 2 }],
  ['sequential appends', { list: [] }, [{ op: 'add', path: '/list/-', value: 1 }, { op: 'add', path: '/list/-', value: 2 }], { list: [1, 2] }],
  ['empty patch list', { a: 1 }, [], { a: 1 }],
];

const failing: Array<[string, unknown, JsonPatchOperation[]]> = [
  ['A.9 test failure', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]],
  ['A.12 add to a nonexistent target', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]],
  ['remove a missing member', { a: 1 }, [{ op: 'remove', path: '/b' }]],
  ['replace a missing member', { a: 1 }, [{ op: 'replace', path: '/b', value: 2 }]],
  ['array index past the end', { list: [1] }, [{ op: 'add', path: '/list/5', value: 2 }]],
  ['leading-zero index', { list: [1, 2] }, [{ op: 'replace', path: '/list/01', value: 2 }]],
  ['path through a primitive', { a: 1 }, [{ op: 'add', path: '/a/b', value: 2 }]],
  ['move into its own child', { a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]],
  ['remove the root', { a: 1 }, [{ op: 'remove', path: '' }]],
  ['unknown op', { a: 1 }, [{ op: 'merge', path: '/a', value: 1 } as unknown as JsonPatchOperation]],
  ['pointer without leading slash', { a: 1 }, [{ op: 'add', path: 'a', value: 1 }]],
];

describe('applyPatches', () => {
  it.each(valid)('%s', (_label, document, patches, expected) => {
    const before = structuredClone(document);
    expect(applyPatches(document, patches)).toEqual(expected);
    expect(document).toEqual(before);
  });

  it.each(failing)('throws InvalidArgumentError: %s', (_label, document, patches) => {
    expect(() => applyPatches(document, patches)).toThrow(InvalidArgumentError);
  });

  it('names the operation index and kind but never the value', () => {
    try {
      applyPatches({ a: 1 }, [{ op: 'add', path: '/x', value: 1 }, { op: 'replace', path: '/secret', value: 'hunter2' }]);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/operation 1 \(replace\)/);
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('shares untouched subtrees and copies inserted values', () => {
    const document = { touched: { n: 1 }, untouched: { deep: [1, 2] } };
    const value = { inner: [1] };
    const result = applyPatches(document, [{ op: 'add', path: '/touched/v', value }]);
    expect(result.untouched).toBe(document.untouched);
    value.inner.push(2);
    expect(result).toEqual({ touched: { n: 1, v: { inner: [1] } }, untouched: { deep: [1, 2] } });
  });

  it('works on frozen input', () => {
    const document = Object.freeze({ list: Object.freeze([1]) });
    expect(applyPatches(document, [{ op: 'add', path: '/list/-', value: 2 }])).toEqual({ list: [1, 2] });
  });

  it('sets "__proto__" as an own member without touching prototypes', () => {
    const result = applyPatches<Record<string, unknown>>({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
  });

  it('skips conflicting operations with onConflict: skip, but still throws on a failed test', () => {
    expect(applyPatches({ a: 1 }, [{ op: 'remove', path: '/b' }, { op: 'replace', path: '/a', value: 2 }], { onConflict: 'skip' })).toEqual({ a: 2 });
    expect(() => applyPatches({ a: 1 }, [{ op: 'test', path: '/a', value: 3 }], { onConflict: 'skip' })).toThrow(InvalidArgumentError);
  });

  it('reports applied and skipped operations', () => {
    const patches: JsonPatchOperation[] = [
      { op: 'remove', path: '/missing' },
      { op: 'replace', path: '/created', value: 1 },
      { op: 'add', path: '/gone/child', value: 1 },
    ];
    const result = applyPatchesDetailed({}, patches, 'skip');
    expect(result).toEqual({ state: { created: 1 }, applied: [patches[1]], skipped: [0, 2] });
  });
});
