import { describe, expect, it } from 'vitest';
import { MAX_THROWN_ERROR_TEXT, MAX_THROWN_VALUE_TEXT, renderThrown } from '../../../src/errors/index.js';

describe('renderThrown (what the model reads of a failed tool)', () => {
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  const cases: Array<[string, unknown, string]> = [
    ['an Error', new RangeError('limit must be ≤ 10'), 'RangeError: limit must be ≤ 10'],
    ['an Error with a code', Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), 'Error (ECONNREFUSED): refused'],
    ['a string', 'quota exceeded', 'quota exceeded'],
    ['an empty string', '', '(an empty string)'],
    ['a plain object', { reason: 'quota', retryAfter: 30 }, '{"reason":"quota","retryAfter":30}'],
    ['an array', [1, 'two'], '[1,"two"]'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['a bigint inside an object', { n: 10n }, '{"n":"10"}'],
    ['a circular object', circular, '[object Object]'],
    ['a secret in a string', 'bad key sk-live-SECRET123456789', 'bad key [redacted]'],
  ];
  it.each(cases)('renders %s', (_name, value, expected) => {
    expect(renderThrown(value)).toBe(expected);
  });

  it('bounds long values and long error messages', () => {
    expect(renderThrown('z'.repeat(10_000))).toHaveLength(MAX_THROWN_VALUE_TEXT);
    expect(renderThrown({ big: 'q'.repeat(10_000), more: Array.from({ length: 1_000 }, (_, index) => index) }).length).toBeLessThanOrEqual(MAX_THROWN_VALUE_TEXT);
    expect(renderThrown(new Error('m'.repeat(10_000)))).toHaveLength(MAX_THROWN_ERROR_TEXT);
  });
});
